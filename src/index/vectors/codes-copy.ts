import type Database from "better-sqlite3";
import { CommitWatch } from "../db/db-generation.js";
import { readInSteps } from "../db/stepped-read.js";
import { statements } from "../db/statements.js";
import type { MetaRepo } from "../repos/meta-repo.js";
import { blobToCode, writeCodeTable, type Quantizer } from "./quantizer.js";
import { QuantizedVectors } from "./vector-codes.js";
import { QUANTIZER_SAMPLE, TOUCHED_RELOAD } from "./vector-limits.js";

const CODE_ALL = `SELECT id, code FROM chunk_codes ORDER BY id`;

/**
 * The in-memory copy of a large index's quantized codes (chunk_codes, vector-codes.ts) and their
 * quantizer (meta `vector_codes`), in step with the table: loaded whole when first used or after
 * another connection wrote the index; otherwise patched with the ids this connection wrote since
 * (read back from the table, so a rolled-back write leaves no trace).
 */
export class CodesCopy {
  private codes: QuantizedVectors | null = null;
  private quantizer: Quantizer | null = null;
  private readonly commits: CommitWatch;
  private touched = new Set<number>();
  /** Set while warmInSteps reads the codes: the ids written meanwhile, and whether a rollback or a new model spoiled the read. */
  private load: { touched: Set<number>; spoiled: boolean } | null = null;
  private readonly stmts;

  constructor(
    private readonly db: Database.Database,
    private readonly meta: MetaRepo,
  ) {
    this.commits = new CommitWatch(db);
    this.stmts = statements(db, {
      codeGet: `SELECT code FROM chunk_codes WHERE id = ?`,
      codeAll: CODE_ALL,
      codesClear: `DELETE FROM chunk_codes`,
      codePut: `INSERT OR REPLACE INTO chunk_codes (id, code) VALUES (?, ?)`,
      vecSample: `SELECT embedding FROM chunks_vec LIMIT ${QUANTIZER_SAMPLE}`,
      vecAll: `SELECT rowid, embedding FROM chunks_vec`,
    });
  }

  /** Drops the copy and the quantizer: a rollback, or a new model (whose codes are rebuilt). */
  forget(): void {
    this.codes = null;
    this.quantizer = null;
    this.touched.clear();
    if (this.load) this.load.spoiled = true;
  }

  /** Remembers a written vector id for the loaded codes (none loaded: the first use loads them all). */
  touch(id: number): void {
    if (!this.codes) return void this.load?.touched.add(id);
    if (this.touched.size > TOUCHED_RELOAD)
      this.codes = null; // cheaper to reload than to patch
    else this.touched.add(id);
  }

  /** The quantizer, if codes of `dims` exist. While there is none, meta is read again each time: another connection may have made one. */
  current(dims: number): Quantizer | null {
    if (!this.quantizer) {
      const raw = this.meta.getMeta("vector_codes");
      let q: Quantizer | null;
      try {
        q = raw ? (JSON.parse(raw) as Quantizer) : null;
      } catch {
        q = null; // unreadable: the codes are rebuilt
      }
      this.quantizer = q && q.format === "c8-v1" && q.mean?.length === dims && q.scale?.length === dims ? q : null;
    }
    return this.quantizer;
  }

  /** Fits the quantizer on a sample of the float vectors and writes every vector's code (quantizer.ts). */
  build(dims: number): Quantizer {
    const save = (q: Quantizer) => this.meta.setMeta("vector_codes", JSON.stringify(q));
    return (this.quantizer = writeCodeTable(this.db, this.stmts, dims, save));
  }

  /**
   * The codes, in step with the table (the first time, the quantizer is fitted and every code
   * written). `expected` sizes a full load; `loaded` hears the vectors a full load found.
   */
  prepare(dims: number, expected: () => number, loaded: (size: number) => void): QuantizedVectors {
    const dataVersion = this.commits.read();
    if (this.commits.changed(dataVersion)) this.quantizer = null; // another connection may have (re)built them
    let q = this.current(dims);
    if (!q) {
      q = this.build(dims);
      this.codes = null;
    }
    if (!this.codes || this.commits.changed(dataVersion)) {
      this.touched.clear();
      const codes = new QuantizedVectors(dims, q, expected());
      for (const [id, code] of this.stmts.codeAll.raw().iterate() as IterableIterator<[number, Buffer]>) {
        codes.set(id, blobToCode(code));
      }
      this.codes = codes;
      loaded(codes.size);
    } else if (this.touched.size > 0) {
      for (const id of this.touched) {
        const row = this.stmts.codeGet.get(id) as { code: Buffer } | undefined;
        if (row) this.codes.set(id, blobToCode(row.code));
        else this.codes.delete(id);
      }
      this.touched.clear();
    }
    this.commits.mark();
    return this.codes;
  }

  /**
   * Loads the codes without holding the event loop (the daemon, once its startup sync is done: a
   * million codes take seconds to read): from one snapshot on a second connection, yielding every
   * few milliseconds (db/stepped-read.ts). The ids this connection writes meanwhile are patched in
   * at the next search. A search that comes first loads them itself; a rollback, a new model or
   * another connection's commit meanwhile leaves the load to the next search. False when there is
   * nothing to read this way (no codes written yet, or no second connection): the caller loads.
   */
  async warmInSteps(dims: number, expected: number, stepMs?: number): Promise<boolean> {
    if (this.codes || this.load) return true;
    const q = this.current(dims);
    if (!q) return false;
    const load = (this.load = { touched: new Set<number>(), spoiled: false });
    try {
      const version = this.commits.read();
      const codes = await readInSteps(
        this.db,
        async (reader, pause) => {
          const codes = new QuantizedVectors(dims, q, expected);
          for (const [id, code] of reader.prepare(CODE_ALL).raw().iterate() as IterableIterator<[number, Buffer]>) {
            codes.set(id, blobToCode(code));
            const p = pause();
            if (p) await p;
          }
          return codes;
        },
        stepMs,
      );
      if (!codes) return false;
      const intact = !load.spoiled && this.quantizer === q && this.commits.read() === version;
      if (this.codes || !intact || load.touched.size > TOUCHED_RELOAD) return true;
      this.codes = codes;
      this.touched = load.touched;
      this.commits.mark(version);
      return true;
    } finally {
      this.load = null;
    }
  }
}
