import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { classifyWorkspacePath } from "../src/workspace/classify.js";
import { daemonsPerTest, waitUntil } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

const { daemonOn } = daemonsPerTest();

/**
 * OpenClaw's session memory keeps transcripts as markdown, `sessions/YYYY-MM-DD-<slug>.md`: they are
 * indexed as transcripts (chunked as the markdown they are), next to the JSONL ones.
 */
describe("markdown transcripts in sessions/", () => {
  it("classifies sessions/**/*.md as transcripts", () => {
    expect(classifyWorkspacePath("sessions/2026-12-01-billing-migration.md")).toEqual({ class: "transcript" });
    expect(classifyWorkspacePath("sessions/agent/2026-12-01-x.md")).toEqual({ class: "transcript" });
    expect(classifyWorkspacePath("sessions/a.jsonl")).toEqual({ class: "transcript" });
    expect(classifyWorkspacePath("sessions/a.txt")).toBeNull();
  });

  it("indexes them as transcripts, searchable, and follows appends", async () => {
    const ws = tempDir("cortexd-mdt-");
    writeFiles(ws, {
      "MEMORY.md": "# Memory\n",
      "sessions/2026-12-01-billing-migration.md":
        "# Session: 2026-12-01 billing migration\n\n**User:** Move the invoices table to the new cluster.\n\n**Assistant:** Copied invoices with pg_dump; the refunds table is next, after the Kafka consumers pause.\n",
    });
    const d = await daemonOn(ws);
    await waitUntil(
      async () =>
        (await d.call("memory.search", { query: "invoices refunds Kafka consumers", limit: 3 })).results.length > 0,
      20_000,
    );
    const hit = (await d.call("memory.search", { query: "invoices refunds Kafka consumers", limit: 3 })).results[0]!;
    expect(hit.path).toBe("sessions/2026-12-01-billing-migration.md");
    expect(hit.source).toBe("transcript");
    expect(hit.snippet).toContain("Kafka consumers");
    // Recall can leave transcripts out, or keep only them (the OpenClaw plugin's fileSync / transcriptSync).
    const q = "invoices refunds Kafka consumers";
    expect((await d.call("memory.recall", { query: q, sources: ["transcripts"] })).context).toContain(
      "Kafka consumers",
    );
    expect((await d.call("memory.recall", { query: q, sources: ["files"] })).context).not.toContain("Kafka consumers");
    appendFileSync(
      join(ws, "sessions/2026-12-01-billing-migration.md"),
      "\n**User:** And the audit trail?\n\n**Assistant:** The audit trail stays in the old cluster until the Zanzibar review in January.\n",
    );
    await waitUntil(
      async () =>
        (await d.call("memory.search", { query: "audit trail Zanzibar review", limit: 3 })).results.length > 0,
      20_000,
    );
  });
});
