import { createRequire } from "node:module";

/**
 * JSON with comments and trailing commas (config files, Claude Code's settings.json): the one parser
 * is jsonc-parser. It is loaded on first use, so a hook that finds no config file never pays for it.
 */

type JsoncParser = typeof import("jsonc-parser");
let parser: JsoncParser | undefined;

function jsonc(): JsoncParser {
  return (parser ??= createRequire(import.meta.url)("jsonc-parser") as JsoncParser);
}

/** Text that is not valid JSON with comments: the first problem and its 1-based line. */
export class JsoncError extends Error {
  constructor(
    readonly problem: string,
    readonly line: number,
  ) {
    super(`${problem} at line ${line}`);
    this.name = "JsoncError";
  }
}

/** Parses JSON with comments and trailing commas; throws JsoncError on the first problem. */
export function parseJsonc(text: string): unknown {
  const { parse, printParseErrorCode } = jsonc();
  const errors: import("jsonc-parser").ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const e = errors[0];
  if (e) throw new JsoncError(printParseErrorCode(e.error), text.slice(0, e.offset).split("\n").length);
  return value;
}
