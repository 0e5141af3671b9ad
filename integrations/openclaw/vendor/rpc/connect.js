// Generated from src/rpc/connect.ts by scripts/openclaw/gen-client.ts: do not edit.
import { createConnection } from "node:net";
/** Connects to a Unix socket; rejects with the errno error, or an ETIMEDOUT error after timeoutMs. */
export function connectUnix(socketPath, timeoutMs) {
    return new Promise((resolve, reject) => {
        const socket = createConnection({ path: socketPath });
        const timer = setTimeout(() => {
            socket.destroy();
            reject(Object.assign(new Error(`connect ETIMEDOUT ${socketPath}`), { code: "ETIMEDOUT" }));
        }, timeoutMs);
        const onError = (err) => {
            clearTimeout(timer);
            socket.destroy();
            reject(err);
        };
        socket.once("error", onError);
        socket.once("connect", () => {
            clearTimeout(timer);
            socket.off("error", onError);
            resolve(socket);
        });
    });
}
/**
 * Does something accept connections on this path? "dead" for ENOENT/ECONNREFUSED/ENOTSOCK (nothing
 * listening: a stale socket or a plain file), "unknown" for anything else (e.g. a timeout: busy, not dead).
 */
export async function socketLiveness(socketPath, timeoutMs = 1000) {
    try {
        const s = await connectUnix(socketPath, timeoutMs);
        s.destroy();
        return { state: "up" };
    }
    catch (err) {
        const code = err.code;
        if (code === "ENOENT" || code === "ECONNREFUSED" || code === "ENOTSOCK")
            return { state: "dead", code };
        return code === undefined ? { state: "unknown" } : { state: "unknown", code };
    }
}
