import type { Command } from "commander";
import { readFileSync } from "node:fs";
import { saveMemory } from "../../client/save-memory.js";
import { CliError, daemonWorkspace, loadForCli, printJson, type GlobalOptions } from "../context.js";

interface SaveOptions extends GlobalOptions {
  target?: string;
  importance?: string;
  tag?: string[];
}

export function registerSave(program: Command): void {
  program
    .command("save")
    .description("append a memory to today's daily log (or MEMORY.md): redacted, deduplicated, indexed at once")
    .argument("<text...>", 'the memory ("-" reads it from stdin)')
    .option("--target <target>", "daily (default: memory/YYYY-MM-DD.md) or memory (MEMORY.md)")
    .option("--importance <n>", "importance 1..10 (written as <!-- importance: N -->)")
    .option("--tag <tag>", "a tag (#tag); repeatable", (v: string, prev: string[] = []) => [...prev, v])
    .action(async (words: string[], _o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<SaveOptions>();
      const text = words.length === 1 && words[0] === "-" ? readFileSync(0, "utf8") : words.join(" ");
      if (!text.trim()) throw new CliError("nothing to save: the text is empty");
      if (opts.target && opts.target !== "daily" && opts.target !== "memory")
        throw new CliError(`--target must be "daily" or "memory", got "${opts.target}"`);
      const importance = opts.importance === undefined ? undefined : Number(opts.importance);
      if (importance !== undefined && !(Number.isInteger(importance) && importance >= 1 && importance <= 10)) {
        throw new CliError(`--importance must be an integer from 1 to 10, got "${opts.importance}"`);
      }
      const params = {
        text,
        ...(opts.target ? { target: opts.target as "daily" | "memory" } : {}),
        ...(importance !== undefined ? { importance } : {}),
        ...(opts.tag?.length ? { tags: opts.tag } : {}),
      };
      const loaded = loadForCli(opts);
      const { result: res, offline } = await saveMemory(loaded, params, {
        daemon: daemonWorkspace(opts),
        target: loaded.selected,
      });
      if (opts.json) return printJson(res);
      const where =
        res.startLine !== undefined
          ? `${res.path}:${res.startLine}${res.endLine !== res.startLine ? `-${res.endLine}` : ""}`
          : res.path;
      if (!res.stored) console.log(`not saved: a recent memory says the same (${res.duplicateOf ?? res.path})`);
      else
        console.log(
          `saved to ${where}${res.redactions ? ` (${res.redactions} secret${res.redactions > 1 ? "s" : ""} redacted)` : ""}`,
        );
      if (res.conflict)
        console.log(
          `${res.conflict.file} has an unresolved git merge conflict, so this went to ${res.conflict.savedTo}: ${res.conflict.fix}`,
        );
      if (offline && res.stored)
        console.log("cortexd is not running: the file is written and will be indexed when the daemon starts");
    });
}
