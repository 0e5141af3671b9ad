import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * The value import cycles among compiled modules: tsc drops type-only imports, so the static
 * `import … from` / `export … from` of a .js file are the imports that run. A cycle among them works
 * only by call-time luck (a value read before its module ran is undefined). `keep(file)` picks the
 * files to consider (e.g. those whose source still exists: dist keeps files of deleted sources).
 * Returns each cycle's files (relative to `root`), sorted.
 */
export function importCycles(root: string, keep: (file: string) => boolean = () => true): string[][] {
  const files = readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".js"))
    .map((f) => join(root, f))
    .filter(keep);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const text = readFileSync(f, "utf8");
    const deps: string[] = [];
    for (const m of text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+"(\.[^"]+)";|^import\s+"(\.[^"]+)";/gms)) {
      const dep = resolve(dirname(f), (m[1] ?? m[2])!);
      if (known.has(dep)) deps.push(dep);
    }
    graph.set(f, deps);
  }
  return stronglyConnected(graph)
    .filter((c) => c.length > 1 || graph.get(c[0]!)!.includes(c[0]!))
    .map((c) => c.map((f) => relative(root, f)).sort())
    .sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** Tarjan's strongly connected components (iterative: no recursion limit on long import chains). */
function stronglyConnected(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { v: string; i: number }[] = [{ v: start, i: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const deps = graph.get(top.v)!;
      if (top.i < deps.length) {
        const w = deps[top.i++]!;
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) low.set(top.v, Math.min(low.get(top.v)!, index.get(w)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.v;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.v)!));
      }
      if (low.get(top.v) === index.get(top.v)) {
        const c: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          c.push(w);
        } while (w !== top.v);
        out.push(c);
      }
    }
  }
  return out;
}

/** A dist file's source exists (dist/src/a/b.js ← src/a/b.ts), given the repository root. */
export function hasSource(repo: string): (file: string) => boolean {
  return (file) => existsSync(join(repo, relative(join(repo, "dist"), file).replace(/\.js$/, ".ts")));
}
