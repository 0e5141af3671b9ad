// Generated from src/client/connection.ts by scripts/openclaw/gen-client.ts: do not edit.
import { connectUnix } from "../rpc/connect.js";
import { DaemonUnavailableError, RpcError, connectError } from "./errors.js";
export class RpcConnection {
    socket;
    socketPath;
    opts;
    pending = new Map();
    closedError;
    /** An error the daemon sent with id null (e.g. request too large) just before hanging up. */
    lastConnectionError;
    buf = [];
    bufBytes = 0;
    idCounter = 0;
    constructor(socket, socketPath, opts) {
        this.socket = socket;
        this.socketPath = socketPath;
        this.opts = opts;
        socket.on("data", (chunk) => this.onData(chunk));
        socket.on("error", (err) => {
            this.shutdown(this.lastConnectionError ??
                new DaemonUnavailableError("closed", `connection to cortexd failed: ${err.message}`, err.code));
        });
        socket.on("close", () => {
            this.shutdown(this.lastConnectionError ?? new DaemonUnavailableError("closed", "cortexd closed the connection"));
        });
        if (opts.unrefWhenIdle)
            socket.unref();
    }
    /** Connects; rejects with DaemonUnavailableError (no-socket, stale-socket, permission, timeout, error). */
    static async connect(socketPath, opts = {}) {
        const timeoutMs = opts.timeoutMs ?? 5000;
        let socket;
        try {
            socket = await connectUnix(socketPath, timeoutMs > 0 ? timeoutMs : 5000);
        }
        catch (err) {
            throw connectError(socketPath, err);
        }
        return new RpcConnection(socket, socketPath, {
            timeoutMs,
            maxResponseBytes: opts.maxResponseBytes ?? 64 * 1024 * 1024,
            unrefWhenIdle: opts.unrefWhenIdle ?? false,
        });
    }
    /** Calls a method; resolves with its result. */
    call(method, params, opts = {}) {
        if (this.closedError)
            return Promise.reject(this.closedError);
        const timeoutMs = opts.timeoutMs ?? this.opts.timeoutMs;
        const id = ++this.idCounter;
        return new Promise((resolve, reject) => {
            const timer = timeoutMs > 0 && Number.isFinite(timeoutMs)
                ? setTimeout(() => {
                    this.settle(id);
                    reject(new DaemonUnavailableError("timeout", `cortexd did not answer ${method} within ${timeoutMs} ms`));
                }, timeoutMs)
                : undefined;
            this.pending.set(id, { resolve, reject, timer });
            if (this.opts.unrefWhenIdle)
                this.socket.ref();
            this.socket.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
        });
    }
    /** A notification (no reply): the daemon runs it even after we hang up. */
    notify(method, params) {
        if (this.closedError)
            return;
        this.socket.write(JSON.stringify({ jsonrpc: "2.0", method, params }) + "\n");
    }
    /** Closes the connection; calls still pending reject with DaemonUnavailableError("closed"). */
    close() {
        this.shutdown(new DaemonUnavailableError("closed", "client closed"));
    }
    get closed() {
        return this.closedError !== undefined;
    }
    settle(id) {
        const p = this.pending.get(id);
        if (!p)
            return undefined;
        this.pending.delete(id);
        if (p.timer)
            clearTimeout(p.timer);
        if (this.opts.unrefWhenIdle && this.pending.size === 0)
            this.socket.unref();
        return p;
    }
    shutdown(err) {
        if (this.closedError)
            return;
        this.closedError = err;
        this.socket.destroy();
        for (const id of [...this.pending.keys()])
            this.settle(id)?.reject(err);
    }
    onData(chunk) {
        let start = 0;
        for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
            const piece = chunk.subarray(start, nl);
            start = nl + 1;
            const line = this.bufBytes ? Buffer.concat([...this.buf, piece]) : piece;
            this.buf = [];
            this.bufBytes = 0;
            this.onLine(line.toString("utf8"));
            if (this.closedError)
                return;
        }
        if (start < chunk.length) {
            this.bufBytes += chunk.length - start;
            if (this.bufBytes > this.opts.maxResponseBytes) {
                this.shutdown(new DaemonUnavailableError("error", `response from cortexd exceeds ${this.opts.maxResponseBytes} bytes`));
                return;
            }
            this.buf.push(chunk.subarray(start));
        }
    }
    onLine(line) {
        if (line.trim() === "")
            return;
        let msg;
        try {
            msg = JSON.parse(line);
        }
        catch {
            this.shutdown(new DaemonUnavailableError("error", "cortexd sent invalid JSON"));
            return;
        }
        for (const res of Array.isArray(msg) ? msg : [msg]) {
            if (typeof res !== "object" || res === null)
                continue;
            const r = res;
            const error = r.error && typeof r.error === "object" ? r.error : undefined;
            if (typeof r.id !== "number") {
                if (error)
                    this.lastConnectionError = new RpcError(error.code, error.message, error.data);
                continue;
            }
            const p = this.settle(r.id);
            if (!p)
                continue;
            if (error)
                p.reject(new RpcError(error.code, String(error.message), error.data));
            else
                p.resolve(r.result);
        }
    }
}
