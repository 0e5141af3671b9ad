import { Cron } from "croner";
import type { Logger } from "pino";
import { errorMessage } from "../util/error-message.js";

export interface JobStatus {
  name: string;
  cron: string;
  lastRun: string | null;
  nextRun: string | null;
  lastResult: string | null;
  lastDurationMs: number | null;
  running: boolean;
}

export interface JobSpec {
  name: string;
  cron: string;
  /** Returns a one-line summary of what the run did. */
  run: () => Promise<string>;
}

interface JobState {
  spec: JobSpec;
  cron: Cron;
  lastRun: number | null;
  lastResult: string | null;
  lastDurationMs: number | null;
  running: boolean;
}

/** Runs named jobs on cron schedules (croner); overlapping runs are skipped; status reports last/next run. */
export class Scheduler {
  private readonly jobs = new Map<string, JobState>();

  constructor(
    private readonly logger: Logger,
    private readonly timezone?: string,
  ) {}

  add(spec: JobSpec): void {
    this.remove(spec.name);
    const state: JobState = { spec, lastRun: null, lastResult: null, lastDurationMs: null, running: false } as JobState;
    state.cron = new Cron(
      spec.cron,
      { name: `cortexd-${spec.name}`, protect: true, ...(this.timezone ? { timezone: this.timezone } : {}) },
      async () => {
        await this.runJob(state);
      },
    );
    this.jobs.set(spec.name, state);
  }

  /** Runs a job now (outside its schedule); resolves with its summary. */
  async runNow(name: string): Promise<string> {
    const state = this.jobs.get(name);
    if (!state) throw new Error(`no job "${name}"`);
    return this.runJob(state);
  }

  private async runJob(state: JobState): Promise<string> {
    if (state.running) return "skipped: previous run still going";
    state.running = true;
    const t0 = Date.now();
    try {
      const result = await state.spec.run();
      state.lastResult = result;
      return result;
    } catch (e) {
      state.lastResult = `error: ${errorMessage(e)}`;
      this.logger.error({ job: state.spec.name, err: errorMessage(e) }, "scheduled job failed");
      return state.lastResult;
    } finally {
      state.lastRun = t0;
      state.lastDurationMs = Date.now() - t0;
      state.running = false;
    }
  }

  remove(name: string): void {
    this.jobs.get(name)?.cron.stop();
    this.jobs.delete(name);
  }

  status(): JobStatus[] {
    return [...this.jobs.values()].map((s) => ({
      name: s.spec.name,
      cron: s.spec.cron,
      lastRun: s.lastRun ? new Date(s.lastRun).toISOString() : null,
      nextRun: s.cron.nextRun()?.toISOString() ?? null,
      lastResult: s.lastResult,
      lastDurationMs: s.lastDurationMs,
      running: s.running,
    }));
  }

  stop(): void {
    for (const s of this.jobs.values()) s.cron.stop();
    this.jobs.clear();
  }
}
