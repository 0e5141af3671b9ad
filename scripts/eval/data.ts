/**
 * Loading the LoCoMo retrieval set (see ../shared/eval/locomo/README.md) and laying out a temporary
 * workspace per conversation. The data is read in place and copied only into os.tmpdir().
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { errorMessage } from "../../src/util/error-message.js";

export type Variant = "memory" | "sessions";

/** Category number → name, as in the official evaluation code. */
export const CATEGORY_NAMES: Record<number, string> = {
  1: "multi-hop",
  2: "temporal",
  3: "open-domain",
  4: "single-hop",
  5: "adversarial",
};

/** Categories of the primary figures. */
export const PRIMARY_CATEGORIES = [1, 2, 3, 4] as const;

export interface Query {
  qid: string;
  question: string;
  category: number;
  categoryName: string;
  evidence: string[];
  scorable: boolean;
}

export interface Conversation {
  id: string;
  dir: string;
  queries: Query[];
  /** Dialogue ids listed in turns.jsonl (e.g. "D1:3"). */
  turnIds: string[];
}

function readJsonl(file: string): unknown[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l, i) => {
      try {
        return JSON.parse(l) as unknown;
      } catch (e) {
        throw new Error(`${file}:${i + 1}: ${errorMessage(e)}`, { cause: e });
      }
    });
}

function parseQuery(raw: unknown, where: string): Query {
  const r = raw as Record<string, unknown>;
  if (
    typeof r.qid !== "string" ||
    typeof r.question !== "string" ||
    typeof r.category !== "number" ||
    !Array.isArray(r.evidence)
  ) {
    throw new Error(`${where}: not a query record (qid, question, category, evidence[])`);
  }
  return {
    qid: r.qid,
    question: r.question,
    category: r.category,
    categoryName:
      typeof r.category_name === "string" ? r.category_name : (CATEGORY_NAMES[r.category] ?? `category ${r.category}`),
    evidence: r.evidence.filter((e): e is string => typeof e === "string"),
    scorable: r.scorable === true,
  };
}

/** The conversation folders of the set (those holding queries.jsonl), sorted; optionally only some. */
export function loadConversations(dir: string, only?: readonly string[]): Conversation[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`LoCoMo directory not found: ${dir}`);
  const ids = readdirSync(dir)
    .filter((name) => existsSync(join(dir, name, "queries.jsonl")))
    .sort();
  if (only?.length) {
    const missing = only.filter((c) => !ids.includes(c));
    if (missing.length)
      throw new Error(`conversation(s) not found in ${dir}: ${missing.join(", ")} (have: ${ids.join(", ")})`);
  }
  return ids
    .filter((id) => !only?.length || only.includes(id))
    .map((id) => {
      const cdir = join(dir, id);
      const queries = readJsonl(join(cdir, "queries.jsonl")).map((q, i) =>
        parseQuery(q, `${id}/queries.jsonl:${i + 1}`),
      );
      const turnsFile = join(cdir, "turns.jsonl");
      const turnIds = existsSync(turnsFile)
        ? readJsonl(turnsFile)
            .map((t) => (t as { dia_id?: unknown }).dia_id)
            .filter((d): d is string => typeof d === "string")
        : [];
      return { id, dir: cdir, queries, turnIds };
    });
}

/**
 * Makes `<into>/ws` a workspace root holding a copy of only the variant's subfolder (memory/ or
 * sessions/), so the other one is not indexed. (Copies, not symlinks: the scanner ignores symlinks
 * that lead outside the workspace.) Returns the root.
 */
export function makeWorkspace(conv: Conversation, variant: Variant, into: string): string {
  const src = join(conv.dir, variant);
  if (!existsSync(src)) throw new Error(`${conv.id} has no ${variant}/ folder`);
  const root = join(into, "ws");
  mkdirSync(root, { recursive: true });
  copyTree(src, join(root, variant));
  return root;
}

/** Copies a directory tree with writable modes (the source may be read-only), so it can be removed. */
function copyTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const ent of readdirSync(from, { withFileTypes: true })) {
    const a = join(from, ent.name);
    const b = join(to, ent.name);
    if (ent.isDirectory()) copyTree(a, b);
    else if (ent.isFile()) {
      copyFileSync(a, b);
      chmodSync(b, 0o644);
    }
  }
}
