import { existsSync, realpathSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Where this cortexd is installed: the package root (the folder holding bin/, dist/src/ and, in a
 * package, integrations/), whether that is a development checkout (its sources beside dist/: a
 * clone, or `npm install -g .`, which is a symlink to one), and the command that starts it.
 */
export interface SelfInstall {
  root: string;
  launcher: string;
  devCheckout: boolean;
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export function selfInstall(): SelfInstall {
  const root = realOr(fileURLToPath(new URL("../../..", import.meta.url)).replace(/\/$/, ""));
  return {
    root,
    launcher: join(root, "bin", "cortexd"),
    devCheckout: existsSync(join(root, "src")) && existsSync(join(root, "tsconfig.json")),
  };
}

/** `cortexd` when the one on PATH is this installation, else the launcher's absolute path. */
export function cortexdCommand(env: NodeJS.ProcessEnv = process.env, self = selfInstall()): string {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, "cortexd");
    if (existsSync(candidate) && realOr(candidate) === realOr(self.launcher)) return "cortexd";
  }
  return self.launcher;
}

/** A note for hook/service install when what it writes points into a development checkout. */
export function devCheckoutNote(self = selfInstall()): string | undefined {
  if (!self.devCheckout) return undefined;
  return (
    `this runs from a development checkout (${self.root}): what was written points into it, so moving or ` +
    `deleting the checkout stops it. For a stable install: npm pack && npm install -g ./cortexd-<version>.tgz, ` +
    `then run this command again with the installed cortexd`
  );
}

/** The OpenClaw plugin shipped with this installation (integrations/openclaw in the package). */
export function openclawPluginDir(self = selfInstall()): string {
  return join(self.root, "integrations", "openclaw");
}
