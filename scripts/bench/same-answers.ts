import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { randomQueries } from "./corpus-queries.js";
import { spawnDaemon, stopDaemon, waitIndexed, type RunningDaemon } from "./daemon-proc.js";
import { generateNotesWorkspace } from "./generate-notes.js";
import { benchPath, type Args } from "./util.js";

const require = createRequire(import.meta.url);

/**
 * Whether two builds answer alike: the same requests to a daemon of each (`--a-root DIR`, `--b-root
 * DIR`, checkouts with their own dist/) on the notes corpus, answers compared byte for byte — random
 * corpus queries, prompts naming the index's entities, both again with explain, some in group scope,
 * and searches (half with explain; their times left out) — then the audit lines (their time left out).
 * Differing answers are written to `--out DIR` (default a temp dir). A check for changes meant to
 * leave every output as it was (speed-ups): `npm run bench -- same-answers --a-root /work/main --b-root .`.
 */
export async function sameAnswers(args: Args): Promise<void> {
  const files = Number(args.flags.files ?? 3600);
  const root = benchPath(`probe-notes-${files}`);
  generateNotesWorkspace(root, files);
  const out = String(args.flags.out ?? mkdtempSync(join(tmpdir(), "cortexd-same-")));
  const homes: string[] = [];
  const start = async (name: "a" | "b"): Promise<RunningDaemon> => {
    const dir = args.flags[`${name}-root`];
    const home = mkdtempSync(join(tmpdir(), `cortexd-same-${name}-`));
    homes.push(home);
    const d = await spawnDaemon({
      home,
      root,
      provider: "auto",
      stderr: "ignore",
      ...(typeof dir === "string" ? { packageRoot: resolve(dir) } : {}),
    });
    await waitIndexed(d, "auto");
    return d;
  };
  const a = await start("a");
  const b = await start("b");
  try {
    const random = [...randomQueries(root, 250, 1301), ...randomQueries(root, 150, 77)];
    const named = entityPrompts(a.dataDir, 300);
    const recalls: Record<string, unknown>[] = [
      ...random.map((query) => ({ query })),
      ...named.map((query) => ({ query })),
      ...random.slice(0, 100).map((query) => ({ query, explain: true })),
      ...named.slice(0, 150).map((query) => ({ query, explain: true })),
      ...random.slice(100, 160).map((query) => ({ query, scope: "group", group: "team" })),
    ];
    const searches = random.slice(0, 100).map((query, i) => ({ query, ...(i % 2 ? { explain: true } : {}) }));
    let differ = 0;
    let memories = 0;
    const compare = async (method: "memory.recall" | "memory.search", p: Record<string, unknown>) => {
      const ask = (d: RunningDaemon) =>
        d.client.call(method, p as never).then(
          (r) => {
            const { tookMs: _t, timings: _s, ...rest } = r as unknown as Record<string, unknown>;
            return method === "memory.search" ? rest : r;
          },
          (e: unknown) => ({ error: String(e) }),
        );
      const [ra, rb] = await Promise.all([ask(a), ask(b)]);
      memories += ((ra as { memories?: unknown[] }).memories ?? []).length;
      if (JSON.stringify(ra) === JSON.stringify(rb)) return;
      differ++;
      if (differ <= 5) writeFileSync(join(out, `diff-${differ}.json`), JSON.stringify({ method, p, ra, rb }, null, 1));
    };
    for (const p of recalls) await compare("memory.recall", p);
    for (const p of searches) await compare("memory.search", p);
    const n = recalls.length + searches.length;
    console.log(`${n} requests (${recalls.length} recalls, ${memories} memories), ${differ} answers differ`);
  } finally {
    await stopDaemon(a);
    await stopDaemon(b);
  }
  // Stopped daemons have written every audit line.
  const audit = (d: RunningDaemon) =>
    readFileSync(join(d.dataDir, "audit", "audit.jsonl"), "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => {
        const { at: _at, ...rest } = JSON.parse(l) as Record<string, unknown>;
        return JSON.stringify(rest);
      });
  const [la, lb] = [audit(a), audit(b)];
  const lines = Math.max(la.length, lb.length);
  const differ = Array.from({ length: lines }, (_, i) => la[i] !== lb[i]).filter(Boolean).length;
  console.log(`audit lines ${la.length} / ${lb.length}, ${differ} differ; differing answers (if any) in ${out}`);
  for (const h of homes) rmSync(h, { recursive: true, force: true });
}

/** Prompts naming the index's entities (more often the frequent ones), in a few question forms. */
function entityPrompts(dataDir: string, n: number): string[] {
  const dir = join(dataDir, "indexes");
  const file = readdirSync(dir).find((f) => f.endsWith(".sqlite"));
  if (!file) throw new Error(`no index in ${dir}`);
  const Database = require("better-sqlite3") as typeof import("better-sqlite3");
  const db = new Database(join(dir, file), { readonly: true });
  const names = (
    db.prepare("SELECT name, count(*) AS n FROM chunk_entities GROUP BY entity ORDER BY n DESC").all() as {
      name: string;
    }[]
  ).map((r) => r.name);
  db.close();
  let s = 99;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = () => names[Math.floor(rnd() * rnd() * names.length)]!;
  const forms = [
    (x: string) => `What happened with ${x}?`,
    (x: string) => `Who is ${x}?`,
    (x: string, y: string) => `${x} and ${y}: what changed last week?`,
    (x: string) => `Tell me about ${x}`,
    (x: string, y: string) => `Did ${x} mention ${y} yesterday?`,
    (x: string) => `${x} status as of 2026-11-20`,
  ];
  return Array.from({ length: n }, (_, i) => forms[i % forms.length]!(pick(), pick()));
}
