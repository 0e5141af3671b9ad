import type { Logger } from "pino";
import { countTokens } from "../../ingest/tokens.js";
import { errorMessage } from "../../util/error-message.js";

/**
 * Resilience shared by the remote embedding providers: a per-request timeout, retries with
 * exponential backoff and jitter on 429 / 5xx / network errors (honouring Retry-After, within a
 * total time budget), and a cold-start gate: after `gateFailures` consecutive hard failures no
 * call is made for `gateMs`, so a provider that is down costs nothing while indexing continues
 * keyword-only.
 */

export interface ResilienceOptions {
  /** Per-request timeout (ms). */
  timeoutMs: number;
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff (ms); doubled per retry, with jitter. */
  baseDelayMs?: number;
  /** Largest single backoff (ms), Retry-After included. */
  maxDelayMs?: number;
  /** Total time one call may take, retries included (ms). */
  maxTotalMs?: number;
  /** Consecutive hard failures that close the gate. */
  gateFailures?: number;
  /** How long the gate stays closed (ms). */
  gateMs?: number;
  logger?: Logger;
  /** Provider name for logs and errors (never a secret). */
  name: string;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** An HTTP response that was not 2xx. */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "HttpStatusError";
  }
}

/** The cold-start gate is closed: no call was made. */
export class GateClosedError extends Error {
  constructor(
    message: string,
    readonly retryAtMs: number,
  ) {
    super(message);
    this.name = "GateClosedError";
  }
}

/** A response that is well-formed HTTP but unusable (bad JSON, wrong count, wrong dimension). Not retried. */
export class BadResponseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BadResponseError";
  }
}

export interface RemoteHealth {
  state: "ok" | "degraded" | "gated";
  consecutiveFailures: number;
  /** When a call last succeeded (epoch ms). */
  lastSuccessAt?: number;
  lastError?: string;
  /** When a call last failed for good, retries spent (epoch ms). */
  lastErrorAt?: number;
  /** While gated: when calls resume (epoch ms). */
  gatedUntil?: number;
  calls: number;
  retries: number;
}

/** Parses Retry-After: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  const secs = Number(value);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

function isRetryable(e: unknown): boolean {
  if (e instanceof HttpStatusError) return e.status === 429 || e.status === 408 || e.status >= 500;
  if (e instanceof BadResponseError || e instanceof GateClosedError) return false;
  return true; // network error, timeout, reset
}

/** Failures that say nothing about the server's health (a bad input) do not count towards the gate. */
function countsTowardsGate(e: unknown): boolean {
  if (e instanceof HttpStatusError) return !(e.status === 400 || e.status === 413 || e.status === 422);
  return !(e instanceof BadResponseError);
}

export class ResilientCaller {
  private readonly o: Required<Omit<ResilienceOptions, "logger">> & { logger?: Logger };
  private failures = 0;
  private gatedUntil = 0;
  private lastError: string | undefined;
  private lastErrorAt = 0;
  private lastSuccessAt = 0;
  private calls = 0;
  private retries = 0;

  constructor(opts: ResilienceOptions) {
    this.o = {
      baseDelayMs: 250,
      maxDelayMs: 10_000,
      maxTotalMs: Math.max(30_000, opts.timeoutMs * 2),
      gateFailures: 3,
      gateMs: 30_000,
      now: Date.now,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      random: Math.random,
      ...opts,
    };
  }

  health(): RemoteHealth {
    const now = this.o.now();
    const gated = this.gatedUntil > now;
    return {
      state: gated ? "gated" : this.failures > 0 ? "degraded" : "ok",
      consecutiveFailures: this.failures,
      ...(this.lastSuccessAt ? { lastSuccessAt: this.lastSuccessAt } : {}),
      ...(this.lastError ? { lastError: this.lastError, lastErrorAt: this.lastErrorAt } : {}),
      ...(gated ? { gatedUntil: this.gatedUntil } : {}),
      calls: this.calls,
      retries: this.retries,
    };
  }

  /** Runs `fn` with a timeout per attempt, retrying transient failures; throws the last error. */
  async call<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const { o } = this;
    const start = o.now();
    if (this.gatedUntil > start) {
      throw new GateClosedError(
        `${o.name} unavailable: ${this.failures} consecutive failures, not calling again for ${Math.ceil((this.gatedUntil - start) / 1000)} s (last error: ${this.lastError ?? "?"})`,
        this.gatedUntil,
      );
    }
    this.calls++;
    for (let attempt = 0; ; attempt++) {
      try {
        const out = await this.attempt(fn);
        this.failures = 0;
        this.gatedUntil = 0;
        this.lastSuccessAt = o.now();
        return out;
      } catch (e) {
        const msg = errorMessage(e);
        const elapsed = o.now() - start;
        let delay = Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** attempt) * (0.5 + 0.5 * o.random());
        const retryAfter = e instanceof HttpStatusError ? e.retryAfterMs : undefined;
        if (retryAfter !== undefined) delay = Math.max(delay, retryAfter);
        const canRetry =
          isRetryable(e) && attempt < o.maxRetries && delay <= o.maxDelayMs && elapsed + delay <= o.maxTotalMs;
        if (canRetry) {
          this.retries++;
          o.logger?.debug(
            { provider: o.name, attempt: attempt + 1, delayMs: Math.round(delay), err: msg },
            "embedding request failed; retrying",
          );
          await o.sleep(delay);
          continue;
        }
        this.lastError = msg;
        this.lastErrorAt = o.now();
        if (countsTowardsGate(e)) {
          this.failures++;
          if (this.failures >= o.gateFailures) {
            this.gatedUntil = o.now() + o.gateMs;
            o.logger?.warn(
              { provider: o.name, failures: this.failures, pauseMs: o.gateMs, err: msg },
              "embedding provider keeps failing; pausing calls (keyword-only meanwhile)",
            );
          }
        }
        throw e;
      }
    }
  }

  private async attempt<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const ac = new AbortController();
    const timer = setTimeout(
      () => ac.abort(new Error(`${this.o.name}: request timed out after ${this.o.timeoutMs} ms`)),
      this.o.timeoutMs,
    );
    try {
      return await fn(ac.signal);
    } catch (e) {
      if (ac.signal.aborted) throw ac.signal.reason as Error;
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * Splits texts into batches of at most `maxCount` texts and about `maxTokens` estimated tokens
 * (a text larger than `maxTokens` goes alone). Returns index ranges [start, end), in order.
 * A text never has more estimated tokens than UTF-16 units, so texts are only counted when the
 * batch's length could exceed `maxTokens` (short texts and large budgets cost no counting).
 */
export function planBatches(texts: readonly string[], maxCount: number, maxTokens: number): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  let tokens = 0; // estimated tokens of texts[start, counted)
  let counted = 0;
  let bound = 0; // total length of texts[counted, i): an upper bound of their tokens
  for (let i = 0; i < texts.length; i++) {
    if (i > start && i - start >= maxCount) {
      out.push([start, i]);
      start = counted = i;
      tokens = bound = 0;
    }
    const len = texts[i]!.length;
    if (tokens + bound + len <= maxTokens) {
      bound += len;
      continue;
    }
    for (; counted < i; counted++) tokens += countTokens(texts[counted]!);
    bound = 0;
    const t = countTokens(texts[i]!);
    if (i > start && tokens + t > maxTokens) {
      out.push([start, i]);
      start = i;
      tokens = 0;
    }
    tokens += t;
    counted = i + 1;
  }
  if (start < texts.length) out.push([start, texts.length]);
  return out;
}
