/** The provider status reason while the daemon loads its model at start-up (normal, not a failure). */
export const MODEL_LOADING_REASON = "embedding model loading";
