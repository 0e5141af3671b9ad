import { randomBytes, timingSafeEqual } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";

/**
 * The console's secrets, new at each daemon start: the access token (in the URL `cortexd ui` opens,
 * then an HttpOnly SameSite=Strict cookie) and the CSRF token the page sends with its one write.
 */
export interface ConsoleSecrets {
  token: string;
  csrf: string;
}

export function newSecrets(): ConsoleSecrets {
  return { token: randomBytes(32).toString("base64url"), csrf: randomBytes(32).toString("base64url") };
}

/** Constant-time comparison of a secret with what a request brought (anything but a string is wrong). */
export function sameSecret(expected: string, given: unknown): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The file beside the socket that tells `cortexd ui` (the same user) where the console is: mode 0600. */
export function tokenFileFor(socketPath: string): string {
  return `${socketPath}.console.json`;
}

export function writeTokenFile(file: string, info: { url: string; port: number; pid: number }): void {
  rmSync(file, { force: true }); // a fresh file: its mode is the one given here, never an old file's
  writeFileSync(file, JSON.stringify(info) + "\n", { mode: 0o600, flag: "wx" });
}

export function removeTokenFile(file: string): void {
  rmSync(file, { force: true });
}
