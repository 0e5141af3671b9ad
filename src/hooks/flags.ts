/** The hook's flags (and their CORTEXD_HOOK_* environment forms). bin/cortexd knows which move the socket. */

export interface HookFlags {
  /** An explicit budget for every event (else hookBudgetMs). */
  timeoutMs?: number;
  workspace?: string;
  socket?: string;
  config?: string;
  dataDir?: string;
  budget?: number;
  scope?: "private" | "group";
  debug: boolean;
}

export function parseFlags(args: string[], env: NodeJS.ProcessEnv): { positional: string[]; flags: HookFlags } {
  const positional: string[] = [];
  const flags: HookFlags = { debug: !!env.CORTEXD_HOOK_DEBUG };
  const envTimeout = numberOr(env.CORTEXD_HOOK_TIMEOUT_MS, -1);
  if (envTimeout >= 0) flags.timeoutMs = envTimeout;
  if (env.CORTEXD_HOOK_WORKSPACE) flags.workspace = env.CORTEXD_HOOK_WORKSPACE;
  if (env.CORTEXD_HOOK_BUDGET) flags.budget = numberOr(env.CORTEXD_HOOK_BUDGET, 2000);
  if (env.CORTEXD_HOOK_SCOPE === "group" || env.CORTEXD_HOOK_SCOPE === "private") flags.scope = env.CORTEXD_HOOK_SCOPE;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = a.indexOf("=");
    const name = a.startsWith("--") && eq > 0 ? a.slice(0, eq) : a;
    const value = () => (a.startsWith("--") && eq > 0 ? a.slice(eq + 1) : args[++i]);
    switch (name) {
      case "--timeout-ms":
        flags.timeoutMs = numberOr(value(), flags.timeoutMs ?? -1);
        if (flags.timeoutMs < 0) delete flags.timeoutMs;
        break;
      case "-w":
      case "--workspace":
        flags.workspace = value();
        break;
      case "--socket":
        flags.socket = value();
        break;
      case "-c":
      case "--config":
        flags.config = value();
        break;
      case "--data-dir":
        flags.dataDir = value();
        break;
      case "--budget":
        flags.budget = numberOr(value(), 2000);
        break;
      case "--scope": {
        const s = value();
        if (s === "group" || s === "private") flags.scope = s;
        break;
      }
      case "--debug":
        flags.debug = true;
        break;
      default:
        if (!a.startsWith("-")) positional.push(a);
    }
  }
  return { positional, flags };
}

function numberOr(v: string | undefined, dflt: number): number {
  const n = Number(v);
  return v !== undefined && v !== "" && Number.isFinite(n) && n >= 0 ? n : dflt;
}
