import { execFileSync } from "node:child_process";
import {
  closeSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { daemonsPerTest, waitUntil } from "./helpers/daemon.js";
import { openTestIndex, tempDir, writeFiles } from "./helpers/workspace.js";
import { rawDb } from "./helpers/raw-db.js";

/**
 * Bad files in a workspace: each is skipped or indexed with a loss, with a counted reason that
 * status shows; never a crash or a hang.
 */

const kinds = (r: { skipped: { path: string; kind: string }[] }) =>
  Object.fromEntries(r.skipped.map((s) => [s.path, s.kind]));

describe("bad files", () => {
  it("binary data, invalid UTF-8 and a 200 MB file: skipped or repaired with a reason; good files still indexed", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/ok.md": "the pelican ledger is fine" });
    // binary: a PNG header (NUL bytes)
    writeFileSync(
      join(root, "memory/image.md"),
      Buffer.concat([
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]),
        Buffer.alloc(4000, 7),
      ]),
    );
    // random bytes without NUL: mostly invalid UTF-8 → binary
    const noise = Buffer.alloc(20_000);
    for (let i = 0; i < noise.length; i++) noise[i] = 0x80 + ((i * 7919) % 127);
    writeFileSync(join(root, "memory/noise.md"), noise);
    // Latin-1 text: a few invalid sequences → indexed, U+FFFD in their place, reported
    writeFileSync(
      join(root, "memory/latin1.md"),
      Buffer.from("Meeting at the caf\xe9 about the marmalade budget, na\xefve plan\n", "latin1"),
    );
    // a real U+FFFD in valid UTF-8 is not a repair
    writeFiles(root, { "memory/fffd.md": "replacement char \uFFFD is text" });
    // a transcript with one invalid byte in a message
    writeFiles(root, { "sessions/t.jsonl": "" });
    writeFileSync(
      join(root, "sessions/t.jsonl"),
      Buffer.concat([
        Buffer.from('{"role":"user","content":"the quokka budget '),
        Buffer.from([0xff]),
        Buffer.from(' question"}\n{"role":"assistant","content":"answer"}\n'),
      ]),
    );
    // 200 MB, sparse: created instantly, skipped on its size without being read
    const big = join(root, "memory/huge.md");
    closeSync(openSync(big, "w"));
    truncateSync(big, 200 * 1024 * 1024);

    const idx = openTestIndex(root, null);
    const t0 = Date.now();
    const r = await idx.indexer.sync();
    expect(Date.now() - t0).toBeLessThan(5000); // loose: the 200 MB file is never read
    expect(kinds(r)).toEqual({
      "memory/huge.md": "too-large",
      "memory/image.md": "binary",
      "memory/noise.md": "binary",
    });
    expect(r.skipped.find((s) => s.path === "memory/huge.md")!.reason).toMatch(/larger than 67108864 bytes/);
    expect(r.skipped.find((s) => s.path === "memory/noise.md")!.reason).toMatch(/not UTF-8 text/);
    expect(r.repaired.map((x) => [x.path, x.kind])).toEqual([
      ["memory/latin1.md", "invalid-utf8"],
      ["sessions/t.jsonl", "invalid-utf8"],
    ]);
    expect(r.added).toBe(4);
    expect((await idx.searcher.search({ query: "marmalade" })).results[0]!.snippet).toContain("caf\uFFFD");
    expect((await idx.searcher.search({ query: "quokka" })).results).toHaveLength(1);
    expect((await idx.searcher.search({ query: "pelican" })).results).toHaveLength(1);

    // status: counts by reason and examples
    const sum = idx.indexer.issues.summary();
    expect(sum.skipped).toMatchObject({ total: 3, byReason: { "too-large": 1, binary: 2 } });
    expect(sum.skipped.examples.map((e) => e.path)).toEqual(["memory/huge.md", "memory/image.md", "memory/noise.md"]);
    expect(sum.repaired).toMatchObject({ total: 2, byReason: { "invalid-utf8": 2 } });
    idx.close();
  });

  it("a skipped file is not read again while unchanged; fixing it gets it indexed and off the list", async () => {
    const root = tempDir();
    const p = join(root, "memory/blob.md");
    writeFiles(root, { "memory/blob.md": "" });
    writeFileSync(p, Buffer.from([1, 0, 2, 0, 3, 0, 4, 0]));
    const T = Math.floor(Date.now() / 1000) - 60; // whole seconds: utimes keeps them exact
    utimesSync(p, T, T);
    const idx = openTestIndex(root, null);
    expect(kinds(await idx.indexer.sync())).toEqual({ "memory/blob.md": "binary" });
    // Same size and mtime, different (valid) bytes: still skipped, so it was not read.
    writeFileSync(p, "otterish"); // 8 bytes, like before
    utimesSync(p, T, T);
    expect(kinds(await idx.indexer.sync())).toEqual({ "memory/blob.md": "binary" });
    // A real change (new mtime): read, indexed, no longer counted.
    utimesSync(p, new Date(), new Date(Date.now() + 5000));
    const r = await idx.indexer.sync();
    expect(r.skipped).toEqual([]);
    expect(r.added).toBe(1);
    expect(idx.indexer.issues.summary().skipped.total).toBe(0);
    // A targeted sync (what the watcher does) updates the list too.
    writeFileSync(p, Buffer.from([0, 0, 0]));
    expect(kinds(await idx.indexer.sync({ paths: ["memory/blob.md"] }))).toEqual({ "memory/blob.md": "binary" });
    expect(idx.indexer.issues.summary().skipped.byReason).toEqual({ binary: 1 });
    expect((await idx.searcher.search({ query: "otterish" })).results).toHaveLength(0); // the old chunks went with it
    rmSync(p);
    await idx.indexer.sync({ paths: ["memory/blob.md"] });
    expect(idx.indexer.issues.summary().skipped.total).toBe(0);
    idx.close();
  });

  it("a 1 MB single line and deeply nested markdown are chunked in bounded pieces, quickly, and searchable", async () => {
    const root = tempDir();
    const words = Array.from({ length: 130_000 }, (_, i) => `w${i % 997}`).join(" ");
    writeFiles(root, {
      "memory/oneline.md": `${words} zebrafinch\n`,
      "memory/nospace.md": "x".repeat(1 << 20) + " wombatine\n",
      "memory/quotes.md": ">".repeat(200_000) + " deepquote\n",
      "memory/lists.md": Array.from({ length: 3000 }, (_, i) => `${"  ".repeat(i % 200)}- level ${i} nestedlist`).join(
        "\n",
      ),
      "memory/headings.md": Array.from(
        { length: 20_000 },
        (_, i) => `${"#".repeat((i % 6) + 1)} h${i}\n[[[[((((${"`".repeat(i % 5)}`,
      ).join("\n"),
      "memory/fences.md": "```\n".repeat(30_001) + "fencedtail\n",
      "MEMORY.md": "- " + "y ".repeat(500_000) + "curatedline\n",
      // a transcript with a 1 MB message line, and a line of JSON nested 100,000 deep
      "sessions/big.jsonl":
        JSON.stringify({ role: "user", content: "z ".repeat(500_000) + "longmessage" }) +
        "\n" +
        "[".repeat(100_000) +
        "]".repeat(100_000) +
        "\n" +
        JSON.stringify({ role: "assistant", content: "after the nesting comes the albatross" }) +
        "\n",
    });
    const idx = openTestIndex(root, null);
    const t0 = Date.now();
    const r = await idx.indexer.sync();
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(r.added).toBe(8);
    expect(r.skipped).toEqual([]);
    expect(r.malformedLines).toBe(1); // the nested array is not a message
    const longest = rawDb(idx.store)
      .prepare(
        `SELECT max(length(text)) AS n FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path IN ('memory/oneline.md', 'memory/nospace.md', 'MEMORY.md', 'sessions/big.jsonl')`,
      )
      .get() as { n: number };
    expect(longest.n).toBeLessThan(10_000);
    for (const q of [
      "zebrafinch",
      "wombatine",
      "deepquote",
      "nestedlist",
      "h19999",
      "fencedtail",
      "curatedline",
      "longmessage",
      "albatross",
    ]) {
      expect((await idx.searcher.search({ query: q })).results.length, q).toBeGreaterThan(0);
    }
    idx.close();
  });

  it("symlink loops and symlinks out of the workspace are skipped with a reason", async () => {
    const root = tempDir();
    const outside = tempDir();
    writeFiles(outside, { "secret.md": "outside secret kestrel", "dir/x.md": "outside dir kestrel" });
    writeFiles(root, { "memory/a.md": "inside heron" });
    symlinkSync(join(outside, "secret.md"), join(root, "memory/leak.md"));
    symlinkSync(join(outside, "dir"), join(root, "memory/leakdir"));
    symlinkSync("/etc/passwd", join(root, "memory/passwd.md"));
    symlinkSync(join(root, "memory/self.md"), join(root, "memory/self.md")); // ELOOP
    symlinkSync(join(root, "memory/pong.md"), join(root, "memory/ping.md"));
    symlinkSync(join(root, "memory/ping.md"), join(root, "memory/pong.md"));
    symlinkSync(join(root, "memory"), join(root, "memory/loopdir")); // a directory loop: walked once
    symlinkSync(join(root, "memory/nothing.md"), join(root, "memory/dangling.md"));
    symlinkSync(outside, join(root, "sessions"));
    const idx = openTestIndex(root, null);
    const r = await idx.indexer.sync();
    expect(kinds(r)).toEqual({
      "memory/leak.md": "symlink-outside",
      "memory/leakdir": "symlink-outside",
      "memory/passwd.md": "symlink-outside",
      "memory/self.md": "broken-symlink",
      "memory/ping.md": "broken-symlink",
      "memory/pong.md": "broken-symlink",
      "memory/dangling.md": "broken-symlink",
      sessions: "symlink-outside",
    });
    expect(r.added).toBe(1);
    expect((await idx.searcher.search({ query: "kestrel" })).results).toHaveLength(0);
    expect(idx.indexer.issues.summary().skipped.byReason).toEqual({ "symlink-outside": 4, "broken-symlink": 4 });
    idx.close();
  });

  it("files vanishing (or turning into a FIFO) between the scan and the read are skipped, not fatal, and don't hang", async () => {
    const root = tempDir();
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`memory/n${String(i).padStart(2, "0")}.md`] = `note ${i} about the capybara`;
    writeFiles(root, files);
    const idx = openTestIndex(root, null);
    let struck = false;
    const r = await idx.indexer.sync({
      onProgress: (p) => {
        // Right after the scan, before any read: delete some files, swap one for a FIFO.
        if (p.phase !== "files" || struck) return;
        struck = true;
        rmSync(join(root, "memory/n05.md"));
        rmSync(join(root, "memory/n30.md"));
        rmSync(join(root, "memory/n20.md"));
        execFileSync("mkfifo", [join(root, "memory/n20.md")]);
      },
    });
    expect(struck).toBe(true);
    expect(kinds(r)).toEqual({ "memory/n05.md": "vanished", "memory/n20.md": "vanished", "memory/n30.md": "vanished" });
    expect(r.skipped.find((s) => s.path === "memory/n20.md")!.reason).toBe("no longer a regular file");
    expect(r.added).toBe(37);
    // The next sync no longer sees them at all (a FIFO is not a memory file).
    const again = await idx.indexer.sync();
    expect(again.skipped).toEqual([]);
    expect(idx.indexer.issues.summary().skipped.total).toBe(0);
    expect(readFileSync(join(root, "memory/n00.md"), "utf8")).toBe("note 0 about the capybara");
    idx.close();
  });
});

