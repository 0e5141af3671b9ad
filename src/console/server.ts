import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { errorMessage } from "../util/error-message.js";
import { getRoutes, postPromote, type ApiDeps } from "./api.js";
import type { Asset } from "./assets.js";
import { ConsoleCallError } from "./calls.js";
import { checkOrigin, checkToken, checkWrite, cookieName, type Refusal } from "./guard.js";
import type { ConsoleSecrets } from "./secrets.js";

/**
 * The console's HTTP server (Node's http): loopback only, every request checked (guard.ts) before
 * anything is served, a strict CSP (scripts and styles from the console itself, no inline script),
 * JSON from the API routes, the page's files from memory.
 */

export interface ConsoleServerOptions {
  port: number;
  secrets: ConsoleSecrets;
  assets: Map<string, Asset>;
  api: Omit<ApiDeps, "csrf">;
  logger: Logger;
}

export interface ConsoleServer {
  port: number;
  url: string;
  close(): Promise<void>;
}

/** The address it listens on: the IPv4 loopback (the URL the CLI opens names it). */
export const CONSOLE_HOST = "127.0.0.1";
const MAX_BODY = 4096;
/** API calls running at once (each is bounded by its method's own caps); more wait for a 503 retry. */
const MAX_INFLIGHT = 8;

const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Cache-Control": "no-store",
};

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { ...SECURITY_HEADERS, "Content-Type": type, "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, "application/json; charset=utf-8", JSON.stringify(value));
}

function refuse(res: ServerResponse, r: Refusal, api: boolean): void {
  if (api) sendJson(res, r.status, { error: r.message });
  else send(res, r.status, "text/plain; charset=utf-8", `${r.status === 401 ? "401" : "403"}: ${r.message}\n`);
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new ConsoleCallError(413, `request body over ${MAX_BODY} bytes`));
        req.destroy();
      } else parts.push(c);
    });
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(parts).toString("utf8") || "null"));
      } catch {
        reject(new ConsoleCallError(400, "request body is not JSON"));
      }
    });
    req.on("error", reject);
  });
}

export async function startConsoleServer(o: ConsoleServerOptions): Promise<ConsoleServer> {
  let port = o.port;
  const routes = getRoutes({ ...o.api, csrf: o.secrets.csrf });
  let inflight = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", `http://${CONSOLE_HOST}:${port}`);
    const isApi = url.pathname.startsWith("/api/");
    const origin = checkOrigin(req, port);
    if (origin) return refuse(res, origin, isApi);
    const token = checkToken(req, url, port, o.secrets);
    if (token) return refuse(res, token, isApi);
    if (url.searchParams.has("token")) {
      // First visit: the token moves into an HttpOnly, SameSite=Strict cookie and out of the address bar.
      res.writeHead(303, {
        ...SECURITY_HEADERS,
        "Set-Cookie": `${cookieName(port)}=${o.secrets.token}; HttpOnly; SameSite=Strict; Path=/`,
        Location: "/",
      });
      return void res.end();
    }
    if (!isApi) {
      if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "text/plain", "405: GET only\n");
      const name = url.pathname === "/" ? "index.html" : url.pathname.replace(/^\/assets\//, "");
      const asset = url.pathname === "/" || url.pathname.startsWith("/assets/") ? o.assets.get(name) : undefined;
      if (!asset) return send(res, 404, "text/plain; charset=utf-8", "404: not found\n");
      return send(res, 200, asset.type, asset.body);
    }
    if (inflight >= MAX_INFLIGHT) return sendJson(res, 503, { error: "the console is busy: try again" });
    inflight++;
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    try {
      if (url.pathname === "/api/promote") {
        if (req.method !== "POST") return sendJson(res, 405, { error: "POST only" });
        const w = checkWrite(req, port, o.secrets);
        if (w) return refuse(res, w, true);
        return sendJson(
          res,
          200,
          await postPromote({ ...o.api, csrf: o.secrets.csrf }, await readBody(req), abort.signal),
        );
      }
      const route = routes.get(url.pathname);
      if (!route) return sendJson(res, 404, { error: `no such endpoint: ${url.pathname.slice(0, 100)}` });
      if (req.method !== "GET") return sendJson(res, 405, { error: "GET only" });
      sendJson(res, 200, await route(url.searchParams, abort.signal));
    } finally {
      inflight--;
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      const status = e instanceof ConsoleCallError ? e.status : 500;
      if (status === 500) o.logger.warn({ err: errorMessage(e) }, "console request failed");
      if (!res.headersSent) sendJson(res, status, { error: errorMessage(e) ?? String(e) });
      else res.destroy();
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;
  server.maxHeadersCount = 50;
  server.maxConnections = 64;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: CONSOLE_HOST, port: o.port }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://${CONSOLE_HOST}:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
