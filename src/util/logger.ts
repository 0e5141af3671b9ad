import { createRequire } from "node:module";
import pino, { type DestinationStream, type Logger } from "pino";

export type LogFormat = "pretty" | "json";

/**
 * Human-readable lines on a terminal, JSON lines otherwise (journald, launchd, a log file, a pipe);
 * CORTEXD_LOG_FORMAT=pretty|json forces one.
 */
export function logFormat(env: NodeJS.ProcessEnv = process.env, isTTY = !!process.stderr.isTTY): LogFormat {
  if (env.CORTEXD_LOG_FORMAT === "pretty" || env.CORTEXD_LOG_FORMAT === "json") return env.CORTEXD_LOG_FORMAT;
  return isTTY ? "pretty" : "json";
}

function prettyStderr(): DestinationStream {
  // Loaded only for a terminal (pino-pretty is CommonJS: a synchronous require keeps createLogger synchronous).
  const pretty = createRequire(import.meta.url)("pino-pretty") as (o: Record<string, unknown>) => DestinationStream;
  return pretty({
    destination: 2,
    sync: true,
    colorize: !!process.stderr.isTTY,
    translateTime: "HH:MM:ss",
    ignore: "pid,hostname,name",
  });
}

/** Logs to stderr (journald/launchd capture them); quiet ("warn") by default. */
export function createLogger(level: string = "warn", name = "cortexd", format: LogFormat = logFormat()): Logger {
  const destination = format === "pretty" ? prettyStderr() : pino.destination({ fd: 2, sync: true });
  return pino({ name, level, base: { pid: process.pid } }, destination);
}

/** A logger that drops everything (library use, tests). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
