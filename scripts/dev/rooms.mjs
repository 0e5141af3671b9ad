#!/usr/bin/env node
// The rooms of the storage layer and the indexer (issue #36), as a move that can be run again on any later main:
//
//   node scripts/dev/rooms.mjs            # move the files (git mv), rewrite every import and path mention
//   node scripts/dev/rooms.mjs --dry-run  # print the plan only
//
// Then: rm -rf dist && npm run build && npm run typecheck && npm run lint && npm test.
//
// RULES below is the one home of the layout. A file in src/index/ that no rule names stays where it is and is
// printed as unmapped, so a file added after this was written is seen, not lost. Re-running after the move is a
// no-op (every source is gone, its destination exists). Plain Node: no dependency (Prettier from node_modules
// is run on the rewritten files when present).
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, posix, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The layout: [from, to], paths under src/. `from` is a file, or `dir/*` (every file directly in it, moved into
 * `to` as a folder) or `dir/prefix*` (the files whose names start so). The first rule that matches a file wins.
 */
export const RULES = [
  // index/db: the connection, migrations, statements, open / probe / write errors, upkeep, data version.
  ["index/db.ts", "index/db/db.ts"],
  ["index/migrations.ts", "index/db/migrations.ts"],
  ["index/statements.ts", "index/db/statements.ts"],
  ["index/open-checked.ts", "index/db/open-checked.ts"],
  ["index/open-read-only.ts", "index/db/open-read-only.ts"],
  ["index/probe-writable.ts", "index/db/probe-writable.ts"],
  ["index/write-errors.ts", "index/db/write-errors.ts"],
  ["index/db-upkeep.ts", "index/db/db-upkeep.ts"],
  ["index/db-generation.ts", "index/db/db-generation.ts"],
  ["index/blobs.ts", "index/db/blobs.ts"],
  // index/repos: the store and its repositories, the row cache.
  ["index/store.ts", "index/repos/store.ts"],
  ["index/chunks-repo.ts", "index/repos/chunks-repo.ts"],
  ["index/chunk-meta.ts", "index/repos/chunk-meta.ts"],
  ["index/files-repo.ts", "index/repos/files-repo.ts"],
  ["index/meta-repo.ts", "index/repos/meta-repo.ts"],
  ["index/embed-cache-repo.ts", "index/repos/embed-cache-repo.ts"],
  ["index/visibility-repo.ts", "index/repos/visibility-repo.ts"],
  ["index/recall-log.ts", "index/repos/recall-log.ts"],
  ["index/consolidation-records.ts", "index/repos/consolidation-records.ts"],
  ["index/row-cache.ts", "index/repos/row-cache.ts"],
  // index/keyword: FTS text, tokens and totals, segment merging, term statistics, postings, path index, BM25.
  ["index/fts-text.ts", "index/keyword/fts-text.ts"],
  ["index/fts-tokens.ts", "index/keyword/fts-tokens.ts"],
  ["index/fts-totals.ts", "index/keyword/fts-totals.ts"],
  ["index/fts-merge.ts", "index/keyword/fts-merge.ts"],
  ["index/term-stats.ts", "index/keyword/term-stats.ts"],
  ["index/keyword-postings.ts", "index/keyword/keyword-postings.ts"],
  ["index/path-index.ts", "index/keyword/path-index.ts"],
  ["index/bm25.ts", "index/keyword/bm25.ts"],
  ["index/text-search.ts", "index/keyword/text-search.ts"],
  ["search/keyword/postings-topk.ts", "index/keyword/postings-topk.ts"],
  ["search/keyword/postings-maxscore.ts", "index/keyword/postings-maxscore.ts"],
  ["search/keyword/postings-bounds.ts", "index/keyword/postings-bounds.ts"],
  ["search/keyword/postings-scan.ts", "index/keyword/postings-scan.ts"],
  ["search/keyword/topk-heap.ts", "index/keyword/topk-heap.ts"],
  // index/vectors: the matrix, codes, SIMD kernel, passages, the vector repository.
  ["index/vector-matrix.ts", "index/vectors/vector-matrix.ts"],
  ["index/vector-codes.ts", "index/vectors/vector-codes.ts"],
  ["index/vector-sample.ts", "index/vectors/vector-sample.ts"],
  ["index/vector-repo.ts", "index/vectors/vector-repo.ts"],
  ["index/vec-state.ts", "index/vectors/vec-state.ts"],
  ["index/simd-dot.ts", "index/vectors/simd-dot.ts"],
  ["index/simd-dot.wat", "index/vectors/simd-dot.wat"],
  ["index/passage-vectors.ts", "index/vectors/passage-vectors.ts"],
  ["index/passage-codes.ts", "index/vectors/passage-codes.ts"],
  ["index/passage-rows.ts", "index/vectors/passage-rows.ts"],
  // src/indexer: the indexing pipeline above the storage (sync phases, passage embedding, embed cache use,
  // file issues, conflict registry).
  ["index/sync*", "indexer"],
  ["index/passage-embed.ts", "indexer/passage-embed.ts"],
  ["index/embed-cache.ts", "indexer/embed-cache.ts"],
  ["index/file-issues.ts", "indexer/file-issues.ts"],
  ["index/conflict-registry.ts", "indexer/conflict-registry.ts"],
  // src/sync is git sync, per-device logs and conflict copies: src/multi-device; its recall parts join search.
  ["sync/recall-*", "search"],
  ["sync/*", "multi-device"],
];

