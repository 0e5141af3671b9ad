import { postTurnOutput, preTurnOutput } from "./format.js";

/** The hook events cortexd answers, their time budgets, and what each prints when there is nothing to say. */

/**
 * Budgets (connect + call, from the hook's own start): a context hook delays the user's prompt, so
 * it gets little more than a loaded machine needs (see docs/integrations.md for the measurements);
 * capture-type hooks run in the background (Stop is async) or at a pause (PreCompact, SessionEnd),
 * so they wait for the daemon's answer, indexing included.
 */
export const CONTEXT_HOOK_BUDGET_MS = 1500;
export const CAPTURE_HOOK_BUDGET_MS = 8000;

export function hookBudgetMs(event: string | undefined): number {
  return event === "UserPromptSubmit" || event === "SessionStart" || event === "pre-turn"
    ? CONTEXT_HOOK_BUDGET_MS
    : CAPTURE_HOOK_BUDGET_MS;
}

export type Event =
  | "UserPromptSubmit"
  | "SessionStart"
  | "Stop"
  | "SubagentStop"
  | "PreCompact"
  | "SessionEnd"
  | "pre-turn"
  | "post-turn"
  | "checkpoint"
  | "sleep"
  | "auto";

const EVENTS: Record<string, Event> = {
  userpromptsubmit: "UserPromptSubmit",
  sessionstart: "SessionStart",
  stop: "Stop",
  subagentstop: "SubagentStop",
  precompact: "PreCompact",
  sessionend: "SessionEnd",
  preturn: "pre-turn",
  postturn: "post-turn",
  checkpoint: "checkpoint",
  sleep: "sleep",
  auto: "auto",
  claudecode: "auto",
};

export function parseEvent(name: string | undefined): Event | undefined {
  const key = name?.toLowerCase().replace(/[-_\s]/g, "");
  return key && Object.hasOwn(EVENTS, key) ? EVENTS[key] : undefined;
}

/** What each event prints when there is nothing to say (or the daemon is unavailable). */
export function emptyOutput(event: Event | undefined): string {
  if (event === "pre-turn") return preTurnOutput();
  if (event === "post-turn" || event === "checkpoint") return postTurnOutput(false);
  if (event === "sleep") return JSON.stringify({ ok: false });
  return "";
}
