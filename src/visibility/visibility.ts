import { sessionKind } from "./session-kind.js";

/**
 * Who may see a memory (docs/security.md, "Visibility"):
 * - `private`: only private conversations (the user's own: a DM, the main session, the CLI, Claude Code);
 * - `group:<id>`: private conversations and that one group;
 * - `open`: everyone (a line nobody tagged: what the user wrote into a daily log or note by hand);
 * - `shared`: a team's workspace, visible to every conversation of every member.
 */
export type Visibility = "private" | "open" | "shared" | `group:${string}`;

/** What a read may see: private sees everything; a group sees open, shared and its own group's memories. */
export type ReadScope = { kind: "private" } | { kind: "group"; group?: string };

export const PRIVATE_SCOPE: ReadScope = { kind: "private" };

/** Characters a group id keeps in a tag (anything else becomes `_`); a tag can never close its comment. */
const GROUP_ID_CHARS = /[^\p{L}\p{N}:._@!+=/-]/gu;
const MAX_GROUP_ID = 160;

/** A group id as it is written into a tag and compared. */
export function normalizeGroupId(id: string): string {
  return id.replace(GROUP_ID_CHARS, "_").slice(0, MAX_GROUP_ID);
}

/**
 * The visibility of what a session writes, from its key: a group session's writes belong to that
 * group; everything else (a DM, the main session, a Claude Code session id, an unknown key) is
 * private, the safe side.
 */
export function sessionVisibility(sessionId: string | undefined): Visibility {
  if (!sessionId) return "private";
  const k = sessionKind(sessionId);
  return k.kind === "group" ? `group:${normalizeGroupId(k.id)}` : "private";
}

/**
 * The read scope of a request: `scope` as given (default private, what a local caller is entitled to);
 * `group` names the conversation (its session key, or a group id) so it also sees its own memories.
 */
export function readScope(scope: "private" | "group" | undefined, group?: string): ReadScope {
  if (scope !== "group") return PRIVATE_SCOPE;
  if (!group) return { kind: "group" };
  const k = sessionKind(group);
  if (k.kind === "group") return { kind: "group", group: normalizeGroupId(k.id) };
  // A key that is not a group's (a DM's key given as "group") sees no group's memories.
  if (k.kind === "private" || group.toLowerCase().startsWith("agent:")) return { kind: "group" };
  return { kind: "group", group: normalizeGroupId(group) };
}

/** What a session may read, from its key: a group session its group's scope; anything else private (the caller's own). */
export function sessionReadScope(sessionId: string): ReadScope {
  const k = sessionKind(sessionId);
  return k.kind === "group" ? { kind: "group", group: normalizeGroupId(k.id) } : PRIVATE_SCOPE;
}

/** Whether a memory of this visibility may be shown to this scope. */
export function visibleTo(scope: ReadScope, vis: string): boolean {
  if (scope.kind === "private") return true;
  if (vis === "open" || vis === "shared") return true;
  return scope.group !== undefined && vis === `group:${scope.group}`;
}

/** The visibilities a scope may see, for an SQL filter (null: all). */
export function visibleSet(scope: ReadScope): string[] | null {
  if (scope.kind === "private") return null;
  return ["open", "shared", ...(scope.group ? [`group:${scope.group}`] : [])];
}

/** The most restrictive of two visibilities (private wins; two different groups make private). */
export function narrower(a: Visibility, b: Visibility): Visibility {
  if (a === b) return a;
  if (a === "private" || b === "private") return "private";
  if (a === "open" || a === "shared") return b;
  if (b === "open" || b === "shared") return a;
  return "private";
}

/** The scope's name as logs and explain show it. */
export function scopeLabel(scope: ReadScope): string {
  return scope.kind === "private" ? "private" : scope.group ? `group:${scope.group}` : "group";
}

/** A write its scope may not make (a group saving to MEMORY.md). */
export class VisibilityError extends Error {}

/**
 * Who may see a save: a group session's save is its group's; anything else private (the caller's
 * own, or a group conversation whose group is not known). A group never writes MEMORY.md: it is
 * private memory, loaded into private sessions only.
 */
export function saveVisibility(p: {
  session_id?: string | undefined;
  scope?: string | undefined;
  target?: string | undefined;
}): Visibility {
  const vis = sessionVisibility(p.session_id);
  if ((p.scope === "group" || vis.startsWith("group:")) && p.target === "memory")
    throw new VisibilityError(
      `a group conversation cannot save to MEMORY.md (private memory, never loaded into a group): save with target "daily" (visible to this group only)`,
    );
  return vis;
}
