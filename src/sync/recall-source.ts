import type { RecallResult, RecalledMemory } from "../rpc/protocol.js";

/**
 * Where a recalled memory came from: every memory carries its workspace; one from a team's
 * (shared) workspace also says so and who wrote it (the `#by/<user>/<device>` tag its bullet
 * carries). The injected block names the team workspace before the path (recall's workspaceLabel,
 * counted in its budget), so a model can tell the team's memory from the user's own.
 */
const BY_TAG = /#by\/([A-Za-z0-9_-]{1,64})\/([A-Za-z0-9_-]{1,64})/;

export function labelSources(ws: { name: string; shared?: boolean }, res: RecallResult): RecallResult {
  const memories: RecalledMemory[] = res.memories.map((m) => {
    const by = ws.shared ? BY_TAG.exec(m.text) : null;
    return {
      ...m,
      source: {
        workspace: ws.name,
        ...(ws.shared ? { shared: true as const } : {}),
        ...(by ? { by: `${by[1]}@${by[2]}` } : {}),
      },
    };
  });
  return { ...res, memories };
}
