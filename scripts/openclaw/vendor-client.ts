import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";

/**
 * The OpenClaw plugin is a dependency-free JS package: it vendors cortexd's own client and socket-path
 * rules, copied from the compiled dist/src files into integrations/openclaw/vendor/ with a "generated"
 * header. `node dist/scripts/openclaw/gen-client.js` writes them; test/openclaw-vendor.test.ts fails
 * when the checked-in copy differs from what this writes (run the generator after changing these files).
 */

/** The modules the plugin needs (dist/src-relative): each may import only node:* and the others. */
export const VENDORED = [
  "client/connection.js",
  "client/errors.js",
  "client/shared.js",
  "rpc/rpc-error.js",
  "rpc/connect.js",
  "rpc/socket-path.js",
  "config/paths.js",
  "visibility/session-kind.js",
] as const;

export const VENDOR_DIR = "integrations/openclaw/vendor";

function header(file: string): string {
  return `// Generated from src/${file.replace(/\.js$/, ".ts")} by scripts/openclaw/gen-client.ts: do not edit.\n`;
}

/** What the vendor directory must hold: path under VENDOR_DIR → content. */
export function vendorFiles(root: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of VENDORED) {
    const built = join(root, "dist", "src", file);
    if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build first`);
    const text = readFileSync(built, "utf8").replace(/\n\/\/# sourceMappingURL=.*\n?$/, "\n");
    for (const m of text.matchAll(/^(?:import|export)\s[^;]*?from\s+"([^"]+)";/gms)) {
      const spec = m[1]!;
      if (spec.startsWith("node:")) continue;
      const target = posix.normalize(posix.join(posix.dirname(file), spec));
      if (!(VENDORED as readonly string[]).includes(target)) {
        throw new Error(
          `src/${file} imports ${spec}, which the OpenClaw plugin does not vendor (node:* only, or add it)`,
        );
      }
    }
    out.set(file, header(file) + text);
  }
  return out;
}

/** Files under the vendor dir that differ from (or are missing in, or extra to) what vendorFiles says. */
export function vendorDrift(root: string): string[] {
  const want = vendorFiles(root);
  const dir = join(root, VENDOR_DIR);
  const drift: string[] = [];
  for (const [file, text] of want) {
    const p = join(dir, file);
    if (!existsSync(p) || readFileSync(p, "utf8") !== text) drift.push(file);
  }
  for (const file of listFiles(dir)) if (!want.has(file)) drift.push(file);
  return drift;
}

export function writeVendorFiles(root: string): void {
  const dir = join(root, VENDOR_DIR);
  rmSync(dir, { recursive: true, force: true });
  for (const [file, text] of vendorFiles(root)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split("\\").join("/"));
}
