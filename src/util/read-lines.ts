import { StringDecoder } from "node:string_decoder";
import { checkRegular, openNonBlocking, ReadFileError } from "./read-regular.js";

/**
 * Lines `from`…`from + count - 1` (1-based) of a regular file, read in small chunks: only the lines
 * returned are kept (each cut at maxLineChars, and no more lines once maxChars is passed), so memory
 * stays small however large the file is; the whole file is still scanned to count its lines.
 * Lines split as `text.split(/\r?\n/)` would (a final newline does not start a line).
 * Opened non-blocking and checked with fstat, like readRegularFile: a FIFO or device is refused,
 * and so is a file over maxBytes.
 */
export interface LineWindow {
  lines: string[];
  totalLines: number;
}

const CHUNK = 64 * 1024;

export async function readLineWindow(
  absPath: string,
  opts: { maxBytes: number; from: number; count: number; maxChars: number },
): Promise<LineWindow> {
  const fh = await openNonBlocking(absPath);
  const first = opts.from - 1;
  const end = first + opts.count;
  const lineCap = opts.maxChars + 2;
  const lines: string[] = [];
  let kept = 0;
  let collecting = true;
  let lineNo = 0;
  let cur = "";
  let segChars = false;
  let newlines = 0;
  const finishLine = (byNewline: boolean) => {
    if (collecting && lineNo >= first && lineNo < end) {
      const line = byNewline && cur.endsWith("\r") ? cur.slice(0, -1) : cur;
      lines.push(line);
      kept += line.length + 1;
      if (kept > opts.maxChars) collecting = false;
    }
    cur = "";
    lineNo++;
  };
  try {
    const st = await checkRegular(fh, opts.maxBytes);
    const decoder = new StringDecoder("utf8");
    const buf = Buffer.allocUnsafe(CHUNK);
    let pos = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, CHUNK, pos);
      pos += bytesRead;
      if (bytesRead > 0 && !(collecting && lineNo < end)) {
        // Past the window: only count lines, on the bytes (a newline byte is never inside a UTF-8 character).
        const bytes = buf.subarray(0, bytesRead);
        let last = -1;
        for (let nl = bytes.indexOf(10); nl !== -1; nl = bytes.indexOf(10, nl + 1)) {
          newlines++;
          lineNo++;
          last = nl;
        }
        segChars = last === -1 ? true : last < bytesRead - 1;
        if (pos >= st.size) break;
        continue;
      }
      const piece = bytesRead > 0 ? decoder.write(buf.subarray(0, bytesRead)) : decoder.end();
      let at = 0;
      while (at <= piece.length) {
        const nl = piece.indexOf("\n", at);
        const stop = nl === -1 ? piece.length : nl;
        if (stop > at) segChars = true;
        const wanted = collecting && lineNo >= first && lineNo < end;
        if (wanted && cur.length < lineCap && stop > at)
          cur += piece.slice(at, Math.min(stop, at + lineCap - cur.length));
        if (nl === -1) break;
        newlines++;
        segChars = false;
        finishLine(true);
        at = nl + 1;
      }
      if (bytesRead === 0 || pos >= st.size) {
        if (bytesRead > 0) {
          const tail = decoder.end();
          if (tail) {
            segChars = true;
            if (collecting && lineNo >= first && lineNo < end && cur.length < lineCap) cur += tail;
          }
        }
        break;
      }
    }
    // split() gives newlines + 1 parts; an empty last part after a final newline is not a line.
    if (segChars || newlines === 0) finishLine(false);
    return { lines, totalLines: lineNo };
  } catch (e) {
    if (e instanceof ReadFileError) throw e;
    throw new ReadFileError("unreadable", `unreadable: ${(e as NodeJS.ErrnoException).code ?? e}`);
  } finally {
    await fh.close();
  }
}
