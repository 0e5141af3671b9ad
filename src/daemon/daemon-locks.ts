import { join } from "node:path";
import type { Logger } from "pino";
import { isReadOnlyCode } from "../index/db/probe-writable.js";
import { AlreadyRunningError, acquireInstanceLock, type InstanceLock } from "../rpc/instance-lock.js";
import { prepareSocketDir } from "../rpc/socket-path.js";
import { errorMessage } from "../util/error-message.js";
import { octal } from "../util/private-paths.js";

/**
 * The two locks a daemon holds while it runs: the data dir's (one writer per data dir) and the
 * socket's (one daemon per socket path), each refused with a message naming the other daemon.
 */
export async function acquireDaemonLocks(
  dataDir: string,
  socketPath: string,
  logger: Logger,
  env: NodeJS.ProcessEnv | undefined,
): Promise<{ lock: InstanceLock; dataLock: InstanceLock | null }> {
  const dataLock = await acquireDataDirLock(dataDir, socketPath, logger);
  try {
    const socketDir = prepareSocketDir(socketPath, env);
    if (socketDir.fixedMode !== undefined) {
      logger.warn(
        { path: socketDir.dir, from: octal(socketDir.fixedMode), to: "0700" },
        "permissions were looser than owner-only; tightened",
      );
    }
    return { lock: await acquireInstanceLock(socketPath, { logger }), dataLock };
  } catch (e) {
    dataLock?.release();
    const code = (e as NodeJS.ErrnoException).code;
    if (!code || !isReadOnlyCode(code)) throw e;
    // The socket lives in the data dir when there is no XDG_RUNTIME_DIR: a read-only data dir cannot hold it.
    throw new Error(
      `cannot create the socket ${socketPath}: its directory is not writable (${errorMessage(e)}); ` +
        `set CORTEXD_SOCKET (or XDG_RUNTIME_DIR) to a writable directory, e.g. CORTEXD_SOCKET=/tmp/cortexd-$UID/cortexd.sock, and use the same setting for clients`,
      { cause: e },
    );
  }
}

/**
 * The single-writer lock on the data dir (`<dataDir>/lock`): a second daemon on the same data dir
 * exits naming the first one's pid, whatever its socket. A read-only data dir cannot hold it (nor
 * be written by two daemons): then there is none.
 */
async function acquireDataDirLock(dataDir: string, socketPath: string, logger: Logger): Promise<InstanceLock | null> {
  const lockPath = join(dataDir, "lock");
  try {
    return await acquireInstanceLock(socketPath, { logger, lockPath });
  } catch (e) {
    if (e instanceof AlreadyRunningError) {
      const err = new AlreadyRunningError(e.pid, e.socketPath);
      err.message = `cortexd is already running${e.pid !== undefined ? ` (pid ${e.pid})` : ""} on the data dir ${dataDir} (socket ${e.socketPath}); use \`cortexd stop\` first, or give this one its own data dir`;
      throw err;
    }
    const code = (e as NodeJS.ErrnoException).code;
    if (code && isReadOnlyCode(code)) {
      logger.warn({ lockPath, err: errorMessage(e) }, "data dir is read-only: no data-dir lock");
      return null;
    }
    throw e;
  }
}
