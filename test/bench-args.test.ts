import { describe, expect, it } from "vitest";
import { nodeArgsFlag, parseArgs } from "../scripts/bench/util.js";

describe("bench arguments", () => {
  it("passes Node flags given after --a-node-args to the daemon (a profile is written)", () => {
    const args = parseArgs(["ab-daemon", "--a-node-args", "--cpu-prof --cpu-prof-dir=/tmp/p", "--queries", "5"]);
    expect(nodeArgsFlag(args, "a-node-args")).toEqual(["--cpu-prof", "--cpu-prof-dir=/tmp/p"]);
    expect(args.flags.queries).toBe("5");
    expect(args.positional).toEqual(["ab-daemon"]);
  });

  it("still reads a bare flag followed by another flag as true", () => {
    const args = parseArgs(["--fresh", "--files", "10"]);
    expect(args.flags).toEqual({ fresh: true, files: "10" });
  });
});
