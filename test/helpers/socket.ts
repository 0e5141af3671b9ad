import { createConnection, type Socket } from "node:net";

/** A raw NDJSON connection to a Unix socket, for protocol-level tests. */
export interface NdjsonConn {
  socket: Socket;
  send(text: string): void;
  /** The next line the server sent, parsed as JSON; rejects after timeoutMs, or when the connection closes first. */
  next(timeoutMs?: number): Promise<any>;
  /** Resolves when the connection is closed. */
  closed: Promise<void>;
}

/** Connects (rejects with the socket error, e.g. EAGAIN while the listen backlog is full). */
export function connectNdjson(path: string): Promise<NdjsonConn> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ path });
    socket.once("error", reject);
    socket.once("connect", () => {
      socket.removeListener("error", reject);
      socket.on("error", () => {});
      const lines: string[] = [];
      const waiters: { take: (line: string) => void; fail: (e: Error) => void }[] = [];
      let ended = false;
      let buf = "";
      socket.setEncoding("utf8");
      socket.on("data", (d: string) => {
        buf += d;
        let nl: number;
        while ((nl = buf.indexOf("\n")) !== -1) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          const w = waiters.shift();
          if (w) w.take(line);
          else lines.push(line);
        }
      });
      const closed = new Promise<void>((r) =>
        socket.once("close", () => {
          ended = true;
          for (const w of waiters.splice(0)) w.fail(new Error("connection closed"));
          r();
        }),
      );
      resolve({
        socket,
        send: (t) => void socket.write(t),
        next: (timeoutMs = 30_000) => {
          const l = lines.shift();
          if (l !== undefined) return Promise.resolve(JSON.parse(l));
          if (ended) return Promise.reject(new Error("connection closed"));
          return new Promise((res, rej) => {
            const t = setTimeout(() => rej(new Error("no response in time")), timeoutMs);
            waiters.push({
              take: (x) => {
                clearTimeout(t);
                res(JSON.parse(x));
              },
              fail: (e) => {
                clearTimeout(t);
                rej(e);
              },
            });
          });
        },
        closed,
      });
    });
  });
}

/** Sends raw text on a new connection and collects `n` response lines (fewer when the server closes first). */
export async function exchange(path: string, payload: string, n: number): Promise<unknown[]> {
  const c = await connectNdjson(path);
  c.send(payload);
  const out: unknown[] = [];
  try {
    while (out.length < n) out.push(await c.next());
  } catch {
    // closed by the server before n lines: what arrived is the answer
  }
  c.socket.end();
  return out;
}
