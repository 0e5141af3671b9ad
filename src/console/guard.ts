import type { IncomingMessage } from "node:http";
import { sameSecret, type ConsoleSecrets } from "./secrets.js";

/**
 * Who may talk to the console, checked on every request before anything else runs: the Host header
 * names the loopback address and port it listens on (a DNS-rebinding page's host does not), an Origin
 * (when sent) is the console's own, the cookie holds this daemon start's token, and the one write
 * carries the CSRF token and comes from the console's own page.
 */

export interface Refusal {
  status: 401 | 403;
  message: string;
}

/** The host[:port] names a browser may use for the console. */
export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

/** Cookie name: per port, as cookies are shared between the ports of one host. */
export function cookieName(port: number): string {
  return `cortexd_console_${port}`;
}

/** The value of one cookie in a Cookie header (first of that name). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header || header.length > 8192) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Host and Origin (and the browser's Sec-Fetch-Site): null when the request may go on. */
export function checkOrigin(req: IncomingMessage, port: number): Refusal | null {
  const hosts = allowedHosts(port);
  const host = req.headers.host;
  if (!host || !hosts.has(host.toLowerCase()))
    return { status: 403, message: `wrong Host header: the console answers only at http://127.0.0.1:${port}/` };
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const ok = [...hosts].some((h) => origin.toLowerCase() === `http://${h}`);
    if (!ok) return { status: 403, message: "cross-origin request refused" };
  }
  const site = req.headers["sec-fetch-site"];
  if (site === "cross-site" && req.url?.startsWith("/api/"))
    return { status: 403, message: "cross-site request refused" };
  return null;
}

/** The token: from the cookie, or (first visit) from the `token` query parameter. */
export function checkToken(req: IncomingMessage, url: URL, port: number, secrets: ConsoleSecrets): Refusal | null {
  const fromCookie = cookieValue(req.headers.cookie, cookieName(port));
  if (sameSecret(secrets.token, fromCookie) || sameSecret(secrets.token, url.searchParams.get("token"))) return null;
  return {
    status: 401,
    message: "no valid console token: open the console with `cortexd ui` (the token changes at each daemon start)",
  };
}

/** The one write: same-origin (Origin required), with the CSRF token in its header. */
export function checkWrite(req: IncomingMessage, port: number, secrets: ConsoleSecrets): Refusal | null {
  const origin = req.headers.origin;
  if (!origin || ![...allowedHosts(port)].some((h) => origin.toLowerCase() === `http://${h}`))
    return { status: 403, message: "a write must come from the console's own page (Origin missing or foreign)" };
  if (!sameSecret(secrets.csrf, req.headers["x-cortexd-csrf"]))
    return { status: 403, message: "missing or wrong CSRF token: reload the console page" };
  return null;
}
