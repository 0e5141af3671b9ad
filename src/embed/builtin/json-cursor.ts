/**
 * A resumable cursor over a JSON byte stream: the buffered bytes, and the lexing of whitespace,
 * strings and numbers (decoded exactly as JSON.parse would), each saying when the chunk ran out.
 */

export const NEED_MORE = -1;

export const Q = 0x22, // "
  BS = 0x5c, // \
  COLON = 0x3a,
  COMMA = 0x2c,
  LBRACK = 0x5b,
  RBRACK = 0x5d,
  LBRACE = 0x7b,
  RBRACE = 0x7d;

export function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

export class FormatError extends Error {
  override readonly name = "SourceFormatError";
}

/** Exact doubles 10^0 … 10^22 (for the Clinger fast path of decimal → double). */
const POW10 = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));

export class JsonCursor {
  buf: Buffer = Buffer.alloc(0);
  pos = 0;
  /** File offset of buf[0]. */
  base = 0;
  /** The last string decoded by str(). */
  key = "";

  append(chunk: Buffer): void {
    if (this.pos >= this.buf.length) {
      this.base += this.buf.length;
      this.buf = chunk;
    } else {
      this.base += this.pos;
      this.buf = Buffer.concat([this.buf.subarray(this.pos), chunk]);
    }
    this.pos = 0;
  }

  protected fail(msg: string, at = this.pos): never {
    throw new FormatError(`source JSON, byte ${this.base + at}: ${msg}`);
  }

  protected ws(p: number): number {
    const b = this.buf;
    while (p < b.length && isWs(b[p]!)) p++;
    return p;
  }

  /** Parses a JSON string at p (must be '"'). Returns end position or NEED_MORE; sets this.key when decoding. */
  protected str(p: number, decode: boolean): number {
    const b = this.buf;
    if (b[p] !== Q) this.fail(`expected '"', found ${JSON.stringify(String.fromCharCode(b[p]!))}`, p);
    let i = p + 1;
    let plain = true;
    for (;;) {
      if (i >= b.length) return NEED_MORE;
      const c = b[i]!;
      if (c === Q) break;
      if (c === BS) {
        plain = false;
        i += 2;
        continue;
      }
      i++;
    }
    if (decode) this.key = plain ? b.toString("utf8", p + 1, i) : (JSON.parse(b.toString("utf8", p, i + 1)) as string);
    return i + 1;
  }

  /** Parses a JSON number at p into out[0]. Returns end position or NEED_MORE (number may continue). */
  protected num(p: number, out: Float64Array, k: number): number {
    const b = this.buf;
    const start = p;
    let neg = false;
    if (b[p] === 0x2d) {
      neg = true;
      p++;
    }
    let m = 0;
    let digits = 0;
    let frac = 0;
    let c = b[p];
    while (c !== undefined && c >= 0x30 && c <= 0x39) {
      m = m * 10 + (c - 0x30);
      if (m !== 0) digits++;
      c = b[++p];
    }
    const intEnd = p;
    if (c === 0x2e) {
      c = b[++p];
      while (c !== undefined && c >= 0x30 && c <= 0x39) {
        m = m * 10 + (c - 0x30);
        if (m !== 0) digits++;
        frac++;
        c = b[++p];
      }
    }
    let exp = 0;
    if (c === 0x65 || c === 0x45) {
      c = b[++p];
      let eneg = false;
      if (c === 0x2d || c === 0x2b) {
        eneg = c === 0x2d;
        c = b[++p];
      }
      while (c !== undefined && c >= 0x30 && c <= 0x39) {
        exp = exp * 10 + (c - 0x30);
        c = b[++p];
      }
      if (eneg) exp = -exp;
    }
    if (c === undefined) return NEED_MORE; // the number might continue in the next chunk
    if (intEnd === start + (neg ? 1 : 0)) this.fail("expected a number", start);
    const e10 = exp - frac;
    let v: number;
    if (digits <= 15 && e10 >= -22 && e10 <= 22) {
      // m and 10^|e10| are exact doubles: one IEEE operation gives the correctly rounded value.
      v = e10 < 0 ? m / POW10[-e10]! : m * POW10[e10]!;
      if (neg) v = -v;
    } else {
      v = Number(b.toString("latin1", start, p));
    }
    out[k] = v;
    return p;
  }
}
