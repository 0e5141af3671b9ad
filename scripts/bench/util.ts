import { existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

export const BENCH_DIR = resolve(process.env.CORTEXD_BENCH_DIR ?? ".bench");

export function benchPath(...parts: string[]): string {
  mkdirSync(BENCH_DIR, { recursive: true });
  return join(BENCH_DIR, ...parts);
}

export function freshDir(p: string): string {
  rmSync(p, { recursive: true, force: true });
  mkdirSync(p, { recursive: true });
  return p;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Nearest-rank percentile. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
}

export function fileSize(p: string): number {
  return existsSync(p) ? statSync(p).size : 0;
}

export function maxRssMb(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

export function fmtMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`;
}

export interface Args {
  flags: Record<string, string | boolean>;
  positional: string[];
}

/**
 * `--flag value`, `--flag=value` and bare `--flag` (true). The value of a `…node-args` flag is Node's
 * own flags (`--a-node-args "--cpu-prof --cpu-prof-dir=DIR"`): taken whatever it starts with.
 */
export function parseArgs(argv: string[]): Args {
  const flags: Record<string, string | boolean> = {};
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const [k, v] = eq < 0 ? [a.slice(2), undefined] : [a.slice(2, eq), a.slice(eq + 1)];
      const next = argv[i + 1];
      if (v !== undefined) flags[k!] = v;
      else if (next && (!next.startsWith("--") || k!.endsWith("node-args"))) flags[k!] = argv[++i]!;
      else flags[k!] = true;
    } else positional.push(a);
  }
  return { flags, positional };
}

/** `--node-args "…"` (or the flag named): Node/V8 flags for a bench's daemon, after its own. */
export function nodeArgsFlag(args: Args, flag = "node-args"): string[] {
  const v = args.flags[flag];
  return typeof v === "string" ? v.split(/\s+/).filter(Boolean) : [];
}
