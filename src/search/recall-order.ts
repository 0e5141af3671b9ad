/**
 * The order of a recalled block for a prompt about someone or something: what a memory says of a
 * person, a service or a team can change, and the newest statement is the one that holds. The
 * memories that name one of the prompt's specific entities (search/entity-leg.ts `promptEntities`)
 * are shown newest first — an undated curated line as the oldest, the file's own history being all
 * there is — in the places those memories already hold; every other memory keeps its place. The
 * same memories within the same budget: only their order changes.
 *
 * Not for a prompt about a past window (its memories are that time's), and not for a block shown
 * in time order already (a window without a topic).
 */
/**
 * An entity named in more than this share of the chunks is what the whole workspace is about (its
 * owner, the two speakers of a chat): a block about it is not reordered by time.
 */
export const SUBJECT_SHARE = 0.25;

export interface Orderable {
  text: string;
  /** YYYY-MM-DD; none: an undated (curated) memory. */
  date?: string | undefined;
}

/** Lowercase words joined by single spaces, with a space at each end: whole-word containment. */
function spaced(text: string): string {
  return ` ${text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()} `;
}

export function newestFirstAbout<T>(items: readonly T[], entities: readonly string[], view: (t: T) => Orderable): T[] {
  const keys = entities.map(spaced).filter((k) => k.trim() !== "");
  if (keys.length === 0 || items.length < 2) return [...items];
  const about: number[] = [];
  items.forEach((t, i) => {
    const text = spaced(view(t).text);
    if (keys.some((k) => text.includes(k))) about.push(i);
  });
  if (about.length < 2) return [...items];
  // Newest first; undated last; ties keep the block's order (Array.prototype.sort is stable).
  const newest = about.map((i) => items[i]!).sort((a, b) => (view(b).date ?? "").localeCompare(view(a).date ?? ""));
  const out = [...items];
  about.forEach((place, n) => (out[place] = newest[n]!));
  return out;
}
