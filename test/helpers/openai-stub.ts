import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in OpenAI-compatible model server on 127.0.0.1 (POST /v1/chat/completions, streamed or
 * not) that records every request body. `reply(body)` decides each answer: text, or a tool call.
 */

export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}
export interface ChatRequest {
  model: string;
  stream?: boolean;
  messages: ChatMessage[];
  tools?: { type: string; function: { name: string } }[];
}
export type StubAnswer = { text: string } | { toolCall: { name: string; arguments: Record<string, unknown> } };

export interface OpenAiStub {
  url: string;
  /** Every chat request received, in order. */
  requests: ChatRequest[];
  close(): Promise<void>;
}

/** The text of a message's content (string or [{type:"text", text}] parts). */
export function messageText(m: ChatMessage | undefined): string {
  if (!m) return "";
  if (typeof m.content === "string") return m.content;
  if (Array.isArray(m.content))
    return m.content.map((p: { text?: unknown }) => (typeof p?.text === "string" ? p.text : "")).join("\n");
  return "";
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((res, rej) => {
    let s = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => (s += d));
    req.on("end", () => res(s));
    req.on("error", rej);
  });
}

export async function startOpenAiStub(reply: (body: ChatRequest) => StubAnswer): Promise<OpenAiStub> {
  const requests: ChatRequest[] = [];
  let n = 0;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const raw = req.method === "POST" ? await readBody(req) : "";
      if (req.method === "GET" && req.url?.endsWith("/models")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [{ id: "stub-model", object: "model", owned_by: "stub" }] }));
        return;
      }
      if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `stub: no route ${req.method} ${req.url}` } }));
        return;
      }
      const body = JSON.parse(raw) as ChatRequest;
      requests.push(body);
      const answer = reply(body);
      const id = `chatcmpl-${++n}`;
      const created = Math.floor(Date.now() / 1000);
      const toolCall =
        "toolCall" in answer
          ? {
              index: 0,
              id: `call_${n}`,
              type: "function",
              function: { name: answer.toolCall.name, arguments: JSON.stringify(answer.toolCall.arguments) },
            }
          : null;
      const finish = toolCall ? "tool_calls" : "stop";
      const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
      if (!body.stream) {
        res.writeHead(200, { "content-type": "application/json" });
        const message = toolCall
          ? { role: "assistant", content: null, tool_calls: [toolCall] }
          : { role: "assistant", content: (answer as { text: string }).text };
        res.end(
          JSON.stringify({
            id,
            object: "chat.completion",
            created,
            model: body.model,
            choices: [{ index: 0, message, finish_reason: finish }],
            usage,
          }),
        );
        return;
      }
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        connection: "keep-alive",
      });
      const chunk = (delta: unknown, finish_reason: string | null, extra: object = {}) =>
        res.write(
          `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: body.model, choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`,
        );
      chunk({ role: "assistant", content: "" }, null);
      if (toolCall) chunk({ tool_calls: [toolCall] }, null);
      else chunk({ content: (answer as { text: string }).text }, null);
      chunk({}, finish, { usage });
      res.end("data: [DONE]\n\n");
    })().catch((e: unknown) => {
      res.writeHead(500);
      res.end(String(e));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
