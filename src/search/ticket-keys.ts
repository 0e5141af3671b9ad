/**
 * Ticket keys a memory names: an incident, an issue, a change ("INC-4821", "OPS-112", "CVE-2024-3094")
 * — capitals, a dash, digits. Two memories naming the same one are about the same thing, whatever
 * else their words share: "Wrote the postmortem for INC-4821" and "Investigated INC-4821: checkout
 * latency spikes after the Redis upgrade". Not hosts or versions ("db-stage-2", "hx-301"): those are
 * values that change, and a memory naming the old one is the stale one.
 */
const ID = /\b[A-Z][A-Z0-9]{1,9}-\d+(?:-\d+)?\b/g;
/** Characters of a memory read for its ticket keys (a chunk is ~1,600; the cost stays bounded). */
const MAX_CHARS = 4_000;

/** The ticket keys a text names. */
export function ticketKeysOf(text: string): Set<string> {
  const src = text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text;
  return new Set(Array.from(src.matchAll(ID), (m) => m[0]));
}

/** The first ticket key of `text` among `known`, or null. */
export function sharedTicketKey(text: string, known: ReadonlySet<string>): string | null {
  if (known.size === 0) return null;
  for (const id of ticketKeysOf(text)) if (known.has(id)) return id;
  return null;
}
