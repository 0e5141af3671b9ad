import type { PostingsView } from "./keyword-postings.js";
import type { Postings } from "./postings-blocks.js";
import { IMPACT_PLAN, ImpactBuild, keepSet, needsBuild, type ImpactPlan } from "./postings-impacts.js";

/**
 * Builds the top-chunk sets of the long lists (postings-impacts) ahead of need, in the background:
 * after the postings load, and after writes (a set that has aged — many inserts since, or a mean
 * length that drifted — is built again), in slices of SLICE_MS with a turn of the event loop
 * between, so the first common-word query after a start or a sync does not read a list of most
 * chunks whole (~70 ms a word at 1M chunks), and no request waits more than a slice.
 *
 * Which lists: those the plan serves from their sets (at least `longList` postings; with
 * `flooredOnly`, the words in more than half the chunks, the only ones it serves). The vocabulary
 * is walked for them in slices too, after a load and when the rows have grown by RESCAN_GROWTH
 * since the last walk (a list turns long, or floored, slowly); between walks the long lists found
 * are checked again after each write.
 */
export const SLICE_MS = 4;
const RESCAN_GROWTH = 0.02;

export class ImpactWarmer {
  private scheduled = false;
  private view: PostingsView | null = null;
  /** The long lists found by the last walk of the vocabulary. */
  private long: [string, number][] = [];
  private walk: Iterator<[string, Postings]> | null = null;
  private walked: [string, number][] = [];
  private walkedRows = 0;
  private build: ImpactBuild | null = null;
  /** Index into `long` of the next list to check. */
  private at = 0;
  /** Slices run and sets built (diagnostics). */
  slices = 0;
  built = 0;

  constructor(
    private readonly postings: () => PostingsView | null,
    private readonly plan: ImpactPlan = IMPACT_PLAN,
    private readonly sliceMs = SLICE_MS,
  ) {}

  /** The postings loaded or changed: checks (in the background) which sets need building. */
  kick(): void {
    this.at = 0;
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.run());
  }

  /** Whether work is pending (tests: wait for the sets). */
  get busy(): boolean {
    return this.scheduled;
  }

  private run(): void {
    this.scheduled = false;
    const view = this.postings();
    if (!view || view.rows === 0) return;
    if (view !== this.view) {
      // A new load: its lists are new objects; walk its vocabulary.
      [this.view, this.long, this.build, this.walk, this.at] = [view, [], null, null, 0];
      this.startWalk(view);
    } else if (!this.walk && Math.abs(view.rows - this.walkedRows) > this.walkedRows * RESCAN_GROWTH) {
      this.startWalk(view);
    }
    this.slices++;
    const deadline = performance.now() + this.sliceMs;
    while (performance.now() < deadline) {
      if (this.walk) {
        this.stepWalk(view, deadline);
        continue;
      }
      if (!this.build) {
        this.build = this.next(view);
        if (!this.build) return; // every set is fresh
      }
      const set = this.build.step(view, deadline);
      if (set) {
        keepSet(this.build.list, set);
        this.built++;
        this.build = null;
      }
    }
    this.scheduled = true;
    setImmediate(() => this.run());
  }

  private startWalk(view: PostingsView): void {
    this.walk = view.lists.entries();
    this.walked = [];
    this.walkedRows = view.rows;
  }

  private stepWalk(view: PostingsView, deadline: number): void {
    for (let i = 0; ; i++) {
      if ((i & 1023) === 1023 && performance.now() > deadline) return;
      const r = this.walk!.next();
      if (r.done) break;
      const [token, list] = r.value;
      const top = this.topFor(view, list);
      if (top !== null) this.walked.push([token, top]);
    }
    // Longest first: the lists whose reads cost most.
    this.walked.sort((a, b) => (view.lists.get(b[0])?.n ?? 0) - (view.lists.get(a[0])?.n ?? 0));
    [this.long, this.walk, this.at] = [this.walked, null, 0];
  }

  /** The TOP of the set the plan would ask of this list, or null when it asks none. */
  private topFor(view: PostingsView, list: Postings): number | null {
    const plan = this.plan;
    if (list.n < plan.longList) return null;
    const floored = view.ln((view.rows - list.n + 0.5) / (list.n + 0.5)) <= 0;
    if (plan.flooredOnly && !floored) return null;
    // A floored word beside others is bounded by k1 + 1 (no set); alone with floored words, by its own.
    return floored ? (plan.flooredTop ?? plan.top) : plan.top;
  }

  /** The next long list whose set needs building (null: none). */
  private next(view: PostingsView): ImpactBuild | null {
    for (; this.at < this.long.length; this.at++) {
      const [token] = this.long[this.at]!;
      const list = view.lists.get(token);
      if (!list) continue;
      const top = this.topFor(view, list);
      if (top !== null && needsBuild(view, list, top)) return new ImpactBuild(view, list, top);
    }
    return null;
  }
}
