import { existsSync } from "node:fs";
import { readRegularTextSync } from "../util/regular-file.js";
import { defaultClaudeSettingsPath, isCortexdHook } from "../hooks/install.js";
import { serviceFilePath } from "../service/units.js";

/**
 * Hooks and service files name cortexd by absolute path. When that path is gone (a clone moved or
 * deleted, a package uninstalled), memory silently stops: these checks name what points where and
 * how to fix it. Read only; bounded (two small files).
 */

/** The absolute paths in a shell command line (single quotes as the installers write them; VAR=value prefixes too). */
export function absolutePaths(command: string): string[] {
  const words = command.match(/'(?:[^']|'\\'')*'|\S+/g) ?? [];
  return words
    .map((w) => w.replace(/^[A-Z_][A-Z0-9_]*=/, ""))
    .map((w) => (w.startsWith("'") ? w.slice(1, -1).replace(/'\\''/g, "'") : w))
    .filter((w) => w.startsWith("/") && /(?:\/bin\/cortexd(?:-hook)?|\.js|\/node)$/.test(w));
}

function readText(path: string): string | undefined {
  try {
    return readRegularTextSync(path, { maxBytes: 4 * 1024 * 1024 });
  } catch {
    return undefined;
  }
}

function hookCommands(settings: unknown): string[] {
  const hooks = (settings as { hooks?: unknown } | null)?.hooks;
  if (!hooks || typeof hooks !== "object") return [];
  const out: string[] = [];
  for (const groups of Object.values(hooks as Record<string, unknown>)) {
    if (!Array.isArray(groups)) continue;
    for (const g of groups as { hooks?: unknown }[]) {
      if (!Array.isArray(g?.hooks)) continue;
      for (const h of g.hooks as { command?: unknown }[]) if (isCortexdHook(h?.command)) out.push(h.command as string);
    }
  }
  return out;
}

/** Warnings (empty when all is well) for hooks and the service pointing at paths that are gone. */
export function stalePathWarnings(env: NodeJS.ProcessEnv = process.env): string[] {
  const warnings: string[] = [];
  const settingsPath = defaultClaudeSettingsPath(env);
  const text = readText(settingsPath);
  if (text) {
    let settings: unknown;
    try {
      settings = JSON.parse(text);
    } catch {
      settings = undefined;
    }
    const gone = [...new Set(hookCommands(settings).flatMap(absolutePaths))].filter((p) => !existsSync(p));
    if (gone.length)
      warnings.push(
        `the Claude Code hooks in ${settingsPath} run ${gone.join(", ")}, which is gone: hooks do nothing. Run \`cortexd hook install claude-code\` again with the cortexd you use now`,
      );
  }
  const unitPath = serviceFilePath(process.platform, env);
  const unit = readText(unitPath);
  if (unit) {
    const exec =
      process.platform === "darwin"
        ? [...unit.matchAll(/<string>(\/[^<]*)<\/string>/g)].map((m) => m[1]!).slice(0, 2)
        : absolutePaths(/^ExecStart=(.*)$/m.exec(unit)?.[1] ?? "");
    const gone = exec.filter((p) => !existsSync(p));
    if (gone.length)
      warnings.push(
        `the login service ${unitPath} runs ${gone.join(", ")}, which is gone: it cannot start. Run \`cortexd service install\` again with the cortexd you use now`,
      );
  }
  return warnings;
}
