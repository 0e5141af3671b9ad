/** Vectors as stored by sqlite-vec: little-endian float32 blobs. */
export function toBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** A stored vector blob as a Float32Array (copied: the blob's buffer may be unaligned or reused). */
export function fromBlob(b: Buffer): Float32Array {
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return new Float32Array(copy.buffer);
}
