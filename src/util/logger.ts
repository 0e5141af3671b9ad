import pino, { type Logger } from "pino";

/** Structured JSON logs to stderr (journald/launchd capture them); quiet ("warn") by default. */
export function createLogger(level: string = "warn", name = "cortexd"): Logger {
  return pino({ name, level, base: { pid: process.pid } }, pino.destination({ fd: 2, sync: true }));
}

/** A logger that drops everything (library use, tests). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
