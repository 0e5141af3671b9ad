import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { localDate } from "../src/memory-files/entry.js";
import { daemonsPerTest } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

const { daemonOn } = daemonsPerTest();

/**
 * Recovery stays inside its lineage (host and conversation scope): an OpenClaw private session's
 * unclean end is recovered by the next OpenClaw private session only, never by a Claude Code
 * session of the same workspace (no lineage) nor by an OpenClaw group chat; and a checkpoint's
 * summary (given by the client, e.g. `/checkpoint <text>`) is quoted by that recovery note.
 */
describe("session lineage and checkpoint summaries", () => {
  it("recovers only within the lineage, quoting the last checkpoint summary, once", async () => {
    const ws = tempDir("cortexd-lineage-");
    writeFiles(ws, { "MEMORY.md": "# Memory\n" });
    const d = await daemonOn(ws);
    const priv = "openclaw:main:private";
    await d.call("session.start", { session_id: "oc-a", lineage: priv, workspace: ws });
    await d.call("session.touch", {
      session_id: "oc-a",
      lineage: priv,
      prompt: "Draft the migration plan for the billing tables",
      workspace: ws,
    });
    const cp = await d.call("session.checkpoint", {
      session_id: "oc-a",
      summary: "Halfway through the billing migration plan: tables invoices and refunds left",
      workspace: ws,
    });
    expect(cp.stored).toBe(true);
    expect(cp.text).toBe("Halfway through the billing migration plan: tables invoices and refunds left");
    const log = readFileSync(join(ws, "memory", `${localDate()}.md`), "utf8");
    expect(log).toMatch(/\[checkpoint session oc-a \d\d:\d\d\] Halfway through the billing migration plan/);
    // Searchable at once.
    const hits = await d.call("memory.search", { query: "billing migration invoices refunds", workspace: ws });
    expect(hits.results.some((h) => h.snippet.includes("Halfway through the billing migration"))).toBe(true);

    // A Claude Code session in the same workspace: nothing from the OpenClaw chat.
    const cc = await d.call("session.start", { session_id: "cc-1", cwd: ws });
    expect(cc.recovery).toBe("");
    // An OpenClaw group chat: nothing from the private session.
    const group = await d.call("session.start", {
      session_id: "oc-g",
      lineage: "openclaw:main:group:agent:main:telegram:group:-100",
      workspace: ws,
    });
    expect(group.recovery).toBe("");
    // The next private OpenClaw session: the note, with the checkpoint.
    const next = await d.call("session.start", { session_id: "oc-b", lineage: priv, workspace: ws });
    expect(next.recovery).toContain("<cortex_recovery>");
    expect(next.recovery).toContain("Previous session: oc-a");
    expect(next.recovery).toMatch(
      /Last checkpoint \(memory\/\d{4}-\d\d-\d\d\.md, \d\d:\d\d\): Halfway through the billing migration plan/,
    );
    // Once.
    const again = await d.call("session.start", { session_id: "oc-c", lineage: priv, workspace: ws });
    expect(again.recovery).toBe("");
  });

  it("after a clean end (sleep) the next session of the lineage gets no note", async () => {
    const ws = tempDir("cortexd-lineage-");
    writeFiles(ws, { "MEMORY.md": "# Memory\n" });
    const d = await daemonOn(ws);
    const priv = "openclaw:main:private";
    await d.call("session.start", { session_id: "oc-a", lineage: priv });
    await d.call("session.touch", { session_id: "oc-a", lineage: priv, prompt: "Write the release notes for 2.4" });
    await d.call("session.checkpoint", { session_id: "oc-a", summary: "release notes half written" });
    await d.call("session.sleep", { session_id: "oc-a", checkpoint: false });
    const next = await d.call("session.start", { session_id: "oc-b", lineage: priv });
    expect(next.recovery).toBe("");
    expect(next.previous).toMatchObject({ session_id: "oc-a", clean: true });
  });
});
