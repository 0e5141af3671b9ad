// @ts-check
/**
 * The cold-start gate (the Cortex plugin's): after FAILURES_TO_TRIP consecutive hard failures to
 * reach cortexd (no socket, connection refused, permission: not timeouts, which a slow but running
 * daemon causes), recall is skipped for COOL_OFF_MS, so a prompt does not pay a connect attempt
 * while the daemon is down. The first call after the cool-off tries again; one success closes it.
 */
import { isUnavailable } from "./client.js";

export const FAILURES_TO_TRIP = 3;
export const COOL_OFF_MS = 30_000;

/** A failure that says the daemon is not there (a timeout says it is slow, not absent). */
export function isHardFailure(/** @type {unknown} */ e) {
  return isUnavailable(e) && /** @type {{ reason?: string }} */ (e).reason !== "timeout";
}

/** @param {{ clock?: () => number, failures?: number, coolOffMs?: number }} [opts] */
export function createGate(opts = {}) {
  const clock = opts.clock ?? Date.now;
  const trip = opts.failures ?? FAILURES_TO_TRIP;
  const coolOff = opts.coolOffMs ?? COOL_OFF_MS;
  let consecutive = 0;
  /** @type {number | null} */
  let openUntil = null;
  let skipped = 0;
  return {
    /** May the caller try cortexd now? (false: skip, the gate is open) */
    allow() {
      if (openUntil !== null && clock() < openUntil) {
        skipped++;
        return false;
      }
      return true;
    },
    success() {
      consecutive = 0;
      openUntil = null;
    },
    /** @param {unknown} e */
    failure(e) {
      if (!isHardFailure(e)) return;
      consecutive++;
      if (consecutive >= trip) openUntil = clock() + coolOff;
    },
    /** For cortex.status: open (recall skipped) or closed, and why. */
    state() {
      const open = openUntil !== null && clock() < openUntil;
      return {
        open,
        consecutiveFailures: consecutive,
        ...(open && openUntil !== null ? { retryInMs: openUntil - clock() } : {}),
        skippedRecalls: skipped,
      };
    },
  };
}
