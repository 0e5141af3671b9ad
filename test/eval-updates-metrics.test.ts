import { describe, expect, it } from "vitest";
import { contextLines, scoreUpdate, valueMatcher } from "../scripts/eval/updates-metrics.js";

describe("updates eval metrics (the dev README's rules)", () => {
  it("matches a value as a whole token, case-insensitively, whitespace runs as one", () => {
    expect(valueMatcher("Porto")("moved to Portobello")).toBe(false);
    expect(valueMatcher("Porto")("moved to porto.")).toBe(true);
    expect(valueMatcher("9:30am")("at 09:30am")).toBe(false);
    expect(valueMatcher("VS Code")("uses VS   Code now")).toBe(true);
  });
  it("splits at newlines and at the ⏎ joining a chunk's lines", () => {
    expect(contextLines("a ⏎ b\nc")).toEqual(["a", "b", "c"]);
  });
  it("found, current-first and stale-absent", () => {
    const ctx = "x Hiro lives in Hamburg. ⏎ y\nHiro lives in Berlin.\nno longer Hamburg; Berlin now";
    expect(scoreUpdate(ctx, ["Berlin"], ["Hamburg"])).toEqual({
      found: true,
      currentFirst: false,
      staleAbsent: false,
      leads: false,
      chars: ctx.length,
    });
    const good = "Hiro lives in Berlin.\nno longer Hamburg; Berlin now";
    expect(scoreUpdate(good, ["Berlin"], ["Hamburg"])).toMatchObject({ currentFirst: true, staleAbsent: true });
    expect(scoreUpdate("", ["Berlin"], ["Hamburg"])).toMatchObject({
      found: false,
      currentFirst: false,
      staleAbsent: true,
    });
  });
  it("leads: the block's first memory holds a current value", () => {
    const block = (...memories: string[]) =>
      `<cortex_memories>\n[NOTE: …]\n${memories.map((m) => `- ${m}`).join("\n")}\n</cortex_memories>`;
    expect(scoreUpdate(block("Leo moved to Milan.", "Leo asked about ranking."), ["Milan"], []).leads).toBe(true);
    expect(scoreUpdate(block("Leo asked about ranking.", "Leo moved to Milan."), ["Milan"], []).leads).toBe(false);
    expect(scoreUpdate("", ["Milan"], []).leads).toBe(false);
  });
});
