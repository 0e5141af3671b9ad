/** The bounds and batch sizes of the vector repository (vector-repo.ts). */
import { matrixBytesPerVector } from "./vector-matrix.js";

/**
 * Bytes of vectors up to which search holds them all in memory (vector-matrix.ts, matrixBytesPerVector
 * each: 150,000 vectors of the built-in model's 100 dims, ~81 MB; ~15,700 of 1,024 dims); larger
 * indexes scan the quantized codes (116 bytes each at 100 dims) and lose exactness.
 */
export const MEMORY_MATRIX_MAX_BYTES = 150_000 * matrixBytesPerVector(100);
/** Candidates taken by Hamming distance of the sign codes, then scored with the int8 codes. */
export const QUANTIZED_COARSE = 12_000;
/** Candidates (× k) taken from the int8 scores … */
export const QUANTIZED_OVERSAMPLE = 2;
/**
 * … of which the best this-many are rescored exactly against the float vectors (all of a search's
 * default 24 × 2). The rest, and the keyword candidates' similarities, take the cosine of their
 * int8 codes, read in memory: a float vector read from SQLite costs ~15–20 µs warm, and recall's
 * deeper pool asked ~360 a request at a million chunks.
 */
export const QUANTIZED_EXACT = 48;
/** Vectors sampled to fit the quantizer. */
export const QUANTIZER_SAMPLE = 20_000;
/** Written ids the loaded matrix is patched with, at least, before a reload is cheaper (else a quarter of its rows). */
export const TOUCHED_PATCH_MIN = 4096;
/** Written ids beyond which the loaded codes are reloaded rather than patched one by one. */
export const TOUCHED_RELOAD = 100_000;
/** The quantizer is fitted (and codes written) once an index has this many vectors. */
export const QUANTIZER_MIN_VECTORS = 2_000;
