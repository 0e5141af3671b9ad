import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";

export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * A chunk's content hash: the first 128 bits of sha256(text), as 32 hex digits (stored as 16 bytes).
 * Ample for identifying texts in one index and its embedding cache, at half the storage.
 */
export function chunkHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}

/** sha256 of a file, streamed. */
export async function sha256File(path: string): Promise<string> {
  const h = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>)
    h.update(chunk);
  return h.digest("hex");
}
