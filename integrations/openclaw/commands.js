// @ts-check
/**
 * Chat commands (api.registerCommand: they answer without a model turn), each with one short line:
 *   /checkpoint            save a deterministic summary of the session's recent turns to today's
 *                          daily log (searchable; the next session's recovery note quotes it)
 *   /checkpoint <summary>  save that summary instead
 *   /sleep                 end the session cleanly: the next one starts without a recovery note
 *   /cortex                cortexd's status
 * (/audit is added by the audit log's own module, next to these.)
 */
import { isUnavailable } from "./client.js";
import { sessionIdOf } from "./sessions.js";

/** @param {unknown} e */
function unavailable(e) {
  const why = e instanceof Error ? e.message : String(e);
  return isUnavailable(e)
    ? `cortexd is not available (${why}); start it with \`cortexd start\`.`
    : `cortexd refused: ${why}`;
}

/**
 * @param {{
 *   call: (method: string, params: Record<string, unknown>, timeoutMs: number) => Promise<any>,
 *   sessions: ReturnType<typeof import("./sessions.js").createSessions>,
 *   ws: Record<string, string>,
 *   toolTimeoutMs: number,
 *   statusLine: () => Promise<string>,
 * }} deps
 * @returns {{ name: string, description: string, acceptsArgs?: boolean, handler: (ctx: any) => Promise<{ text: string }> }[]}
 */
export function chatCommands(deps) {
  return [
    {
      name: "checkpoint",
      description: "Save a summary of this session to memory (cortexd); /checkpoint <summary> to write your own",
      acceptsArgs: true,
      handler: async (ctx) => {
        const sid = sessionIdOf(ctx);
        if (!sid) return { text: "No session to checkpoint here." };
        const given = typeof ctx?.args === "string" ? ctx.args.trim() : "";
        const summary = given || deps.sessions.summary(sid);
        try {
          const r = await deps.call(
            "session.checkpoint",
            { session_id: sid, ...(summary ? { summary: summary.slice(0, 4000) } : {}), ...deps.ws },
            deps.toolTimeoutMs,
          );
          if (r.stored) return { text: `Checkpoint saved to ${r.path}${r.startLine ? `#L${r.startLine}` : ""}.` };
          if (r.duplicateOf) return { text: `Checkpoint unchanged: the same one is already in ${r.duplicateOf}.` };
          return { text: "Nothing to checkpoint yet: this session has no turns cortexd knows of." };
        } catch (e) {
          return { text: `Checkpoint not saved: ${unavailable(e)}` };
        }
      },
    },
    {
      name: "sleep",
      description: "End this session cleanly (cortexd): the next session starts without a recovery note",
      handler: async (ctx) => {
        const sid = sessionIdOf(ctx);
        if (!sid) return { text: "No session to end here." };
        try {
          await deps.call("session.sleep", { session_id: sid, checkpoint: false, ...deps.ws }, deps.toolTimeoutMs);
          deps.sessions.end(sid);
          return { text: "Session ended cleanly; the next one starts without a recovery note." };
        } catch (e) {
          return { text: `Session not ended: ${unavailable(e)}` };
        }
      },
    },
    {
      name: "cortex",
      description: "cortexd memory status",
      handler: async () => ({ text: await deps.statusLine() }),
    },
  ];
}
