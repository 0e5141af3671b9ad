import { createHash } from "node:crypto";
import { basename } from "node:path";

/** Default namespace of a workspace root: "<basename>-<8 hex of sha256(abs root)>". */
export function defaultNamespace(absRoot: string): string {
  const base = basename(absRoot).replace(/[^A-Za-z0-9._-]+/g, "_") || "root";
  const hash = createHash("sha256").update(absRoot).digest("hex").slice(0, 8);
  return `${base}-${hash}`;
}
