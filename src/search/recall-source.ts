import type { RecallLines } from "./recall-format.js";

/**
 * Where a recalled memory came from: every memory carries its workspace; one from a team's
 * (shared) workspace also says so and whom its bullet names as its writer (the `#by/<user>/<device>`
 * tag cortexd adds when it saves there). That tag is text like any other: a teammate who can write
 * the file can write any member's tag, so it is shown as what it is, `claimedBy` — a claim, never
 * an attribution (git's history of the file says who committed a line). The injected block names the team workspace before the path (recall's workspaceLabel,
 * counted in its budget), so a model can tell the team's memory from the user's own.
 */
const BY_TAG = /#by\/([A-Za-z0-9_-]{1,64})\/([A-Za-z0-9_-]{1,64})/;

export function labelSources(ws: { name: string; shared?: boolean }, res: RecallLines): RecallLines {
  const lines = res.lines.map((line) => {
    const m = line.memory;
    const by = ws.shared ? BY_TAG.exec(m.text) : null;
    const source = {
      workspace: ws.name,
      ...(ws.shared ? { shared: true as const } : {}),
      ...(by ? { claimedBy: `${by[1]}@${by[2]}` } : {}),
    };
    return { ...line, memory: { ...m, source } };
  });
  return { ...res, lines };
}
