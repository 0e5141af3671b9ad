import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PACKAGE_ROOT } from "../../src/version.js";

/** The QMD release the peers bench compares with (one place). */
export const QMD_PACKAGE = "@tobilu/qmd";
export const QMD_RANGE = "^2.8.3";

export interface QmdInstall {
  dir: string;
  version: string;
  /** The `qmd` executable (its own Node launcher). */
  bin: string;
  /** The SDK entry (createStore). */
  entry: string;
}

function readVersion(pkgJson: string): string | null {
  try {
    return (JSON.parse(readFileSync(pkgJson, "utf8")) as { version: string }).version;
  } catch {
    return null;
  }
}

/**
 * Installs QMD into ${CORTEXD_BENCH_CACHE:-~/.cache/cortexd-bench}/qmd (outside the repo), once.
 * Its better-sqlite3 is pinned to ^12 with npm overrides, as this project pins it. Install scripts
 * are skipped (QMD's node-llama-cpp would fetch binaries; only its SQLite side is benchmarked): the
 * native SQLite addon is taken from this project's build when the versions match, else compiled.
 */
export function ensureQmd(): QmdInstall {
  const dir = join(process.env.CORTEXD_BENCH_CACHE ?? join(homedir(), ".cache", "cortexd-bench"), "qmd");
  const pkgDir = join(dir, "node_modules", ...QMD_PACKAGE.split("/"));
  let version = readVersion(join(pkgDir, "package.json"));
  if (!version || !version.startsWith("2.")) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify(
        {
          name: "cortexd-bench-qmd",
          private: true,
          dependencies: { [QMD_PACKAGE]: QMD_RANGE },
          overrides: { "better-sqlite3": "^12" },
        },
        null,
        2,
      ),
    );
    console.log(`installing ${QMD_PACKAGE}@${QMD_RANGE} into ${dir} …`);
    const r = spawnSync("npm", ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], {
      cwd: dir,
      stdio: "inherit",
    });
    if (r.status !== 0) throw new Error(`npm install of ${QMD_PACKAGE} failed (exit ${r.status})`);
    version = readVersion(join(pkgDir, "package.json"))!;
  }
  const addon = join(dir, "node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node");
  if (!existsSync(addon)) {
    const ours = join(PACKAGE_ROOT, "node_modules", "better-sqlite3");
    if (
      readVersion(join(ours, "package.json")) ===
      readVersion(join(dir, "node_modules", "better-sqlite3", "package.json"))
    ) {
      mkdirSync(join(addon, ".."), { recursive: true });
      copyFileSync(join(ours, "build", "Release", "better_sqlite3.node"), addon);
    } else {
      console.log("compiling better-sqlite3 for QMD …");
      const r = spawnSync("npm", ["rebuild", "better-sqlite3"], { cwd: dir, stdio: "inherit" });
      if (r.status !== 0) throw new Error(`building better-sqlite3 for QMD failed (exit ${r.status})`);
    }
  }
  return { dir, version, bin: join(dir, "node_modules", ".bin", "qmd"), entry: join(pkgDir, "dist", "index.js") };
}

/** The part of QMD's SDK the bench uses. */
export interface QmdStore {
  searchLex(query: string, options?: { limit?: number }): Promise<unknown[]>;
  close(): Promise<void>;
}

/** Opens QMD's index in this process (keyword search needs no model). */
export async function openQmdStore(install: QmdInstall, dbPath: string): Promise<QmdStore> {
  const mod = (await import(pathToFileURL(install.entry).href)) as {
    createStore(o: { dbPath: string }): Promise<QmdStore>;
  };
  return mod.createStore({ dbPath });
}

/** The environment of a QMD home (its config and index inside it). */
export function qmdEnv(home: string): NodeJS.ProcessEnv {
  return { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_CACHE_HOME: join(home, ".cache") };
}

/** QMD's index file in a home laid out by qmdEnv. */
export function qmdIndexPath(home: string): string {
  return join(home, ".cache", "qmd", "index.sqlite");
}

/** Wall time of one process, ms; throws when it fails. */
export function timeProcess(cmd: string, args: string[], env: NodeJS.ProcessEnv): number {
  const t = performance.now();
  const r = spawnSync(cmd, args, { env, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  const ms = performance.now() - t;
  if (r.status !== 0 && r.status !== 1)
    throw new Error(`${cmd} ${args.join(" ")} failed (exit ${r.status}): ${r.stderr}`);
  return ms;
}
