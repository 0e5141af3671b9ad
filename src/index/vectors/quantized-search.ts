/**
 * Search past the in-memory matrix, on the quantized codes (vector-codes.ts): the codes' best
 * candidates, of which the first QUANTIZED_EXACT are rescored against the float vectors and the
 * rest keep their codes' cosine; and the similarities of chunks outside the nearest (the keyword
 * leg's candidates) from the codes. `exact` reads float vectors from the index (~15–20 µs each).
 */
import type { QuantizedVectors } from "./vector-codes.js";
import { QUANTIZED_EXACT, QUANTIZED_OVERSAMPLE } from "./vector-limits.js";

type Distances = { id: number; distance: number }[];
type ExactDistances = (query: Float32Array, ids: readonly number[]) => Distances;

/** The k nearest by the codes (coarse: sign-code candidates scored with the int8 codes). */
export function quantizedNearest(
  codes: QuantizedVectors,
  query: Float32Array,
  k: number,
  coarse: number,
  exact: ExactDistances,
): Distances {
  const candidates = codes.nearest(query, Math.max(coarse, k), k * QUANTIZED_OVERSAMPLE);
  // An id deleted since the codes were read has no row and drops out of the exact part.
  const out = [
    ...exact(query, candidates.slice(0, QUANTIZED_EXACT)),
    ...codes.approxDistances(query, candidates.slice(QUANTIZED_EXACT)),
  ];
  return out.sort((a, b) => a.distance - b.distance || a.id - b.id).slice(0, k);
}

/** The distances of these chunks by their codes; a chunk without a code yet reads its float vector. */
export function codedDistances(
  codes: QuantizedVectors,
  query: Float32Array,
  ids: readonly number[],
  exact: ExactDistances,
): Distances {
  const coded = codes.approxDistances(query, ids);
  if (coded.length === ids.length) return coded;
  const have = new Set(coded.map((d) => d.id));
  return [
    ...coded,
    ...exact(
      query,
      ids.filter((id) => !have.has(id)),
    ),
  ];
}