/** Folders whose files are looked at and may be moved (the rules' sources); the rest only have imports rewritten. */
const WATCHED = ["index", "sync", "search/keyword"];
/** Where imports and path mentions are rewritten (repository-relative). */
const REWRITE_ROOTS = ["src", "test", "scripts", "integrations", "docs", "bin", "examples"];
const REWRITE_FILES = ["README.md", "eslint.config.js", "package.json", "vitest.config.ts", "tsconfig.json"];
const SKIP_DIRS = new Set(["node_modules", "dist", "vendor", ".git", "coverage", ".bench"]);
const CODE = /\.(ts|mts|cts|js|mjs|cjs)$/;
const TEXT = /\.(ts|mts|cts|js|mjs|cjs|json|md|sh|yml|yaml)$/;

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SELF = "scripts/dev/rooms.mjs";
const dryRun = process.argv.includes("--dry-run");
const toPosix = (p) => p.split(sep).join("/");

/** The destination of a file under src/ (posix, src-relative), or null when no rule names it. */
export function destinationOf(file) {
  for (const [from, to] of RULES) {
    if (from.endsWith("*")) {
      const prefix = from.slice(0, -1);
      const dir = posix.dirname(from);
      if (file.startsWith(prefix) && posix.dirname(file) === dir) return posix.join(to, posix.basename(file));
    } else if (file === from) return to;
  }
  return null;
}

function listFiles(dir, into = []) {
  if (!existsSync(dir)) return into;
  for (const name of readdirSync(dir).sort()) {
    if (SKIP_DIRS.has(name)) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) listFiles(p, into);
    else into.push(p);
  }
  return into;
}

/** The plan: old → new, src-relative; and the files in watched folders no rule names. */
function plan() {
  const moves = new Map();
  const unmapped = [];
  const src = join(root, "src");
  for (const w of WATCHED) {
    const dir = join(src, w);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      const rel = `${w}/${name}`;
      if (statSync(join(src, rel)).isDirectory()) continue; // sub-rooms (index/repos, …) stay as they are
      const to = destinationOf(rel);
      if (to === null || to === rel) {
        if (w === "index") unmapped.push(rel);
        continue;
      }
      moves.set(rel, to);
    }
  }
  const targets = new Map();
  for (const [from, to] of moves) {
    if (targets.has(to)) throw new Error(`two files move to src/${to}: src/${targets.get(to)} and src/${from}`);
    if (existsSync(join(src, to))) throw new Error(`src/${to} exists already: cannot move src/${from} there`);
    targets.set(to, from);
  }
  return { moves, unmapped };
}

/** Repository-relative old path → new path, for every moved file (src/… only). */
function pathMap(moves) {
  const m = new Map();
  for (const [from, to] of moves) m.set(`src/${from}`, `src/${to}`);
  return m;
}

const jsOf = (p) => p.replace(/\.ts$/, ".js");
const tsOf = (p) => p.replace(/\.js$/, ".ts");

/**
 * The new text of a relative specifier in a file that was at `oldFile` and is now at `newFile` (repository-
 * relative), or null when it does not change. Specifiers reaching src/ (as .js for .ts sources) and dist/src/
 * are mapped; anything else (node:*, packages, files outside) is only re-rooted when the importing file moved.
 */
function rewriteSpecifier(spec, oldFile, newFile, paths) {
  if (!spec.startsWith("./") && !spec.startsWith("../")) return null;
  const target = toPosix(relative(root, resolve(root, dirname(oldFile), spec)));
  let next = target;
  if (target.startsWith("src/")) {
    const moved = paths.get(tsOf(target)) ?? paths.get(target);
    if (moved) next = target.endsWith(".js") ? jsOf(moved) : moved;
  } else if (target.startsWith("dist/src/")) {
    const moved = paths.get(tsOf(target.slice("dist/".length)));
    if (moved) next = `dist/${jsOf(moved)}`;
  }
  if (next === target && oldFile === newFile) return null;
  let out = posix.relative(posix.dirname(newFile), next);
  if (!out.startsWith(".")) out = `./${out}`;
  return out === spec ? null : out;
}

