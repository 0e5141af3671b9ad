// Generated from src/client/shared.ts by scripts/openclaw/gen-client.ts: do not edit.
import { RpcConnection } from "./connection.js";
import { DaemonUnavailableError } from "./errors.js";
export function sharedClient(opts) {
    let connection;
    let connecting;
    const connect = () => {
        if (connection && !connection.closed)
            return Promise.resolve(connection);
        connecting ??= RpcConnection.connect(opts.socketPath, {
            timeoutMs: opts.connectTimeoutMs ?? 1000,
            unrefWhenIdle: true,
        })
            .then((c) => (connection = c))
            .finally(() => (connecting = undefined));
        return connecting;
    };
    return {
        socketPath: opts.socketPath,
        async call(method, params, o = {}) {
            const timeoutMs = o.timeoutMs ?? 5000;
            const started = Date.now();
            const c = await within(connect(), timeoutMs, opts.socketPath);
            return c.call(method, params, { timeoutMs: Math.max(1, timeoutMs - (Date.now() - started)) });
        },
        async notify(method, params) {
            (await connect()).notify(method, params);
        },
        async warm() {
            await connect();
        },
        close() {
            connection?.close();
            connection = undefined;
        },
    };
}
function within(p, ms, socketPath) {
    return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new DaemonUnavailableError("timeout", `timed out connecting to cortexd at ${socketPath}`)), ms);
        p.then((v) => {
            clearTimeout(t);
            resolve(v);
        }, (e) => {
            clearTimeout(t);
            reject(e instanceof Error ? e : new Error(String(e)));
        });
    });
}
