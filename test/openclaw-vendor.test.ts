import { cpSync, mkdtempSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { VENDOR_DIR, vendorDrift } from "../scripts/openclaw/vendor-client.js";
import { assertBuilt } from "./helpers/cli.js";

/**
 * The OpenClaw plugin's vendored client (integrations/openclaw/vendor) is generated from cortexd's
 * compiled sources: the checked-in copy must be what the generator writes today, so the plugin runs
 * the same client and socket-path rules as the CLI and hooks. Fix: `npm run -s build && node
 * dist/scripts/openclaw/gen-client.js`, then commit integrations/openclaw/vendor.
 */
const ROOT = resolve(import.meta.dirname, "..");

describe("the OpenClaw plugin's vendored client", () => {
  it("is what scripts/openclaw/gen-client.ts generates from the current sources", () => {
    assertBuilt();
    expect(vendorDrift(ROOT)).toEqual([]);
  });

  it("a hand edit, a missing or a stray file is caught", () => {
    assertBuilt();
    const copy = mkdtempSync(join(tmpdir(), "cortexd-vendor-"));
    try {
      cpSync(join(ROOT, "dist", "src"), join(copy, "dist", "src"), { recursive: true });
      cpSync(join(ROOT, VENDOR_DIR), join(copy, VENDOR_DIR), { recursive: true });
      expect(vendorDrift(copy)).toEqual([]);
      appendFileSync(join(copy, VENDOR_DIR, "rpc", "socket-path.js"), "// edited by hand\n");
      rmSync(join(copy, VENDOR_DIR, "client", "errors.js"));
      writeFileSync(join(copy, VENDOR_DIR, "stray.js"), "");
      expect(vendorDrift(copy).sort()).toEqual(["client/errors.js", "rpc/socket-path.js", "stray.js"]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