const SPECIFIER =
  /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\bimportActual\s*\(\s*|\bnew URL\s*\(\s*)(["'])(\.{1,2}\/[^"'\n]*)\2/g;

/** Repository-relative mentions of a moved file (src/index/db.ts, dist/src/index/db.js, index/db.ts in prose). */
function mentionPattern(paths) {
  const dirs = new Set();
  for (const from of paths.keys()) dirs.add(posix.dirname(from.slice("src/".length)));
  const alt = [...dirs].sort((a, b) => b.length - a.length).map((d) => d.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`(?<![\\w/.@-])((?:dist/)?(?:src/)?)((?:${alt.join("|")})/[\\w.-]+?)\\.(ts|js|wat)\\b`, "g");
}

function rewriteMentions(text, paths, pattern) {
  let out = text.replace(pattern, (whole, prefix, stem, ext) => {
    const key = `src/${stem}.${ext === "js" ? "ts" : ext}`;
    const moved = paths.get(key);
    if (!moved) return whole;
    const stemNew = moved.slice("src/".length).replace(/\.(ts|wat)$/, "");
    return `${prefix}${stemNew}.${ext}`;
  });
  // the folder itself, named as a folder
  out = out.replace(/(?<![\w/.@-])((?:dist\/)?src\/)sync(?=\/|`|\)|\s|,|\.(?!\w)|$)/gm, "$1multi-device");
  return out;
}

function main() {
  const { moves, unmapped } = plan();
  const paths = pathMap(moves);
  console.log(`rooms: ${moves.size} file(s) to move${dryRun ? " (dry run)" : ""}`);
  for (const [from, to] of moves) console.log(`  src/${from} -> src/${to}`);
  if (unmapped.length) {
    console.log(`rooms: ${unmapped.length} file(s) in src/index no rule names (they stay; add a rule in RULES):`);
    for (const f of unmapped) console.log(`  src/${f}`);
  }
  if (moves.size === 0) {
    console.log("rooms: nothing to move (already applied?)");
    return;
  }

  // 1. Rewrite, reading every file at its old place: imports are resolved where they were written.
  const files = [
    ...REWRITE_ROOTS.flatMap((d) => listFiles(join(root, d))),
    ...REWRITE_FILES.map((f) => join(root, f)).filter(existsSync),
  ].map((p) => toPosix(relative(root, p)));
  const pattern = mentionPattern(paths);
  const changed = new Map();
  let specifiers = 0;
  for (const file of files) {
    if (!TEXT.test(file) || file === SELF) continue; // this file's table names the old places on purpose
    const before = readFileSync(join(root, file), "utf8");
    const newFile = paths.get(file) ?? file;
    let after = before;
    if (CODE.test(file)) {
      after = after.replace(SPECIFIER, (whole, lead, q, spec) => {
        const next = rewriteSpecifier(spec, file, newFile, paths);
        if (next === null) return whole;
        specifiers++;
        return `${lead}${q}${next}${q}`;
      });
    }
    after = rewriteMentions(after, paths, pattern);
    if (after !== before) changed.set(file, after);
  }
  console.log(`rooms: ${specifiers} import specifier(s) rewritten, ${changed.size} file(s) changed`);
  if (dryRun) {
    for (const f of changed.keys()) console.log(`  ${f}`);
    return;
  }
  for (const [file, text] of changed) writeFileSync(join(root, file), text);

  // 2. Move (git mv keeps the history when the file is tracked).
  const tracked = new Set(
    (() => {
      try {
        return execFileSync("git", ["ls-files", "src"], { cwd: root, encoding: "utf8" }).split("\n");
      } catch {
        return [];
      }
    })(),
  );
  for (const [from, to] of moves) {
    const a = `src/${from}`;
    const b = `src/${to}`;
    mkdirSync(dirname(join(root, b)), { recursive: true });
    if (tracked.has(a)) execFileSync("git", ["mv", a, b], { cwd: root });
    else renameSync(join(root, a), join(root, b));
  }
  for (const w of ["sync", "search/keyword"]) {
    const dir = join(root, "src", w);
    if (existsSync(dir) && readdirSync(dir).length === 0) rmdirSync(dir);
  }

  // 3. Format what was rewritten (a longer import may wrap).
  const prettier = join(root, "node_modules", ".bin", "prettier");
  const touched = [...changed.keys()].map((f) => paths.get(f) ?? f).filter((f) => /\.(ts|js|mjs|md|json)$/.test(f));
  if (existsSync(prettier) && touched.length) {
    execFileSync(prettier, ["--write", "--log-level", "warn", ...touched], { cwd: root, stdio: "inherit" });
  }
  console.log("rooms: done. Next: rm -rf dist && npm run build && npm run typecheck && npm run lint && npm test");
}

main();
