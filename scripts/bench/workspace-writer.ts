import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Writes a generated benchmark workspace from scratch (folders created as needed), counting its bytes. */
export class WorkspaceWriter {
  bytes = 0;

  /** Removes whatever was at `root` before. */
  constructor(readonly root: string) {
    rmSync(root, { recursive: true, force: true });
  }

  write(rel: string, content: string): void {
    const p = join(this.root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
    this.bytes += Buffer.byteLength(content);
  }
}
