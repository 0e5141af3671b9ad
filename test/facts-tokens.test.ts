import { expect, it } from "vitest";
import { readStatement, tokens, unicodeTokens } from "../src/facts/mentions.js";
import { mulberry32 } from "../src/util/prng.js";

/**
 * The facts pass reads every statement's words (facts/mentions.ts): ASCII text, most of it, by a
 * scanner written out by hand, any other text by the Unicode expression that defines the words. The
 * two must find the same words (start, end, whether each opens a clause, possessives), or an index
 * read by one would hold other entities and statements than one read by the other.
 */

const PIECES = [
  ..."aZx90'.:-_+#!?;,".split(""),
  "'s",
  "'S",
  " ",
  "  ",
  "\t",
  "\n",
  "\r",
  "\v",
  "\f",
  "Leo",
  "the",
  "The",
  "data",
  "Node",
  "22",
  "3.7",
  "9:30am",
  "2PM",
  "Tuesdays",
  "hx-301",
  "rack14-n3",
  "no longer",
  "from",
  "to",
  "Kafka",
  "moved",
  "is",
  "billing-api",
  "fyi: ",
  "- ",
  "1. ",
  "[x] ",
  "User: ",
];

it("finds the same words in ASCII text as the Unicode expression does", () => {
  const r = mulberry32(33);
  for (let i = 0; i < 20_000; i++) {
    let text = "";
    for (let n = 1 + Math.floor(r() * 24); n > 0; n--) text += PIECES[Math.floor(r() * PIECES.length)]!;
    expect(tokens(text), JSON.stringify(text)).toEqual(unicodeTokens(text));
  }
});

it("reads statements with and without characters beyond ASCII alike", () => {
  expect(tokens("Gabe’s laptop is hx-301")).toEqual(unicodeTokens("Gabe’s laptop is hx-301"));
  const ascii = readStatement("Leo's team moved the standup to 9:30am Tuesdays, no longer on Kafka 3.7");
  const kinds = (ms: typeof ascii.mentions) => ms.map((m) => [m.kind, m.key, m.old ?? false]);
  expect(kinds(ascii.mentions).slice(0, 1)).toEqual([["name", "leo", false]]);
  expect(kinds(ascii.mentions)).toContainEqual(["value", "9:30am", false]);
  expect(kinds(ascii.mentions)).toContainEqual(["value", "kafka 3.7", true]);
  const accented = readStatement("Zoë's team moved the standup to 9:30am Tuesdays, no longer on Kafka 3.7");
  expect(kinds(accented.mentions)).toEqual([["name", "zoë", false], ...kinds(ascii.mentions).slice(1)]);
  expect(accented.predicate).toBe(ascii.predicate);
});
