import { hostname, userInfo } from "node:os";
import type { DeviceConfig } from "../config/schema.js";

export interface DeviceIdentity {
  /** This machine's name: per-device daily logs, commit messages. */
  name: string;
  /** Who writes: the tag on bullets saved to a team workspace. */
  user: string;
}

function clean(s: string, fallback: string): string {
  const v = s
    .replace(/[^A-Za-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64);
  return v || fallback;
}

/** The configured device and user, or the host name's first label and the login name. */
export function deviceIdentity(cfg: DeviceConfig | undefined): DeviceIdentity {
  let user = cfg?.user;
  if (!user) {
    try {
      user = clean(userInfo().username, "user");
    } catch {
      user = "user";
    }
  }
  return { name: cfg?.name ?? clean(hostname().split(".")[0] ?? "", "device"), user };
}

/** The tag on a bullet saved to a team workspace: `#by/<user>/<device>`. */
export function authorTag(id: DeviceIdentity): string {
  return `by/${id.user}/${id.name}`;
}
