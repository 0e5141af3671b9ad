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

/**
 * The two characters that keep a text from the plain case-insensitive search of an ASCII key: ſ
 * (U+017F) and K (U+212A) match "s" and "k" in the Unicode expression (its case folding) but not in
 * a plain one. Every other character matches an ASCII letter in both or in neither.
 */
const FOLDS_TO_ASCII = /[\u017f\u212a]/;
const PLAIN_KEY = /^[a-z0-9]+$/i;
const WORD_CP = /^[\p{L}\p{N}]$/u;

/**
 * How often the texts write a one-word key (lowercase letters) as a whole word in lowercase and
 * otherwise (capitalised, all capitals), case-insensitively — by its first letter. A key of ASCII
 * letters is found with a plain case-insensitive expression (the same matches as the Unicode
 * expression with its look-arounds, at a fraction of its cost: recall asks for a prompt's new words
 * every time, each a new expression), the letters or digits around it told apart by code point as
 * the look-arounds do; any other key, or a text holding ſ or K, by the Unicode expression.
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
  const plainKey = PLAIN_KEY.test(key);
  let plain: RegExp | undefined;
  let exact: RegExp | undefined;
  for (text of texts) {
    if (plainKey && !FOLDS_TO_ASCII.test(text)) {
      plain ??= new RegExp(key, "gi");
      plain.lastIndex = 0;
      for (let m = plain.exec(text); m !== null; m = plain.exec(text)) {
        // Not a whole word: the next try starts one character on, as the expression's does.
        if (isWordBefore(text, m.index) || isWordAt(text, m.index + key.length)) plain.lastIndex = m.index + 1;
        else count(text[m.index]!, m.index);
      }
      continue;
    }
    exact ??= new RegExp(`(?<![\\p{L}\\p{N}])${key}(?![\\p{L}\\p{N}])`, "giu");
    for (const m of text.matchAll(exact)) count(m[0][0]!, m.index);
  }
  return { lower, upper, upperWithin };
}

/** A letter or digit (\p{L}, \p{N}) as the code point starting at i (false outside the text). */
function isWordAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i); // NaN outside the text
  if (c < 0x80) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
  if (!(c >= 0x80)) return false;
  return WORD_CP.test(String.fromCodePoint(s.codePointAt(i)!));
}

/** A letter or digit as the code point ending just before i (a surrogate pair read whole). */
function isWordBefore(s: string, i: number): boolean {
  const c = s.charCodeAt(i - 1);
  if (c < 0x80) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
  if (!(c >= 0x80)) return false;
  const lead = s.charCodeAt(i - 2);
  const cp = c >= 0xdc00 && c <= 0xdfff && lead >= 0xd800 && lead <= 0xdbff ? s.codePointAt(i - 2)! : c;
  return WORD_CP.test(String.fromCodePoint(cp));
}
