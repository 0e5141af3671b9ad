import { ErrorCodes } from "./error-codes.js";

/**
 * Every request has a deadline: a handler that has not answered within its method's budget is
 * answered with RequestTimeout (-32008) saying so, and its run slot is freed for the next request;
 * the work itself is told to stop (its AbortSignal) and whatever it still does no longer holds a
 * client or a slot. Budgets are generous: they catch what should never happen (a read that waits
 * forever, a runaway computation), not slow disks.
 */

/** The default budget of a request. */
export const DEFAULT_DEADLINE_MS = 60_000;

/** Methods whose work legitimately takes long (a full index rebuild, consolidation, a git sync over a slow remote). */
const LONG_METHODS: ReadonlySet<string> = new Set(["index.sync", "consolidate.run", "sync.git", "promote.apply"]);
const LONG_DEADLINE_MS = 15 * 60_000;

/** A method's budget in ms, given the server's default (tests lower it). */
export function deadlineFor(method: string, defaultMs = DEFAULT_DEADLINE_MS): number {
  return LONG_METHODS.has(method) ? Math.max(defaultMs, LONG_DEADLINE_MS) : defaultMs;
}

export class DeadlineError extends Error {
  readonly code = ErrorCodes.RequestTimeout;
  constructor(method: string, ms: number) {
    super(
      `${method} did not finish within ${ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`} and was abandoned; ` +
        "the daemon keeps serving: try again, ask for less, or see the daemon's log for what it was waiting on",
    );
    this.name = "DeadlineError";
  }
}

/**
 * Runs `work(signal)` with a deadline: resolves or rejects as it does, or rejects with DeadlineError
 * after `ms` (and aborts `signal`). `parent` aborting (the client left) aborts the work as well.
 */
export async function withDeadline<T>(
  method: string,
  ms: number,
  parent: AbortSignal,
  work: (signal: AbortSignal) => Promise<T> | T,
): Promise<T> {
  const ctl = new AbortController();
  const onParent = () => ctl.abort(parent.reason);
  parent.addEventListener("abort", onParent, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new DeadlineError(method, ms);
      ctl.abort(err);
      reject(err);
    }, ms);
  });
  try {
    return await Promise.race([Promise.resolve().then(() => work(ctl.signal)), expired]);
  } finally {
    clearTimeout(timer);
    parent.removeEventListener("abort", onParent);
  }
}
