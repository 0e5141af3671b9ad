/**
 * Fair scheduling of request work across connections (start-time fair queuing): at most
 * `maxRunning` tasks run at once; the next slot goes to the lane (connection) that has received the
 * least service (ms of handler time), so a connection with thousands of queued requests gets its
 * share and no more, and a newcomer's request runs next. A lane that joins starts at the current
 * virtual time (it cannot bank credit by idling). Light tasks (constant cost: ping, shutdown) skip
 * the queue; so does a task submitted while nothing runs or waits (it starts at once).
 */

export interface Task {
  run(): Promise<void>;
  /** Called instead of run() when the task is dropped before it started (its connection closed). */
  drop(): void;
}

export class Lane {
  readonly queue: Task[] = [];
  running = 0;
  /** Service received, in the queue's virtual time (ms). */
  vtime = 0;
  /** While set (e.g. the client is not reading its responses), no new task of this lane starts. */
  held = false;
  closed = false;
}

export class FairQueue {
  private readonly lanes = new Set<Lane>();
  private running = 0;
  private vnow = 0;
  private tickScheduled = false;

  constructor(
    private readonly maxRunning: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  lane(): Lane {
    const l = new Lane();
    this.lanes.add(l);
    return l;
  }

  submit(lane: Lane, task: Task, light = false): void {
    if (lane.closed) return task.drop();
    if (light) {
      void this.start(lane, task, false);
      return;
    }
    if (lane.queue.length === 0 && lane.running === 0) lane.vtime = Math.max(lane.vtime, this.vnow);
    // Nothing running and nothing waiting anywhere: no one to be fair to, start now (without the
    // turn of the event loop; the next task of this turn still waits for one).
    if (this.running === 0 && !this.tickScheduled && !lane.held && this.idle()) {
      this.vnow = Math.max(this.vnow, lane.vtime);
      void this.start(lane, task, true);
      return;
    }
    lane.queue.push(task);
    this.pump();
  }

  /** No lane has a task waiting. */
  private idle(): boolean {
    for (const l of this.lanes) if (l.queue.length > 0) return false;
    return true;
  }

  /** Drops the lane's tasks that have not started; running ones finish (their owner aborts them). */
  close(lane: Lane): void {
    lane.closed = true;
    this.lanes.delete(lane);
    for (const t of lane.queue.splice(0)) t.drop();
  }

  /**
   * Schedules the next start. Tasks start one per turn of the event loop (in its check phase), so
   * sockets are read between any two starts: a ping waits for at most one task's synchronous part.
   */
  pump(): void {
    if (this.tickScheduled || this.running >= this.maxRunning) return;
    this.tickScheduled = true;
    setImmediate(() => {
      this.tickScheduled = false;
      this.startOne();
    });
  }

  private startOne(): void {
    if (this.running >= this.maxRunning) return;
    let best: Lane | undefined;
    for (const l of this.lanes) {
      if (l.queue.length === 0 || l.held) continue;
      if (!best || l.vtime < best.vtime) best = l;
    }
    if (!best) return;
    this.vnow = Math.max(this.vnow, best.vtime);
    void this.start(best, best.queue.shift()!, true);
    this.pump();
  }

  private async start(lane: Lane, task: Task, counted: boolean): Promise<void> {
    if (counted) this.running++;
    lane.running++;
    const t0 = this.now();
    try {
      await task.run();
    } finally {
      lane.running--;
      lane.vtime += Math.max(0.01, this.now() - t0);
      if (counted) this.running--;
      this.pump();
    }
  }
}
