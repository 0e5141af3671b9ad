import { PassThrough, type Readable, type Writable } from "node:stream";
import { errorMessage } from "../util/error-message.js";

/**
 * What reaches the MCP SDK's stdio transport: one JSON-RPC message per line, each one it can take.
 * The SDK drops (or dies on) the rest without a word: a line past its buffer closes the server,
 * a request whose params are not an object gets no reply, `tools/call` with `arguments: null` is
 * answered -32603 with a raw schema dump. Those are answered here, per JSON-RPC 2.0, and logged:
 * a line longer than `maxLineBytes` (discarded up to its newline) or not JSON → -32700 (id null);
 * a request whose params are not an object, or a tools/call whose arguments are neither an
 * object nor absent → -32602 naming what was wrong.
 */
export const MAX_MCP_LINE_BYTES = 4 * 1024 * 1024;

export interface FramingGuard {
  /** The lines that pass, for the SDK's transport. */
  readable: Readable;
}

type Answer = { code: number; message: string; id: string | number | null };

export function guardMcpInput(
  input: Readable,
  output: Writable,
  log: (message: string) => void,
  maxLineBytes = MAX_MCP_LINE_BYTES,
): FramingGuard {
  const readable = new PassThrough();
  let parts: Buffer[] = [];
  let pending = 0;
  /** Inside a line already answered as too long: drop bytes up to its newline. */
  let discarding = false;

  const answer = ({ code, message, id }: Answer) => {
    log(`mcp: ${message} (answered ${code})`);
    output.write(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }) + "\n");
  };
  const tooLong = () =>
    answer({
      code: -32700,
      id: null,
      message: `a message line longer than ${maxLineBytes} bytes was discarded: send one JSON-RPC message per line, each ending in a newline`,
    });

  const onLine = (line: Buffer) => {
    const text = line.toString("utf8").replace(/\r$/, "");
    if (text.trim() === "") return;
    const problem = check(text);
    if (problem) answer(problem);
    else readable.write(text + "\n");
  };

  input.on("data", (chunk: Buffer) => {
    let from = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, from)) {
      if (discarding) discarding = false;
      else {
        parts.push(chunk.subarray(from, nl));
        onLine(Buffer.concat(parts));
      }
      parts = [];
      pending = 0;
      from = nl + 1;
    }
    if (discarding || from >= chunk.length) return;
    parts.push(chunk.subarray(from));
    pending += chunk.length - from;
    if (pending > maxLineBytes) {
      parts = [];
      pending = 0;
      discarding = true;
      tooLong();
    }
  });
  input.on("end", () => {
    if (!discarding && pending > 0) onLine(Buffer.concat(parts));
    readable.end();
  });
  input.on("error", (e) => readable.destroy(e));
  return { readable };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** What is wrong with one line, or null when the SDK can take it. */
function check(text: string): Answer | null {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch (e) {
    return { code: -32700, id: null, message: `not JSON: ${errorMessage(e)}` };
  }
  if (!isObject(msg) || typeof msg.method !== "string") return null; // responses, batches: the SDK's
  const id = typeof msg.id === "string" || typeof msg.id === "number" ? msg.id : null;
  if (id === null) return null; // a notification gets no answer
  if (msg.params !== undefined && !isObject(msg.params))
    return {
      code: -32602,
      id,
      message: `${msg.method}: params must be an object (by name), not ${Array.isArray(msg.params) ? "an array" : typeof msg.params}`,
    };
  if (msg.method === "tools/call" && isObject(msg.params)) {
    const args = msg.params.arguments;
    if (args !== undefined && !isObject(args))
      return {
        code: -32602,
        id,
        message: `tools/call: arguments must be an object of the tool's parameters (or left out), not ${args === null ? "null" : Array.isArray(args) ? "an array" : typeof args}`,
      };
  }
  return null;
}
