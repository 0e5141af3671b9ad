import { createHash } from "node:crypto";

/** Block size of the chained content hash. */
export const HASH_BLOCK = 4 * 1024;

export interface HashState {
  /** Byte offset of the last full block boundary. */
  offset: number;
  /** Chain state (32 bytes) after the blocks before `offset`. */
  state: Buffer;
}

export interface ChainedHash {
  /** Hex content hash of the whole input. */
  hash: string;
  /** Where to resume hashing after an append. */
  resume: HashState;
}

export const INITIAL_HASH_STATE: HashState = { offset: 0, state: Buffer.alloc(32) };

/**
 * A content hash that can be extended when a file grows without re-reading it: the file is cut into
 * 64 KiB blocks, state_i = sha256(state_{i-1} ‖ block_i), hash = sha256(state_n ‖ remainder). It depends
 * only on the content, so an appended file and the same file read whole hash identically.
 *
 * `data` holds the bytes from `from.offset` on.
 */
export function chainedHash(data: Uint8Array, from: HashState = INITIAL_HASH_STATE): ChainedHash {
  let state = from.state;
  let pos = 0;
  while (data.length - pos >= HASH_BLOCK) {
    state = createHash("sha256")
      .update(state)
      .update(data.subarray(pos, pos + HASH_BLOCK))
      .digest();
    pos += HASH_BLOCK;
  }
  const hash = createHash("sha256").update(state).update(data.subarray(pos)).digest("hex");
  return { hash, resume: { offset: from.offset + pos, state } };
}

/**
 * chainedHash over several turns of the event loop, `sliceBytes` (a multiple of HASH_BLOCK) per
 * turn, so hashing a huge file does not hold the loop (50 MB took ~0.1 s in one piece).
 */
export async function chainedHashInTurns(data: Uint8Array, sliceBytes = 1024 * HASH_BLOCK): Promise<ChainedHash> {
  let from = INITIAL_HASH_STATE;
  let pos = 0;
  while (data.length - pos > sliceBytes) {
    from = chainedHash(data.subarray(pos, pos + sliceBytes), from).resume;
    pos += sliceBytes;
    await new Promise<void>((r) => setImmediate(r));
  }
  return chainedHash(data.subarray(pos), from);
}
