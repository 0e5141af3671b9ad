import path from "node:path";
import { sha256File } from "../util/hash.js";

/**
 * The identity of vectors made from a local GGUF file (the llama.cpp provider and the built-in
 * static one share it, and with it the vector cache): `local:<file name>:<sha256 prefix>`.
 */
export function localModelIdentity(file: string, sha256: string): string {
  return `local:${path.basename(file)}:${sha256.slice(0, 16)}`;
}

/** localModelIdentity of a file on disk, from its bytes (hashing only: the model is not loaded). */
export async function localModelFileIdentity(file: string): Promise<string> {
  return localModelIdentity(file, await sha256File(file));
}
