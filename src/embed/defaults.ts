/** Context size used when none is configured; both the node-llama-cpp path and the fast path truncate to it. */
export const DEFAULT_CONTEXT = 2048;
