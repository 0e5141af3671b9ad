import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
  closeSync,
  openSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/index/db/db.js";
import { isolatedEnv, runCli } from "./helpers/cli.js";
import { daemonsPerTest, waitUntil, writeConfig } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

const { daemonOn } = daemonsPerTest();

const mode = (p: string) => statSync(p).mode & 0o777;
const dataDirOf = (home: string) => join(home, ".local/share/cortexd");

describe("private files", () => {
  it("a fresh start creates the data dir 0700 and every index, state, log and lock file 0600", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/2026-01-05.md": "- the heron note" });
    const d = await daemonOn(root);
    await d.call("memory.save", { text: "a saved thought about herons", target: "daily" });
    await d.call("memory.capture", {
      session_id: "sec-1",
      messages: [
        { role: "user", content: "remember the heron colony at the lake please" },
        { role: "assistant", content: "Noted: the heron colony is at the north shore of the lake." },
      ],
    });
    const data = dataDirOf(d.home);
    expect(mode(data)).toBe(0o700);
    const files: string[] = [];
    for (const sub of ["indexes", "state"]) {
      expect(mode(join(data, sub)), sub).toBe(0o700);
      for (const f of readdirSync(join(data, sub))) files.push(join(data, sub, f));
    }
    expect(files.some((f) => f.endsWith(".sqlite-wal"))).toBe(true);
    expect(files.some((f) => f.endsWith(".json"))).toBe(true);
    for (const f of files) expect(mode(f), f).toBe(0o600);
    expect(mode(d.socket)).toBe(0o600);
    expect(mode(join(d.socket, ".."))).toBe(0o700);
    for (const f of readdirSync(join(d.socket, "..")))
      if (f.endsWith(".lock")) expect(mode(join(d.socket, "..", f))).toBe(0o600);
  });

  it("looser modes found at start are tightened, and each fix is logged", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/2026-01-05.md": "- the egret note" });
    const home = tempDir("cortexd-home-");
    const data = dataDirOf(home);
    mkdirSync(join(data, "indexes"), { recursive: true });
    mkdirSync(join(data, "state"), { recursive: true });
    const db = openDatabase(join(data, "indexes", "old.sqlite")).db;
    db.exec("CREATE TABLE t(x)");
    db.close();
    writeFileSync(join(data, "state", "old.json"), "{}");
    for (const [p, m] of [
      [data, 0o755],
      [join(data, "indexes"), 0o777],
      [join(data, "state"), 0o750],
      [join(data, "indexes", "old.sqlite"), 0o644],
      [join(data, "state", "old.json"), 0o666],
    ] as const)
      chmodSync(p, m);
    const d = await daemonOn(root, { home });
    expect(mode(data)).toBe(0o700);
    expect(mode(join(data, "indexes"))).toBe(0o700);
    expect(mode(join(data, "state"))).toBe(0o700);
    expect(mode(join(data, "indexes", "old.sqlite"))).toBe(0o600);
    expect(mode(join(data, "state", "old.json"))).toBe(0o600);
    const fixes = d
      .stderr()
      .split("\n")
      .filter((l) => l.includes("tightened"))
      .map((l) => JSON.parse(l) as { path: string; from: string; to: string });
    expect(fixes).toContainEqual(expect.objectContaining({ path: data, from: "0755", to: "0700" }));
    expect(fixes).toContainEqual(
      expect.objectContaining({ path: join(data, "indexes", "old.sqlite"), from: "0644", to: "0600" }),
    );
    expect(fixes).toHaveLength(5);
  });

  it.skipIf(process.getuid?.() !== 0)(
    "data owned by another user is refused at start with a message saying what to do (needs root to chown)",
    async () => {
      const root = tempDir();
      const home = tempDir("cortexd-home-");
      writeConfig(home, { workspaces: [{ path: root }] });
      const data = dataDirOf(home);
      mkdirSync(join(data, "indexes"), { recursive: true, mode: 0o700 });
      const foreign = join(data, "indexes", "planted.sqlite");
      closeSync(openSync(foreign, "w", 0o600));
      chownSync(foreign, 12345, 12345);
      const env = isolatedEnv(home, { CORTEXD_EMBEDDING_PROVIDER: "none" });
      const r = runCli(["run"], env);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`${foreign} is owned by uid 12345, not by you (uid 0)`);
      expect(r.stderr).toMatch(/chown -R 0/);
      expect(existsSync(join(home, "run", "cortexd", "cortexd.sock"))).toBe(false);
    },
  );
});

/** Inodes of the sockets a process has open (Linux /proc). */
function socketInodes(pid: number): Set<string> {
  const out = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) out.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  return out;
}

describe("network exposure", () => {
  it.skipIf(process.platform !== "linux")(
    "the daemon has no TCP or UDP socket at all, only its Unix socket",
    async () => {
      const root = tempDir();
      writeFiles(root, { "memory/2026-01-05.md": "- the ibis note" });
      const d = await daemonOn(root);
      await d.call("memory.search", { query: "ibis" });
      const mine = socketInodes(d.child.pid!);
      expect(mine.size).toBeGreaterThan(0); // the listening Unix socket at least
      for (const table of ["tcp", "tcp6", "udp", "udp6"]) {
        const rows = readFileSync(`/proc/net/${table}`, "utf8").trim().split("\n").slice(1);
        const inodes = rows.map((r) => r.trim().split(/\s+/)[9]);
        for (const i of inodes) expect(mine.has(i!), `${table} socket inode ${i}`).toBe(false);
      }
      const unix = readFileSync("/proc/net/unix", "utf8");
      expect(unix).toContain(d.socket);
    },
  );
});

