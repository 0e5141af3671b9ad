// @ts-check
/**
 * Private or group conversation, from OpenClaw's hook or tool context (sessionKey, channel, chatId,
 * senderId). A group conversation reads in group scope: it never sees MEMORY.md/USER.md, a private
 * session's memories or another group's (docs/security.md in cortexd).
 *
 * The session key names the peer kind at a fixed place (cortexd's own rule, vendored from
 * src/visibility/session-kind.ts): `agent:main:main` and `agent:main:telegram:direct:42` are private,
 * `agent:main:telegram:group:-100123` and `agent:main:discord:channel:42` groups; what follows the kind
 * (a peer id that reads `dm`, a thread) never changes it. A key without a kind there is unknown:
 * private only when the gateway says the chat is the sender's own (chatId = senderId), or for the
 * owner's own surfaces (webchat, cli) without a key; anything else is a group (the safe side).
 */
import { sessionKind } from "./vendor/visibility/session-kind.js";

/**
 * @param {"auto" | "private" | "group"} configured
 * @param {any} ctx the hook or tool context
 * @returns {"private" | "group"}
 */
export function scopeFor(configured, ctx) {
  if (configured === "private" || configured === "group") return configured;
  const key = typeof ctx?.sessionKey === "string" ? ctx.sessionKey : "";
  const k = key ? sessionKind(key) : { kind: "unknown" };
  if (k.kind === "private" || k.kind === "group") return k.kind;
  const chat = ctx?.chatId ?? ctx?.channelId ?? ctx?.nativeChannelId;
  const sender = ctx?.senderId ?? ctx?.requesterSenderId;
  if (chat !== undefined && sender !== undefined && String(chat) === String(sender)) return "private";
  const channel = typeof ctx?.channel === "string" ? ctx.channel : (ctx?.messageChannel ?? "");
  if (!key && (channel === "webchat" || channel === "cli")) return "private";
  return "group";
}

/**
 * What a call to cortexd says about the conversation: its scope, and in a group the session key, so
 * the group also sees its own memories (and nobody else's).
 * @param {"auto" | "private" | "group"} configured
 * @param {any} ctx
 * @returns {{ scope: "private" | "group", group?: string }}
 */
export function scopeParams(configured, ctx) {
  const scope = scopeFor(configured, ctx);
  const key = typeof ctx?.sessionKey === "string" ? ctx.sessionKey : "";
  return scope === "group" && key ? { scope, group: key } : { scope };
}
