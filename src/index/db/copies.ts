/**
 * The one contract of the index's in-memory copies (docs/architecture.md lists every one, with the
 * caches above the storage layer). A copy derived from some tables hears:
 * - this connection's writes: the repository that writes tells it inside the write's transaction
 *   (`onFileWrite` for a file's row or chunks; the keyword postings and the vectors are told of
 *   each chunk they write by their repository, which owns them);
 * - a rollback: a transaction of this connection failed (`onRollback`), so whatever the copy read
 *   or patched inside it may be gone — it drops what it holds, or what it took in since its load;
 * - another connection's commit (`onCommit`): pushed by the registry as soon as any read of the
 *   connection's data version finds it (each read request's snapshot reads it once, at its open:
 *   read-snapshot.ts), whether or not the copy is used; a copy's CommitWatch still checks on use.
 * The store registers its own copies and hears every rollback of its transactions (store.ts).
 */
export interface InMemoryCopy {
  /** What it holds, for diagnostics. */
  readonly name: string;
  onFileWrite?(fileId: number): void;
  onRollback(): void;
  onCommit(): void;
}

export class CopyRegistry {
  private readonly copies: InMemoryCopy[] = [];

  /** Registers a copy; the returned function removes it. */
  register(copy: InMemoryCopy): () => void {
    this.copies.push(copy);
    return () => {
      const i = this.copies.indexOf(copy);
      if (i >= 0) this.copies.splice(i, 1);
    };
  }

  /** Called inside a transaction that writes a file's row or chunks. */
  fileWritten(fileId: number): void {
    for (const c of this.copies) c.onFileWrite?.(fileId);
  }

  /** Called when a transaction of this connection failed (it rolled back, or its savepoint did). */
  rolledBack(): void {
    for (const c of this.copies) c.onRollback();
  }

  /** Called when another connection's commit is found (db-generation.ts DataVersion.onCommit). */
  committedElsewhere(): void {
    for (const c of this.copies) c.onCommit();
  }

  get names(): string[] {
    return this.copies.map((c) => c.name);
  }
}
