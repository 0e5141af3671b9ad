import type { Config, WorkspaceConfig } from "../config/schema.js";
import { authorTag, deviceIdentity } from "./device.js";

/** How saves to a workspace are written: per-device daily logs, the writer's tag in a team workspace. */
export function writeOptions(
  w: WorkspaceConfig,
  config: Pick<Config, "device">,
): { shared?: true; authorTag?: string; device?: string } {
  const id = deviceIdentity(config.device);
  return {
    ...(w.shared ? { shared: true as const, authorTag: authorTag(id) } : {}),
    ...(w.sync?.perDeviceLog ? { device: id.name } : {}),
  };
}
