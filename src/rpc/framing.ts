/**
 * NDJSON framing of one connection's incoming bytes: complete lines out, bounded on the way in.
 * A line may not exceed maxLineBytes; the unfinished lines of all connections together are counted
 * in one shared budget (LineBudget) so many half-sent lines cannot add up.
 */

/** Bytes of unfinished lines held across all connections. */
export class LineBudget {
  total = 0;
  constructor(readonly max: number) {}
  get over(): boolean {
    return this.total > this.max;
  }
}

export type NextLine = { line: Buffer } | { tooLarge: number } | null;

export class LineFramer {
  /** Received bytes not scanned yet. */
  private unscanned: Buffer[] = [];
  /** The current, unfinished line. */
  private parts: Buffer[] = [];
  private partBytes = 0;
  /** Bytes of `parts` counted in the shared budget. */
  held = 0;

  constructor(
    private readonly maxLineBytes: number,
    private readonly budget: LineBudget,
  ) {}

  push(chunk: Buffer): void {
    this.unscanned.push(chunk);
  }

  /** Bytes received but not scanned yet (reading should pause while there are any). */
  get hasUnscanned(): boolean {
    return this.unscanned.length > 0;
  }

  /** A line is started but not finished. */
  get midLine(): boolean {
    return this.partBytes > 0;
  }

  get lineBytes(): number {
    return this.partBytes;
  }

  /**
   * The next complete line (without its newline), `tooLarge` when the current line passes the
   * limit, or null when more bytes are needed. After a partial chunk, check the shared budget.
   */
  next(): NextLine {
    while (this.unscanned.length > 0) {
      const chunk = this.unscanned[0]!;
      const nl = chunk.indexOf(10);
      if (nl === -1) {
        this.unscanned.shift();
        this.partBytes += chunk.length;
        if (this.partBytes > this.maxLineBytes) return { tooLarge: this.partBytes };
        this.parts.push(Buffer.from(chunk)); // copy: don't pin the whole read buffer for a short tail
        this.held += chunk.length;
        this.budget.total += chunk.length;
        if (this.budget.over) return null;
        continue;
      }
      const piece = chunk.subarray(0, nl);
      if (nl + 1 < chunk.length) this.unscanned[0] = chunk.subarray(nl + 1);
      else this.unscanned.shift();
      const total = this.partBytes + piece.length;
      if (total > this.maxLineBytes) return { tooLarge: total };
      const line = this.partBytes === 0 ? piece : Buffer.concat([...this.parts, piece], total);
      this.dropLine();
      return { line };
    }
    return null;
  }

  /** The unterminated last line, once the client has half-closed (null when there is none). */
  rest(): Buffer | null {
    if (this.partBytes === 0) return null;
    const line = Buffer.concat(this.parts, this.partBytes);
    this.dropLine();
    return line;
  }

  /** Forgets everything held (the unfinished line leaves the shared budget). */
  clear(): void {
    this.unscanned = [];
    this.dropLine();
  }

  private dropLine(): void {
    this.budget.total -= this.held;
    this.held = 0;
    this.parts = [];
    this.partBytes = 0;
  }
}