describe("skipped files in status (real daemon)", () => {
  const { daemonOn } = daemonsPerTest();

  it("cortex.status and `cortexd status` count skipped files by reason; each is logged once, not on every sync", async () => {
    const root = tempDir();
    const outside = tempDir();
    writeFiles(outside, { "x.md": "outside" });
    writeFiles(root, { "memory/2026-01-05.md": "- the gannet note" });
    writeFileSync(join(root, "memory/blob.md"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 0]));
    writeFileSync(join(root, "memory/latin1.md"), Buffer.from("r\xe9sum\xe9 of the gannet survey\n", "latin1"));
    symlinkSync(join(outside, "x.md"), join(root, "memory/out.md"));
    const d = await daemonOn(root);
    await waitUntil(async () => (await d.call("cortex.status", {})).workspaces[0]!.skipped.total === 2);
    await d.call("index.sync", {});
    await d.call("index.sync", { force: true });
    const w = (await d.call("cortex.status", {})).workspaces[0]!;
    expect(w.skipped).toMatchObject({ total: 2, byReason: { binary: 1, "symlink-outside": 1 } });
    expect(w.skipped.examples).toEqual([
      { path: "memory/blob.md", reason: "binary: binary content (NUL bytes)" },
      { path: "memory/out.md", reason: "symlink-outside: symlink leads outside the workspace" },
    ]);
    expect(w.repaired).toMatchObject({ total: 1, byReason: { "invalid-utf8": 1 } });
    expect((await d.call("index.status", {})).workspaces[0]!.skipped.total).toBe(2);
    const logged = d
      .stderr()
      .split("\n")
      .filter((l) => l.includes("file skipped, not indexed"))
      .map((l) => (JSON.parse(l) as { path: string; kind: string }).path)
      .sort();
    expect(logged).toEqual(["memory/blob.md", "memory/out.md"]); // once each, across three syncs
    const cli = runCli(["status"], d.env);
    expect(cli.stdout).toContain("not indexed: 2 files (binary 1, symlink-outside 1), e.g. memory/blob.md");
    expect(cli.stdout).toContain("indexed with a loss: 1 file (invalid-utf8 1), e.g. memory/latin1.md");
  });
});
