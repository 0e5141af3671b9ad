import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, isolatedEnv } from "./helpers/cli.js";
import { BIN } from "./helpers/hooks.js";
import { tempDir } from "./helpers/workspace.js";

const LAUNCHER = resolve(import.meta.dirname, "../bin/cortexd");

/**
 * Starting under a low open-file limit (issue #34): `ulimit -n 64` used to end in a bare
 * "EMFILE … open '…/capture.js'". Both the launcher and the Node entry now name the limit and the
 * fix, and exit 71 (EX_OSERR) so scripts can tell.
 */
const under64 = (cmd: string) =>
  spawnSync("/bin/sh", ["-c", `ulimit -n 64 && exec ${cmd}`], {
    env: isolatedEnv(tempDir(), { CORTEXD_EMBEDDING_PROVIDER: "none" }),
    encoding: "utf8",
    timeout: 60_000,
  });

describe.runIf(process.platform === "linux")("start under ulimit -n 64", () => {
  it.each([
    ["the launcher (bin/cortexd run)", `"${LAUNCHER}" run`],
    ["bin.js (node dist/src/cli/bin.js run)", `"${process.execPath}" "${BIN}" run`],
    ["the Node entry (node dist/src/cli/main.js run)", `"${process.execPath}" "${CLI}" run`],
  ])("%s: a clear error naming the limit and the fix, exit 71", (_name, cmd) => {
    const r = under64(cmd);
    expect(r.status, r.stderr).toBe(71);
    expect(r.stderr).toMatch(/open-file limit is 64 \(ulimit -n\); cortexd needs at least 128/);
    expect(r.stderr).toMatch(/ulimit -n 1024/);
  });
});
