import { copyFileSync, existsSync, mkdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { readRegularTextSync } from "../util/regular-file.js";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseJsonc } from "../config/jsonc.js";
import { errorMessage } from "../util/error-message.js";

/**
 * `cortexd hook install claude-code`: merges cortexd's hooks into Claude Code's settings.json.
 * Idempotent (our entries are recognised and replaced, never duplicated), keeps every other
 * setting and hook, and backs the file up (settings.json.bak-<timestamp>) before changing it.
 */

export const CLAUDE_EVENTS = ["SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd"] as const;
export type ClaudeEvent = (typeof CLAUDE_EVENTS)[number];

interface HookCommand {
  type: "command";
  command: string;
  timeout?: number;
  async?: boolean;
}

interface MatcherGroup {
  matcher?: string;
  hooks: HookCommand[];
}

/**
 * Claude Code's timeout (seconds) is only a backstop: the hook leaves after its own budget
 * (src/hooks/events.ts hookBudgetMs). It leaves room for Node's start on a loaded machine, which can
 * take seconds; a hook Claude Code kills cannot record its failure.
 */
const SPEC: Record<ClaudeEvent, Omit<HookCommand, "type" | "command">> = {
  SessionStart: { timeout: 10 },
  UserPromptSubmit: { timeout: 10 },
  Stop: { timeout: 30, async: true },
  PreCompact: { timeout: 30 },
  SessionEnd: { timeout: 10 },
};

export function defaultClaudeSettingsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.HOME || homedir(), ".claude", "settings.json");
}

/**
 * The hook command prefix, with absolute paths: the package's launcher (bin/cortexd, which answers
 * a hook itself when the daemon is down) told to use this installation's node; without the
 * launcher (dist/ copied on its own), this node and the lean hook entry.
 */
export function defaultHookCommand(): string {
  const launcher = fileURLToPath(new URL("../../../bin/cortexd", import.meta.url));
  if (existsSync(launcher)) return `CORTEXD_NODE=${shellQuote(process.execPath)} ${shellQuote(launcher)} hook`;
  const main = fileURLToPath(new URL("./main.js", import.meta.url));
  return `${shellQuote(process.execPath)} ${shellQuote(main)}`;
}

export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_\-./:=@%+,]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A command cortexd installed (any version, any path). */
export function isCortexdHook(command: unknown): boolean {
  if (typeof command !== "string") return false;
  return (
    /cortexd-hook\b/.test(command) ||
    /\/dist\/src\/hooks\/main\.js\b/.test(command) ||
    /\bcortexd\b['"]?\s+hook\s/.test(command)
  );
}

export interface InstallResult {
  settingsPath: string;
  changed: boolean;
  backupPath?: string;
  events: string[];
  /** The settings as written (or as they would be, with dryRun). */
  settings: Record<string, unknown>;
}

/** Adds (install) or removes (uninstall) cortexd's hooks; returns the new settings object. */
export function mergeClaudeHooks(
  settings: Record<string, unknown>,
  command: string | null,
  extraArgs = "",
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...settings };
  const hooks: Record<string, unknown> = {
    ...((isObject(settings.hooks) ? settings.hooks : {}) as Record<string, unknown>),
  };
  const events = new Set<string>([...Object.keys(hooks), ...CLAUDE_EVENTS]);
  for (const event of events) {
    const groups = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [];
    // Drop our old entries (and groups that only held ours); keep everything else as it was.
    const kept: unknown[] = [];
    for (const g of groups) {
      if (!isObject(g) || !Array.isArray(g.hooks)) {
        kept.push(g);
        continue;
      }
      const others = (g.hooks as unknown[]).filter((h) => !(isObject(h) && isCortexdHook(h.command)));
      if (others.length === g.hooks.length) kept.push(g);
      else if (others.length > 0) kept.push({ ...g, hooks: others });
    }
    if (command && (CLAUDE_EVENTS as readonly string[]).includes(event)) {
      const e = event as ClaudeEvent;
      const group: MatcherGroup = {
        hooks: [{ type: "command", command: `${command} ${e}${extraArgs ? ` ${extraArgs}` : ""}`, ...SPEC[e] }],
      };
      kept.push(group);
    }
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
  }
  if (Object.keys(hooks).length > 0) out.hooks = hooks;
  else delete out.hooks;
  return out;
}

export function installClaudeHooks(opts: {
  settingsPath?: string;
  command?: string;
  extraArgs?: string;
  dryRun?: boolean;
  uninstall?: boolean;
  now?: Date;
}): InstallResult {
  const settingsPath = opts.settingsPath ?? defaultClaudeSettingsPath();
  const exists = existsSync(settingsPath);
  const before = exists ? readRegularTextSync(settingsPath, { maxBytes: 4 * 1024 * 1024 }) : "";
  let current: Record<string, unknown> = {};
  if (before.trim()) {
    let parsed: unknown;
    try {
      parsed = parseJsonc(before);
    } catch (e) {
      throw new Error(`${settingsPath} is not valid JSON (${errorMessage(e)}); fix it first, nothing was changed`, {
        cause: e,
      });
    }
    if (!isObject(parsed)) throw new Error(`${settingsPath}: the top level must be an object; nothing was changed`);
    current = parsed;
  }
  const next = mergeClaudeHooks(
    current,
    opts.uninstall ? null : (opts.command ?? defaultHookCommand()),
    opts.extraArgs ?? "",
  );
  const text = JSON.stringify(next, null, 2) + "\n";
  const changed = text !== before && JSON.stringify(next) !== JSON.stringify(current);
  const result: InstallResult = {
    settingsPath,
    changed,
    events: opts.uninstall ? [] : [...CLAUDE_EVENTS],
    settings: next,
  };
  if (!changed || opts.dryRun) return result;
  mkdirSync(dirname(settingsPath), { recursive: true });
  if (exists) {
    const backupPath = `${settingsPath}.bak-${timestamp(opts.now ?? new Date())}`;
    copyFileSync(settingsPath, backupPath);
    result.backupPath = backupPath;
  }
  const tmp = `${settingsPath}.cortexd-${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: exists ? statSync(settingsPath).mode & 0o777 : 0o600 });
  renameSync(tmp, settingsPath);
  return result;
}

function timestamp(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}-${p(d.getMilliseconds(), 3)}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
