import type Database from "better-sqlite3";
import { statements } from "../db/statements.js";

/** The newest chunks holding a word that are read to see how the workspace writes it. */
const SAMPLE_CHUNKS = 24;
/** Verdicts kept at most (the cache is dropped whole when full; a prompt asks a handful). */
const MAX_VERDICTS = 20_000;
const ONE_WORD = /^\p{L}+$/u;

/**
 * Whether a one-word capitalised "name" the readers took for an entity is a word of the workspace:
 * a sentence-opening common noun ("Tournaments ran late.", "Deploy the …") is read as a name, while
 * the same text writes it in lowercase everywhere else. Looked up in the newest SAMPLE_CHUNKS chunks
 * that hold the word (the keyword index's match, which is stemmed, then the exact word counted in
 * each text, case-sensitively): a word written lowercase more often than capitalised there is a
 * word, not an entity. A real one-word name ("Ines", "Melanie") is never written in lowercase and
 * stays an entity whatever other words share its stem; names of several words and identifiers
 * (`billing-api`) are never asked.
 *
 * The verdicts are kept until the index's chunks change: the store drops them at each file write
 * of its connection, a failed transaction and another connection's commit (EntityGraph.changed,
 * registered as an in-memory copy: index/db/copies.ts).
 */
export class WordCase {
  private readonly stmts;
  private readonly verdicts = new Map<string, CaseCounts>();

  constructor(db: Database.Database) {
    this.stmts = statements(db, {
      newest: `SELECT c.text FROM chunks c WHERE c.id IN
          (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid DESC LIMIT ?)`,
    });
  }

  /**
   * Whether this entity key (lowercase) is a one-word entity the workspace writes mostly in
   * lowercase: a word, not a name. False for names of several words, identifiers and any word
   * never written in lowercase.
   */
  isWord(key: string): boolean {
    const c = this.counts(key);
    return c !== null && c.lower > c.upper;
  }

  /**
   * Whether a one-word key that is also a common English word ("Grace", "Mark", "Will") is written
   * as a name in this workspace: capitalised within sentences at least twice, and more often so
   * than in lowercase. From the same read as isWord, kept alike.
   */
  isWrittenAsName(key: string): boolean {
    const c = this.counts(key);
    return c !== null && c.upperWithin >= 2 && c.upperWithin > c.lower;
  }

  /** The chunks changed (a file written, a rollback, another connection's commit): all is asked again. */
  changed(): void {
    this.verdicts.clear();
  }

  /** How the newest chunks holding a one-word key write it (null: no one-word key). */
  private counts(key: string): CaseCounts | null {
    if (!ONE_WORD.test(key)) return null;
    const known = this.verdicts.get(key);
    if (known !== undefined) return known;
    if (this.verdicts.size >= MAX_VERDICTS) this.verdicts.clear();
    const texts = this.stmts.newest.pluck().all(`"${key}"`, SAMPLE_CHUNKS) as string[];
    const counts = caseCountsWithin(texts, key);
    this.verdicts.set(key, counts);
    return counts;
  }
}

/** How often texts write a word in lowercase, otherwise, and otherwise within a sentence. */
export interface CaseCounts {
  lower: number;
  upper: number;
  upperWithin: number;
}

/** A character outside printable ASCII, tab and line breaks (such a text takes the expression). */
const NON_ASCII = /[^ -~\t\n\r]/u;
const isAscii = (s: string) => !NON_ASCII.test(s);

/**
 * How often the texts write a one-word key (lowercase letters) as a whole word in lowercase and
 * otherwise (capitalised, all capitals), case-insensitively — by its first letter. An ASCII key in
 * an ASCII text is found with indexOf on the lowercased text (the same matches as the Unicode
 * expression there, at a tenth of its cost: recall asks for a prompt's new words every time);
 * anything else by the expression.
 */
export function caseCounts(texts: readonly string[], key: string): { lower: number; upper: number } {
  const { lower, upper } = caseCountsWithin(texts, key);
  return { lower, upper };
}

/**
 * caseCounts, and of the capitalised ones, those written within a sentence: after a lowercase
 * letter or a comma and spaces ("paired with Grace", "Reviewed Grace's PR"; not "- 09:00 Grace …",
 * "User: Grace …", ". Grace …") — a name, where a sentence-opening word would be lowercase.
 */
export function caseCountsWithin(texts: readonly string[], key: string): CaseCounts {
  let lower = 0;
  let upper = 0;
  let upperWithin = 0;
  let text = "";
  const count = (first: string, at: number) => {
    if (first === first.toLowerCase() && first !== first.toUpperCase()) lower++;
    else {
      upper++;
      let k = at - 1;
      while (k >= 0 && (text[k] === " " || text[k] === "\t")) k--;
      if (k < at - 1 && k >= 0 && (text[k] === "," || /\p{Ll}/u.test(text[k]!))) upperWithin++;
    }
  };
  const asciiKey = isAscii(key);
  let exact: RegExp | undefined;
  for (text of texts) {
    if (asciiKey && isAscii(text)) {
      const low = text.toLowerCase();
      const k = key.toLowerCase();
      for (let i = low.indexOf(k); i >= 0; i = low.indexOf(k, i + 1)) {
        if (isAsciiWordAt(low, i - 1) || isAsciiWordAt(low, i + k.length)) continue;
        count(text[i]!, i);
        i += k.length - 1;
      }
      continue;
    }
    exact ??= new RegExp(`(?<![\\p{L}\\p{N}])${key}(?![\\p{L}\\p{N}])`, "giu");
    for (const m of text.matchAll(exact)) count(m[0][0]!, m.index);
  }
  return { lower, upper, upperWithin };
}

/** A lowercase ASCII letter or digit at i (of a lowercased ASCII text). */
function isAsciiWordAt(low: string, i: number): boolean {
  const c = low.charCodeAt(i); // NaN outside the text
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
}
