import { appendFileSync, chmodSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { AuditConfig } from "../config/schema.js";
import { redactSecrets } from "../memory-files/redact.js";
import { sha256 } from "../util/hash.js";
import { errorMessage } from "../util/error-message.js";
import type { AuditEntry, AuditState } from "../rpc/protocol.js";

export type { AuditEntry, AuditMemory } from "../rpc/protocol.js";

/**
 * The audit log: one JSON line per recall or search answer given to a host — when, to whom (client,
 * session), in which scope, for which query (as asked with secrets redacted, or only its hash), and
 * which memories went out (path, lines, visibility, size). `<dataDir>/audit/audit.jsonl`, 0600 in a
 * 0700 directory, rotated at `maxBytes` (audit.jsonl.1 … .keep). Reading it: audit-read.ts.
 */

export const AUDIT_FILE = "audit.jsonl";

export function auditDir(dataDir: string): string {
  return join(dataDir, "audit");
}

export class AuditLog {
  private readonly file: string;
  private warned = false;

  constructor(
    private readonly dir: string,
    private readonly config: () => AuditConfig,
    private readonly onError: (message: string) => void = () => {},
  ) {
    this.file = join(dir, AUDIT_FILE);
  }

  get enabled(): boolean {
    return this.config().enabled;
  }

  get path(): string {
    return this.file;
  }

  state(): AuditState {
    const c = this.config();
    return { enabled: c.enabled, path: this.file, query: c.query };
  }

  /** Records an answer (unless the log is off); a failure to write is reported once, never thrown. */
  record(entry: Omit<AuditEntry, "query" | "queryHash"> & { query: string }): void {
    const cfg = this.config();
    if (!cfg.enabled) return;
    const { query, ...rest } = entry;
    const line: AuditEntry = {
      ...rest,
      ...(cfg.query === "text" ? { query: redactSecrets(query).text.slice(0, 4000) } : {}),
      queryHash: sha256(query.trim().toLowerCase()),
    };
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.rotateIfFull(cfg);
      appendFileSync(this.file, `${JSON.stringify(line)}\n`, { mode: 0o600 });
      this.warned = false;
    } catch (e) {
      if (!this.warned) this.onError(`audit log not written (${this.file}): ${errorMessage(e)}`);
      this.warned = true;
    }
  }

  private rotateIfFull(cfg: AuditConfig): void {
    let size: number;
    try {
      size = statSync(this.file).size;
    } catch {
      return;
    }
    if (size < cfg.maxBytes) return;
    const keep = cfg.keep;
    if (keep === 0) {
      rmSync(this.file, { force: true });
      return;
    }
    rmSync(`${this.file}.${keep}`, { force: true });
    for (let i = keep - 1; i >= 1; i--) {
      try {
        renameSync(`${this.file}.${i}`, `${this.file}.${i + 1}`);
      } catch {
        // not there yet
      }
    }
    renameSync(this.file, `${this.file}.1`);
    chmodSync(`${this.file}.1`, 0o600);
  }
}
