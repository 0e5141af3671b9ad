import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { ReadFileError, readRegularText } from "../util/regular-file.js";
import type { GitResult } from "./git.js";

type Git = (...args: string[]) => Promise<GitResult>;

/**
 * Memory files are UTF-8 markdown that cortexd appends to and indexes. A teammate's `.gitattributes`
 * that re-encodes them (`working-tree-encoding=UTF-16LE-BOM`) or runs filters on them would make
 * cortexd's own `git add` fail, or commit bytes nobody can read. The clone's `.git/info/attributes`
 * (read by this clone only, and above every `.gitattributes`) unsets those attributes for `*.md`;
 * written once, in a marked block, nothing else in the file touched.
 */
export const ATTRIBUTES_BLOCK = [
  "# cortexd: memory files stay UTF-8 markdown, unfiltered, whatever a .gitattributes says",
  "*.md -working-tree-encoding -filter -ident",
].join("\n");

export async function neutraliseAttributes(git: Git): Promise<void> {
  const where = await git("rev-parse", "--path-format=absolute", "--git-path", "info/attributes");
  const file = where.stdout.trim();
  if (where.code !== 0 || !file) return;
  let text = "";
  try {
    text = await readRegularText(file, { maxBytes: 1024 * 1024 });
  } catch (e) {
    if (!(e instanceof ReadFileError) || e.kind !== "vanished") throw e;
  }
  if (text.includes(ATTRIBUTES_BLOCK)) return;
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${text}${text && !text.endsWith("\n") ? "\n" : ""}${ATTRIBUTES_BLOCK}\n`);
}

/**
 * The current branch's upstream as git stores it (`branch.<name>.remote` and `.merge`), so a remote
 * named `team/memory` is that remote, not `team` with a branch `memory/main`. A branch without one:
 * its name (for the fix), or "main".
 */
export async function upstreamOf(git: Git): Promise<{ remote: string; branch: string } | string> {
  const head = (await git("symbolic-ref", "--quiet", "--short", "HEAD")).stdout.trim();
  if (!head) return "main";
  const remote = (await git("config", "--get", `branch.${head}.remote`)).stdout.trim();
  const merge = (await git("config", "--get", `branch.${head}.merge`)).stdout.trim();
  if (!remote || remote === "." || !merge.startsWith("refs/heads/")) return head;
  return { remote, branch: merge.slice("refs/heads/".length) };
}
