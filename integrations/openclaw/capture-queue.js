// @ts-check
/**
 * Capture that is never lost and never blocks a turn: agent_end hands its capture here and returns.
 * The queue is persisted (JSON, mode 0600, written atomically) under the plugin's state dir, so
 * captures wait out a stopped daemon and a gateway restart; it is delivered in order, one at a time,
 * with exponential backoff (BASE_DELAY_MS × 2ⁿ up to MAX_DELAY_MS) while cortexd is unreachable.
 * cortexd's per-session watermark makes a delivery that is repeated (a crash between the daemon's
 * write and the queue's) land once. Bounded: at most MAX_ITEMS captures (the oldest dropped, and
 * said so); a capture the daemon refuses (bad params) is dropped after MAX_REFUSALS tries.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { chmod, mkdir, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { isUnavailable } from "./client.js";

export const MAX_ITEMS = 100;
export const BASE_DELAY_MS = 1000;
export const MAX_DELAY_MS = 60_000;
export const MAX_REFUSALS = 5;

/**
 * @typedef {{ id: number, method: string, params: Record<string, unknown>, attempts: number, at: number }} QueueItem
 * @typedef {{ debug?: (m: string) => void, info?: (m: string) => void, warn?: (m: string) => void }} Log
 */

/**
 * @param {{
 *   file: string | null,
 *   send: (method: string, params: Record<string, unknown>) => Promise<unknown>,
 *   log?: Log,
 *   clock?: () => number,
 *   maxItems?: number,
 *   baseDelayMs?: number,
 *   maxDelayMs?: number,
 * }} opts
 */
export function createCaptureQueue(opts) {
  const log = opts.log ?? {};
  const clock = opts.clock ?? Date.now;
  const maxItems = opts.maxItems ?? MAX_ITEMS;
  const base = opts.baseDelayMs ?? BASE_DELAY_MS;
  const maxDelay = opts.maxDelayMs ?? MAX_DELAY_MS;
  /** @type {QueueItem[]} */
  let items = load(opts.file, log);
  let nextId = items.reduce((m, i) => Math.max(m, i.id), 0) + 1;
  let failures = 0;
  let dropped = 0;
  let delivered = 0;
  let draining = false;
  let closed = false;
  /** @type {NodeJS.Timeout | null} */
  let timer = null;
  /** @type {Promise<void>} */
  let writing = Promise.resolve();
  /** @type {string | null} */
  let lastError = null;

  function persist() {
    const file = opts.file;
    if (!file) return writing;
    const snapshot = JSON.stringify({ version: 1, items });
    writing = writing.then(async () => {
      const tmp = `${file}.${process.pid}.tmp`;
      try {
        await mkdir(dirname(file), { recursive: true, mode: 0o700 });
        await writeFile(tmp, snapshot, { mode: 0o600 });
        await chmod(tmp, 0o600);
        await rename(tmp, file);
      } catch (e) {
        log.warn?.(`cortexd: cannot persist the capture queue at ${file}: ${e instanceof Error ? e.message : e}`);
      }
    });
    return writing;
  }

  function schedule() {
    if (closed || timer || items.length === 0) return;
    const delay = Math.min(maxDelay, base * 2 ** Math.max(0, failures - 1));
    timer = setTimeout(() => {
      timer = null;
      void drain();
    }, delay);
    timer.unref?.();
  }

  async function drain() {
    if (draining || closed) return;
    draining = true;
    try {
      while (items.length > 0 && !closed) {
        const item = /** @type {QueueItem} */ (items[0]);
        try {
          await opts.send(item.method, item.params);
          items.shift();
          failures = 0;
          delivered++;
          lastError = null;
          await persist();
        } catch (e) {
          lastError = e instanceof Error ? e.message : String(e);
          if (isUnavailable(e)) {
            failures++;
            log.debug?.(`cortexd capture queued (${items.length} pending): ${lastError}`);
            schedule();
            return;
          }
          // The daemon answered with an error: retry a few times, then give up on this one.
          item.attempts++;
          if (item.attempts >= MAX_REFUSALS) {
            items.shift();
            dropped++;
            log.warn?.(`cortexd refused a capture ${item.attempts} times, dropped: ${lastError}`);
            await persist();
            continue;
          }
          failures++;
          await persist();
          schedule();
          return;
        }
      }
    } finally {
      draining = false;
    }
  }

  if (items.length > 0) queueMicrotask(() => void drain());

  return {
    /** Queues a call and returns at once; delivery happens in the background. */
    enqueue(/** @type {string} */ method, /** @type {Record<string, unknown>} */ params) {
      items.push({ id: nextId++, method, params, attempts: 0, at: clock() });
      while (items.length > maxItems) {
        items.shift();
        dropped++;
        log.warn?.(`cortexd capture queue full (${maxItems}): the oldest capture was dropped`);
      }
      void persist();
      if (!timer) void drain();
    },
    /** cortexd answered something else: try the queue now rather than at the end of the backoff. */
    nudge() {
      if (items.length === 0 || draining) return;
      if (timer) {
        clearTimeout(timer);
        timer = null;
      }
      void drain();
    },
    pending: () => items.length,
    stats: () => ({ pending: items.length, delivered, dropped, failures, lastError }),
    /** Resolves once every queued capture is delivered or the time is up (true: empty). */
    async flush(/** @type {number} */ timeoutMs) {
      const end = clock() + timeoutMs;
      while (items.length > 0 && clock() < end) {
        this.nudge();
        await new Promise((r) => setTimeout(r, 50));
      }
      return items.length === 0;
    },
    /** Stops delivering (the queue stays on disk for the next start). */
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await writing;
    },
  };
}

/** @param {string | null} file @param {Log} log @returns {QueueItem[]} */
function load(file, log) {
  if (!file) return [];
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const raw = JSON.parse(readFileSync(file, "utf8"));
    const list = Array.isArray(raw?.items) ? raw.items : [];
    return list.filter(
      (/** @type {any} */ i) =>
        i && typeof i === "object" && i.method === "memory.capture" && i.params && typeof i.params === "object",
    );
  } catch (e) {
    const code = /** @type {NodeJS.ErrnoException} */ (e).code;
    if (code !== "ENOENT") log.warn?.(`cortexd: capture queue at ${file} unreadable, starting empty: ${e}`);
    return [];
  }
}
