import type { MethodHandlers } from "../rpc/server.js";
import type { MethodDeps } from "./methods.js";

/**
 * Write-side and integration methods (memory.save, memory.capture). Kept apart from the read
 * methods in methods.ts; filled in by the integrations work.
 */
export function createIntegrationHandlers(_d: MethodDeps): MethodHandlers {
  return {};
}
