/** A small argv parser: `--flag value`, `--flag=value`, bare `--flag` (true), positionals. */
export interface Args {
  flags: Record<string, string | boolean>;
  positional: string[];
}

/** Flags that never take a value. */
const BOOLEAN = new Set(["json", "keep", "per-query", "quiet", "help"]);

export function parseArgs(argv: readonly string[]): Args {
  const flags: Record<string, string | boolean> = {};
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const key = eq < 0 ? a.slice(2) : a.slice(2, eq);
      if (eq >= 0) flags[key] = a.slice(eq + 1);
      else if (!BOOLEAN.has(key) && argv[i + 1] !== undefined && !argv[i + 1]!.startsWith("--"))
        flags[key] = argv[++i]!;
      else flags[key] = true;
    } else positional.push(a);
  }
  return { flags, positional };
}

export function stringFlag(args: Args, name: string): string | undefined {
  const v = args.flags[name];
  if (v === undefined) return undefined;
  if (v === true) throw new Error(`--${name} needs a value`);
  return v as string;
}

export function intFlag(args: Args, name: string, def: number, min = 0): number {
  const v = stringFlag(args, name);
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min} (got ${v})`);
  return n;
}
