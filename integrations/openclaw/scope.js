// @ts-check
/**
 * Private or group conversation, from OpenClaw's hook context (agentId, sessionKey, channel,
 * chatId, senderId, trigger). Group chats never see the curated MEMORY.md/USER.md.
 *
 * Session keys name the peer kind: `agent:main:main` (the main, private session),
 * `agent:main:telegram:direct:123`, `agent:main:slack:direct:U123:thread:1700000000.1` (a thread in
 * a DM is still private), `agent:main:telegram:group:-100123`, `agent:main:discord:channel:42`.
 * Without a kind in the key, a channel conversation is private only when its chat is the sender's
 * own (chatId = senderId); anything unclear is treated as a group (hiding is the safe side).
 */

const PRIVATE_KIND = /:(direct|dm|private)s?:/i;
const GROUP_KIND = /:(group|channel|room|guild|space)s?:/i;

/**
 * @param {"auto" | "private" | "group"} configured
 * @param {any} ctx the hook context
 * @returns {"private" | "group"}
 */
export function scopeFor(configured, ctx) {
  if (configured === "private" || configured === "group") return configured;
  const key = typeof ctx?.sessionKey === "string" ? ctx.sessionKey : "";
  // The kind is the segment after the channel: agent:<agent>:<channel>:<kind>:<peer>[:thread:<id>].
  const head = key.split(/:thread:/i)[0] ?? "";
  if (PRIVATE_KIND.test(`${head}:`)) return "private";
  if (GROUP_KIND.test(`${head}:`)) return "group";
  const channel = typeof ctx?.channel === "string" ? ctx.channel : "";
  if (!channel || channel === "webchat" || channel === "cli") return "private";
  const chat = ctx?.chatId ?? ctx?.channelId;
  if (chat !== undefined && ctx?.senderId !== undefined && String(chat) === String(ctx.senderId)) return "private";
  return "group";
}
