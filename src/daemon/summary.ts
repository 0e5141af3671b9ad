import type { CortexStatus } from "../rpc/protocol.js";

/** The foreground daemon's start-up summary (workspaces, files, chunks, model, socket), for people. */
export function startupSummary(st: CortexStatus): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const files = st.workspaces.reduce((n, w) => n + w.files, 0);
  const chunks = st.workspaces.reduce((n, w) => n + w.chunks, 0);
  const e = st.embedding;
  const model =
    e.state === "ready" ? `model ${e.model} (${e.dims} dims)` : `keyword-only (${e.reason ?? "no embedding model"})`;
  const lines = [
    `cortexd ${st.pid} ready: ${plural(st.workspaces.length, "workspace")}, ${plural(files, "file")}, ${plural(chunks, "chunk")}; ${model}; socket ${st.socketPath}`,
  ];
  for (const w of st.workspaces) {
    const state = w.missing
      ? "MISSING (the fix: `cortexd status`)"
      : `${plural(w.files, "file")}, ${plural(w.chunks, "chunk")}${w.lastError ? `; LAST ERROR: ${w.lastError}` : ""}`;
    lines.push(`  ${w.name}  ${w.root}: ${state}`);
  }
  return lines.join("\n");
}