describe("memory.get refuses everything that is not a memory file of the workspace", () => {
  it("traversal, absolute paths, symlinks out, non-memory files, the index itself, NUL, and a file too large to read", async () => {
    const root = tempDir();
    const outside = tempDir();
    writeFiles(outside, { "secret.md": "outside secret", "notes/n.md": "outside note" });
    writeFiles(root, {
      "MEMORY.md": "- curated",
      "memory/2026-01-05.md": "- daily",
      ".env": "API_KEY=abc",
      "notes.txt": "not memory",
      "memory/.hidden/x.md": "hidden",
      "node_modules/pkg/README.md": "dep",
    });
    symlinkSync(join(outside, "secret.md"), join(root, "memory/leak.md"));
    symlinkSync(join(outside, "notes"), join(root, "memory/leakdir"));
    symlinkSync("/etc/passwd", join(root, "memory/passwd.md"));
    const big = join(root, "memory/huge.md");
    closeSync(openSync(big, "w"));
    truncateSync(big, 100 * 1024 * 1024);
    const d = await daemonOn(root);
    const dbPath = join(
      dataDirOf(d.home),
      "indexes",
      readdirSync(join(dataDirOf(d.home), "indexes")).find((f) => f.endsWith(".sqlite"))!,
    );
    const refused = [
      "../../etc/passwd",
      "../../../../../../../../etc/passwd",
      "memory/../../../etc/passwd",
      "/etc/passwd",
      "/etc/shadow",
      "memory/leak.md",
      "memory/leakdir/n.md",
      "memory/passwd.md",
      join(outside, "secret.md"),
      `${root}/../${outside.split("/").pop()}/secret.md`,
      ".env",
      "notes.txt",
      "memory/.hidden/x.md",
      "node_modules/pkg/README.md",
      dbPath,
      "memory",
      ".",
      "",
      "%2e%2e/%2e%2e/etc/passwd",
      "memory\\..\\..\\etc\\passwd",
      "memory/huge.md",
    ];
    for (const path of refused) {
      const res = await d.call("memory.get", { path }).then(
        (r) => ({ ok: r }),
        (e: { code: number; message: string }) => e,
      );
      expect("code" in res ? res.code : res, path).toBeOneOf([-32001, -32602]);
    }
    const nul = await d
      .call("memory.get", { path: "memory/2026-01-05.md\0../../etc/passwd" })
      .catch((e: { code: number; message: string }) => e);
    expect(nul).toMatchObject({ code: -32602, message: expect.stringMatching(/NUL/) });
    const huge = await d
      .call("memory.get", { path: "memory/huge.md" })
      .catch((e: { code: number; message: string }) => e);
    expect(huge).toMatchObject({ code: -32001, message: expect.stringMatching(/larger than/) });
    // The memory files themselves are served, by key or absolute path.
    expect((await d.call("memory.get", { path: "memory/2026-01-05.md" })).text).toBe("- daily");
    expect((await d.call("memory.get", { path: join(root, "MEMORY.md") })).text).toBe("- curated");
    expect((await d.call("memory.get", { path: "memory/./x/../2026-01-05.md" })).path).toBe("memory/2026-01-05.md");
  });
});

describe("private scope", () => {
  it("group scope never returns MEMORY.md / USER.md (over the socket and through the hook); private scope does", async () => {
    const root = tempDir();
    writeFiles(root, {
      "MEMORY.md": "# Memory\n\n- The family safe combination hint is the pelican birthday.\n",
      "USER.md": "# User\n\n- The user's home address is 12 Pelican Lane.\n",
      "memory/2026-01-05.md": "# 2026-01-05\n\n- The team discussed the pelican logo for the launch.\n",
    });
    const d = await daemonOn(root);
    await waitUntil(async () => (await d.call("memory.search", { query: "pelican", limit: 10 })).results.length === 3);
    // (Recall injects only memories relevant to the prompt: one prompt per memory.)
    const asked = {
      "MEMORY.md": "the pelican safe combination hint",
      "USER.md": "the user's home address",
      "memory/2026-01-05.md": "the pelican logo for the launch",
    };
    for (const [path, query] of Object.entries(asked)) {
      expect((await d.call("memory.recall", { query, scope: "private" })).memories.map((m) => m.path)).toContain(path);
      const group = await d.call("memory.recall", { query, scope: "group" });
      expect(group.memories.map((m) => m.path)).toEqual(path.startsWith("memory/") ? [path] : []);
      expect(group.context).not.toMatch(/combination|Pelican Lane/);
    }
    const group = await d.call("memory.recall", { query: "pelican safe combination address logo", scope: "group" });
    expect(group.context).not.toMatch(/combination|Pelican Lane/);
    // Only curated memory matches: nothing at all for a group.
    const onlyCurated = await d.call("memory.recall", { query: "safe combination home address", scope: "group" });
    expect(onlyCurated.memories).toEqual([]);
    expect(onlyCurated.context).toBe("");
    // The hook with --scope group (what a group chat's agent runs)
    const hook = runCli(
      ["hook", "pre-turn", "--scope", "group", "--timeout-ms", "5000"],
      d.env,
      JSON.stringify({ prompt: "pelican logo launch, safe combination" }),
    );
    expect(hook.code).toBe(0);
    const out = JSON.parse(hook.stdout) as { context: string; memory_count: number };
    expect(out.memory_count).toBe(1);
    expect(out.context).toContain("pelican logo");
    expect(out.context).not.toMatch(/combination|Pelican Lane/);
  });
});
