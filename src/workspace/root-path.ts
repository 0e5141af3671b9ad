import { existsSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { indexPath } from "../config/paths.js";
import { defaultNamespace } from "./namespace.js";

/**
 * The one spelling of a workspace root, whichever way it is written (the config, `-w`, `init`, a
 * client's `workspace` param): `~` is the home, a relative path is taken from `cwd`, `.`/`..` and a
 * trailing slash are gone, and an existing root's symlinks are followed. The default namespace is a
 * hash of this path, so one workspace has one index however it is written.
 */
export function normaliseRoot(p: string, cwd: string, home: string): string {
  const expanded = p === "~" ? home : p.startsWith("~/") ? join(home, p.slice(2)) : p;
  const abs = resolve(cwd, expanded); // resolve drops "." / ".." and trailing slashes
  try {
    return realpathSync.native(abs);
  } catch {
    return abs; // not there (yet): as written, made absolute
  }
}

/**
 * The spellings of a root that earlier versions hashed into the namespace as they were: with a
 * trailing slash (`~/x/` was kept as written) and without following symlinks.
 */
function olderSpellings(written: string, normalised: string, cwd: string, home: string): string[] {
  const expanded = written === "~" ? home : written.startsWith("~/") ? join(home, written.slice(2)) : written;
  const unresolved = resolve(cwd, expanded);
  const asWritten = expanded.startsWith("/") ? join(expanded) : unresolved; // join kept a trailing slash
  return [...new Set([asWritten, unresolved, `${unresolved}/`, `${normalised}/`])].filter((s) => s !== normalised);
}

/**
 * The namespace to use for a workspace without a configured name: its default one, unless only an
 * index made under another spelling of the same root exists, which is then reused (its files and
 * recall history stay; nothing is re-indexed). Undefined means the default.
 */
export function reusedNamespace(
  written: string,
  normalised: string,
  dataDir: string,
  opts: { cwd: string; home: string },
): string | undefined {
  if (existsSync(indexPath(dataDir, defaultNamespace(normalised)))) return undefined;
  for (const spelling of olderSpellings(written, normalised, opts.cwd, opts.home)) {
    const name = defaultNamespace(spelling);
    if (existsSync(indexPath(dataDir, name))) return name;
  }
  return undefined;
}
