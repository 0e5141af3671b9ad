import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { EmbeddingProvider } from "../provider.js";
import { errorMessage } from "../../util/error-message.js";

/**
 * A local embedding server for tests and the bench: speaks the OpenAI-compatible and the Ollama
 * protocol on 127.0.0.1, computes vectors with any in-process provider (the built-in model), and
 * can inject failures: HTTP errors (with Retry-After), slow responses, wrong dimensions, a dropped
 * connection. Not used by the daemon.
 */
export interface InjectedFault {
  /** HTTP status to answer with (e.g. 429, 500), or "drop" to destroy the socket. */
  status: number | "drop";
  /** Retry-After header value (seconds). */
  retryAfter?: string;
  /** Response body (default a small JSON error). */
  body?: string;
}

export interface RecordedRequest {
  path: string;
  authorization: string | undefined;
  body: { model?: string; input?: string[]; dimensions?: number; input_type?: string; encoding_format?: string };
}

export interface EmbedTestServer {
  url: string;
  requests: RecordedRequest[];
  /** Faults answered to the next requests, one each, in order. */
  faults: InjectedFault[];
  /** Answer every request with this fault until cleared (a server that is down). */
  down: InjectedFault | null;
  /** When set: this many more requests succeed, then every request gets a 503 (until cleared). */
  failAfter: number | null;
  /** Delay before answering (ms). */
  delayMs: number;
  /** Truncate vectors to this many dimensions (a model/dimension change on the server). */
  dims: number | null;
  /** Shuffle the order of `data` in OpenAI responses (clients must sort by `index`). */
  shuffle: boolean;
  /**
   * `encoding_format: "base64"` in OpenAI requests: "support" (base64 float32, as OpenAI does),
   * "ignore" (number arrays anyway), "reject" (HTTP 400, as a strict server would).
   */
  base64: "support" | "ignore" | "reject";
  /** TCP connections accepted so far (keep-alive clients reuse theirs). */
  connections: number;
  /** Time spent computing and serialising answers, up to the write (ms), for the bench's client-overhead figure. */
  serverMs: number;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

export interface EmbedTestServerOptions {
  /** Called when a request arrives. */
  onReceived?: () => void;
  /** Called after each request is answered, with the time the server spent on it (ms; 0 for faults). */
  onServed?: (ms: number) => void;
}

export async function startEmbedTestServer(provider: EmbeddingProvider, opts: EmbedTestServerOptions = {}): Promise<EmbedTestServer> {
  const state: EmbedTestServer = {
    url: "",
    requests: [],
    faults: [],
    down: null,
    failAfter: null,
    delayMs: 0,
    dims: null,
    shuffle: false,
    base64: "support",
    connections: 0,
    serverMs: 0,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    opts.onReceived?.();
    try {
      await answer(req, res);
    } finally {
      opts.onServed?.(lastMs);
      lastMs = 0;
    }
  };

  let lastMs = 0;
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req);
    const t0 = performance.now();
    const path = (req.url ?? "").split("?")[0]!;
    let body: RecordedRequest["body"] = {};
    try {
      body = JSON.parse(raw) as RecordedRequest["body"];
    } catch {
      /* recorded as empty */
    }
    state.requests.push({ path, authorization: req.headers.authorization, body });
    let fault = state.faults.shift() ?? state.down;
    if (!fault && state.failAfter !== null) {
      if (state.failAfter <= 0) fault = { status: 503 };
      else state.failAfter--;
    }
    if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
    if (fault) {
      if (fault.status === "drop") {
        req.socket.destroy();
        return;
      }
      res.writeHead(fault.status, { "content-type": "application/json", ...(fault.retryAfter !== undefined ? { "retry-after": fault.retryAfter } : {}) });
      res.end(fault.body ?? JSON.stringify({ error: { message: `injected ${fault.status}` } }));
      return;
    }
    if (!Array.isArray(body.input) || (path !== "/v1/embeddings" && path !== "/api/embed")) {
      res.writeHead(path === "/v1/embeddings" || path === "/api/embed" ? 400 : 404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "bad request" } }));
      return;
    }
    if (path === "/v1/embeddings" && body.encoding_format !== undefined && state.base64 === "reject") {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "Unrecognized request argument supplied: encoding_format" } }));
      return;
    }
    const vecs = await provider.embedBatch(body.input);
    const dims = state.dims ?? provider.dims;
    const base64 = path === "/v1/embeddings" && body.encoding_format === "base64" && state.base64 === "support";
    const arrays = vecs.map((v) => (v ? v.subarray(0, dims) : new Float32Array(dims)));
    let payload: string;
    if (path === "/api/embed") {
      payload = JSON.stringify({ model: body.model, embeddings: arrays.map((v) => Array.from(v)) });
    } else {
      // base64: the float32s' bytes, little-endian (as OpenAI sends them).
      const encode = (v: Float32Array) => (base64 ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64") : Array.from(v));
      const data = arrays.map((v, index) => ({ object: "embedding", index, embedding: encode(v) }));
      if (state.shuffle) data.reverse();
      payload = JSON.stringify({ object: "list", model: body.model, data, usage: { prompt_tokens: 0, total_tokens: 0 } });
    }
    // Timed up to the response being ready: the write itself (and whatever happens after it) is
    // not server time, so a client-overhead figure derived from this never flatters the client.
    lastMs = performance.now() - t0;
    state.serverMs += lastMs;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(payload);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      res.writeHead(500);
      res.end(String(errorMessage(e)));
    });
  });
  server.on("connection", () => state.connections++);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
