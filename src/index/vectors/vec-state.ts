/** chunks.vec_state: not embedded yet, vector stored, nothing embeddable (a leaf: the repositories that write chunks and vectors share it). */
export const VEC_PENDING = 0;
export const VEC_STORED = 1;
export const VEC_NONE = 2;
