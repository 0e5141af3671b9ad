/** How values are stored as blobs: content hashes as 32 raw bytes, vectors as float32 in platform byte order. */

/** Content hashes are stored as 32-byte blobs (half the size of hex text). */
export function hexToBlob(hex: string): Buffer {
  return Buffer.from(hex, "hex");
}

/** A float32 blob as a Float32Array (a view when aligned, else a copy; platform byte order, as toBlob writes it). */
export function floatView(b: Buffer): Float32Array {
  if (b.byteOffset % 4 === 0) return new Float32Array(b.buffer, b.byteOffset, b.byteLength >>> 2);
  return new Float32Array(Uint8Array.from(b).buffer);
}

export function toBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** A float32 blob as a Float32Array of its own (a copy). */
export function fromBlob(b: Buffer): Float32Array {
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return new Float32Array(copy.buffer);
}
