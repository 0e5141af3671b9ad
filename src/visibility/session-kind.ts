/**
 * What kind of conversation an agent session is, read from its session key. OpenClaw's keys name the
 * peer kind at a fixed place after `agent:<agentId>:`: `agent:main:main` (the main, private session),
 * `agent:main:direct:<peer>` (dmScope per-peer), `agent:main:telegram:direct:42`,
 * `agent:main:telegram:<account>:direct:42`, `agent:main:telegram:group:-100123`,
 * `agent:main:discord:channel:42[:thread:…]`. The kind is the first of the segments 2–4 that names one;
 * later segments (a peer id that reads `dm`, a thread) never change it.
 *
 * The one home of this rule: the daemon decides a write's visibility with it, and the OpenClaw plugin
 * (a vendored copy) decides the scope of a read.
 */

const PRIVATE_KINDS = new Set(["direct", "directs", "dm", "dms", "private"]);
const GROUP_KINDS = new Set([
  "group",
  "groups",
  "channel",
  "channels",
  "room",
  "rooms",
  "guild",
  "guilds",
  "space",
  "spaces",
]);

export type SessionKind =
  | { kind: "private" }
  /** `id`: the conversation (channel, kind and peer, e.g. `telegram:group:-100123`). */
  | { kind: "group"; id: string }
  /** Not an agent session key, or one whose kind is not where it belongs. */
  | { kind: "unknown" };

/** The kind of the session a key names (see above). */
export function sessionKind(key: string): SessionKind {
  const parts = key.split(":");
  if (parts.length < 3 || parts[0]!.toLowerCase() !== "agent") return { kind: "unknown" };
  if (parts.length === 3 && parts[2]!.toLowerCase() === "main") return { kind: "private" };
  for (let i = 2; i <= 4 && i < parts.length; i++) {
    const seg = parts[i]!.toLowerCase();
    if (PRIVATE_KINDS.has(seg)) return { kind: "private" };
    if (GROUP_KINDS.has(seg)) {
      const peer = parts[i + 1];
      if (!peer || peer.toLowerCase() === "thread") return { kind: "group", id: parts.slice(2, i + 1).join(":") };
      return { kind: "group", id: parts.slice(2, i + 2).join(":") };
    }
  }
  return { kind: "unknown" };
}
