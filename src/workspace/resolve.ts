import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { WORKSPACE_MARKERS } from "./layout.js";
import { normaliseRoot } from "./root-path.js";

/**
 * One workspace resolution for every command (CLI, the daemon's `workspace` param, MCP, hooks):
 * a selector is a configured namespace name or a directory. A directory is made absolute (relative
 * to the caller's cwd, `~` expanded) and must exist; one that is not configured is usable on its own
 * only when it holds memory files. Anything else is an error naming the known workspaces: nothing
 * is created for a selector that does not resolve.
 */

/** A configured workspace as resolution sees it. */
export interface KnownWorkspace {
  name: string;
  root: string;
}

export type WorkspaceSelection =
  /** One of the configured workspaces (index into the list given). */
  | { kind: "configured"; index: number; name: string; root: string }
  /** An existing directory with memory files that is not configured: indexed on its own. */
  | { kind: "directory"; root: string };

export class WorkspaceResolutionError extends Error {
  constructor(
    message: string,
    readonly selector: string,
  ) {
    super(message);
    this.name = "WorkspaceResolutionError";
  }
}

export function looksLikeWorkspace(dir: string): boolean {
  return WORKSPACE_MARKERS.some((m) => existsSync(join(dir, m)));
}

/** "name → root, …", or "none configured". */
export function describeKnown(known: readonly KnownWorkspace[]): string {
  return known.length ? known.map((w) => `${w.name} → ${w.root}`).join(", ") : "none configured";
}

const FIX = "run `cortexd init` to set one up, or pass an existing workspace directory with -w";

/** A path selector made absolute: `~` is the home, a relative path is relative to `cwd` (workspace/root-path.ts). */
export function absoluteSelector(selector: string, cwd: string, home: string): string {
  return normaliseRoot(selector, cwd, home);
}

/**
 * The daemon's rule: a configured name, or a configured root given as an absolute path. A relative
 * path is refused (the daemon's cwd is not the caller's: clients send absolute paths).
 */
export function findConfiguredWorkspace(
  selector: string,
  known: readonly KnownWorkspace[],
): KnownWorkspace & { index: number } {
  const byName = known.findIndex((w) => w.name === selector);
  if (byName >= 0) return { ...known[byName]!, index: byName };
  const trimmed = isAbsolute(selector) ? normaliseRoot(selector, "/", "/") : selector;
  const byRoot = known.findIndex((w) => w.root === trimmed);
  if (byRoot >= 0) return { ...known[byRoot]!, index: byRoot };
  const why =
    isAbsolute(selector) || !/[/\\]/.test(selector)
      ? ""
      : " (a relative path: give an absolute path or a workspace name)";
  throw new WorkspaceResolutionError(
    `no workspace "${selector}"${why}; known workspaces: ${describeKnown(known)}`,
    selector,
  );
}

export interface ResolveOptions {
  cwd?: string;
  home?: string;
  /** Accept an existing, unconfigured directory that holds memory files (the CLI's `-w DIR`). */
  allowUnconfigured?: boolean;
}

/** The CLI's rule: a configured name or root, or (allowUnconfigured) an existing memory directory. */
export function resolveWorkspace(
  selector: string,
  known: readonly KnownWorkspace[],
  opts: ResolveOptions = {},
): WorkspaceSelection {
  const byName = known.findIndex((w) => w.name === selector);
  if (byName >= 0) return { kind: "configured", index: byName, ...known[byName]! };
  const abs = absoluteSelector(selector, opts.cwd ?? process.cwd(), opts.home ?? (process.env.HOME || homedir()));
  const byRoot = known.findIndex((w) => w.root === abs);
  if (byRoot >= 0) return { kind: "configured", index: byRoot, ...known[byRoot]! };
  const knownText = `known workspaces: ${describeKnown(known)}`;
  const st = statSync(abs, { throwIfNoEntry: false });
  if (!st) {
    const looksLikeName = !/[/\\~.]/.test(selector);
    throw new WorkspaceResolutionError(
      looksLikeName
        ? `no workspace named "${selector}" is configured, and there is no directory ${abs}; ${knownText}`
        : `workspace root ${abs} does not exist; ${knownText}; ${FIX}`,
      selector,
    );
  }
  if (!st.isDirectory())
    throw new WorkspaceResolutionError(`workspace root ${abs} is not a directory; ${knownText}`, selector);
  if (!opts.allowUnconfigured)
    throw new WorkspaceResolutionError(`${abs} is not a configured workspace; ${knownText}`, selector);
  if (!looksLikeWorkspace(abs)) {
    throw new WorkspaceResolutionError(
      `${abs} holds no memory files (${WORKSPACE_MARKERS.join(", ")}): not a workspace; ${knownText}; ` +
        `\`cortexd init --workspace ${abs}\` makes it one`,
      selector,
    );
  }
  return { kind: "directory", root: abs };
}

/** Why a configured workspace cannot be used now (its root is missing or not a directory), with the fix; null when it is fine. */
export function missingRootProblem(root: string): string | null {
  const st = statSync(root, { throwIfNoEntry: false });
  if (st?.isDirectory()) return null;
  return `workspace root ${root} ${st ? "is not a directory" : "does not exist"}: create it with \`cortexd init --workspace ${root}\`, or fix "workspaces" in the config (\`cortexd init\` sets one up)`;
}
