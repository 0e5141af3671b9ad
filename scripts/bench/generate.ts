import { writeFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { mulberry32 } from "../../src/util/prng.js";
import { WorkspaceWriter } from "./workspace-writer.js";

/** Seeded PRNG: the same seed gives the same workspace. */
export const rng = mulberry32;

const TOPICS: Record<string, string[]> = {
  software:
    "deploy build server pipeline release branch merge review bug crash test database migration schema query index cache latency api endpoint container cluster config logs error timeout rollback".split(
      " ",
    ),
  cooking:
    "bread flour oven bake dough recipe soup garlic onion pasta sauce butter sugar salt pepper dinner lunch breakfast kitchen knife".split(
      " ",
    ),
  travel:
    "flight train hotel airport ticket passport luggage trip beach mountain city museum map booking delay station journey".split(
      " ",
    ),
  health:
    "doctor appointment sleep exercise running gym diet vitamin headache allergy medicine walk yoga stretch injury recovery".split(
      " ",
    ),
  family:
    "mother father sister brother daughter son birthday wedding school homework grandparents holiday gift party dinner visit".split(
      " ",
    ),
  finance:
    "budget invoice payment salary tax bank account savings expense receipt refund loan mortgage rent bill price".split(
      " ",
    ),
  music:
    "guitar piano concert song album band playlist lesson practice chord melody rhythm drums singer festival".split(
      " ",
    ),
};
const PEOPLE = "Dana Malik Sam Priya Jonas Aiko Lena Omar Chen Rosa Tariq Maya".split(" ");

const SYLLABLES = "ka lo mi ra ven tor el sa qui dan bro fen gal hu ix jo mar nel pol rus tes vi wor yan zel".split(
  " ",
);

/**
 * Each topic's vocabulary: its common real words first, then a long tail of rarer terms (project
 * names, jargon, places), drawn with Zipf's law as real text is: a few words are everywhere, most
 * are rare. The tail words are made from syllables, deterministically.
 */
function topicVocabulary(): Record<string, string[]> {
  const r = rng(99);
  const out: Record<string, string[]> = {};
  for (const [topic, words] of Object.entries(TOPICS)) {
    const tail = new Set<string>();
    while (tail.size < 300)
      tail.add(Array.from({ length: 2 + Math.floor(r() * 2) }, () => pick(r, SYLLABLES)).join(""));
    out[topic] = [...words, ...tail];
  }
  return out;
}

const VOCAB = topicVocabulary();

const zipfCdfs = new Map<number, Float64Array>();

/** A 0-based rank drawn with Zipf's law (s = 1) over n items. */
function zipf(r: () => number, n: number): number {
  let cdf = zipfCdfs.get(n);
  if (!cdf) {
    cdf = new Float64Array(n);
    let sum = 0;
    for (let i = 0; i < n; i++) cdf[i] = sum += 1 / (i + 1);
    for (let i = 0; i < n; i++) cdf[i] = cdf[i]! / sum;
    zipfCdfs.set(n, cdf);
  }
  const u = r();
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cdf[mid]! < u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A query a person might type about a topic: one or two common words and a rarer one. */
export function sampleQuery(r: () => number): string {
  const topic = pick(r, Object.keys(VOCAB));
  const words = VOCAB[topic]!;
  const q = [
    pick(r, ["what about", "why did", "when was", "who handled", "notes on"]),
    words[zipf(r, 20)]!,
    words[zipf(r, words.length)]!,
  ];
  if (r() < 0.5) q.push(words[20 + Math.floor(r() * 100)]!);
  return q.join(" ");
}
const GLUE = "the a and then with for on in after before because so we they it was is will need to of about".split(" ");

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

function sentence(r: () => number, topic: string): string {
  const words = VOCAB[topic]!;
  const n = 8 + Math.floor(r() * 14);
  const out: string[] = r() < 0.3 ? [pick(r, PEOPLE)] : [];
  for (let i = 0; i < n; i++) out.push(r() < 0.45 ? words[zipf(r, words.length)]! : pick(r, GLUE));
  if (r() < 0.2) out.push(String(Math.floor(r() * 1000)));
  return out.join(" ") + ".";
}

function paragraph(r: () => number, topic: string, sentences: number): string {
  return Array.from({ length: sentences }, () => sentence(r, topic)).join(" ");
}

function dailyLog(r: () => number, date: string, targetBytes: number): string {
  let s = `# ${date}\n`;
  while (s.length < targetBytes) {
    const topic = pick(r, Object.keys(TOPICS));
    s += `\n## ${topic[0]!.toUpperCase()}${topic.slice(1)}\n\n`;
    const items = 2 + Math.floor(r() * 5);
    for (let i = 0; i < items; i++) s += `- ${paragraph(r, topic, 1 + Math.floor(r() * 2))}\n`;
    if (r() < 0.3) s += `\n${paragraph(r, topic, 3)}\n`;
  }
  return s;
}

function note(r: () => number, title: string, targetBytes: number): string {
  let s = `# ${title}\n`;
  while (s.length < targetBytes) {
    const topic = pick(r, Object.keys(TOPICS));
    s += `\n${paragraph(r, topic, 3 + Math.floor(r() * 4))}\n`;
    if (r() < 0.15) s += "\n```sh\nnpm run build && npm test\n```\n";
  }
  return s;
}

function transcript(r: () => number, start: number, targetBytes: number): string {
  const lines: string[] = [
    JSON.stringify({ type: "session", id: `s${start}`, timestamp: new Date(start).toISOString() }),
  ];
  let size = 0;
  let i = 0;
  while (size < targetBytes) {
    const topic = pick(r, Object.keys(TOPICS));
    const role = i % 2 === 0 ? "user" : "assistant";
    const line = JSON.stringify({
      type: "message",
      timestamp: new Date(start + i * 60_000).toISOString(),
      message: { role, content: [{ type: "text", text: paragraph(r, topic, role === "user" ? 1 : 3) }] },
    });
    lines.push(line);
    size += line.length;
    i++;
  }
  return lines.join("\n") + "\n";
}

export interface GeneratedWorkspace {
  root: string;
  files: number;
  bytes: number;
}

/**
 * Generates a realistic workspace: MEMORY.md, USER.md, dated daily logs (60%), notes (25%) and
 * transcripts (15%), ~6 KB per file on average (times `sizeFactor`). With `reuse`, an existing identical
 * workspace is kept.
 */
export function generateWorkspace(
  root: string,
  files = 2000,
  seed = 42,
  reuse = false,
  sizeFactor = 1,
): GeneratedWorkspace {
  const stamp = join(root, ".generated.json");
  if (reuse && existsSync(stamp)) {
    const meta = JSON.parse(readFileSync(stamp, "utf8")) as GeneratedWorkspace & { seed: number; sizeFactor?: number };
    if (meta.files === files && meta.seed === seed && (meta.sizeFactor ?? 1) === sizeFactor) return meta;
  }
  const out = new WorkspaceWriter(root);
  const write = (rel: string, content: string) => out.write(rel, content);
  const r = rng(seed);
  write(
    "MEMORY.md",
    `# Memory\n\n${Array.from({ length: 40 }, () => `- ${sentence(r, pick(r, Object.keys(TOPICS)))}`).join("\n")}\n`,
  );
  write("USER.md", `# User\n\n${Array.from({ length: 10 }, () => `- ${sentence(r, "family")}`).join("\n")}\n`);
  const rest = files - 2;
  const nDaily = Math.round(rest * 0.6);
  const nNotes = Math.round(rest * 0.25);
  const nTranscripts = rest - nDaily - nNotes;
  const day0 = Date.UTC(2024, 0, 1);
  for (let i = 0; i < nDaily; i++) {
    const date = new Date(day0 + Math.floor(i / 2) * 86_400_000).toISOString().slice(0, 10);
    write(
      `memory/${date}${i % 2 ? "-evening" : ""}.md`,
      dailyLog(r, date, Math.round((2500 + Math.floor(r() * 7000)) * sizeFactor)),
    );
  }
  for (let i = 0; i < nNotes; i++)
    write(`memory/notes/note-${i}.md`, note(r, `Note ${i}`, Math.round((2000 + Math.floor(r() * 8000)) * sizeFactor)));
  for (let i = 0; i < nTranscripts; i++)
    write(
      `sessions/session-${i}.jsonl`,
      transcript(r, day0 + i * 3_600_000, Math.round((3000 + Math.floor(r() * 9000)) * sizeFactor)),
    );
  const meta = { root, files, bytes: out.bytes, seed, ...(sizeFactor !== 1 ? { sizeFactor } : {}) };
  writeFileSync(stamp, JSON.stringify(meta));
  return meta;
}
