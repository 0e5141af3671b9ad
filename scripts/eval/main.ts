/**
 * Retrieval evaluations: `npm run eval -- <name> [options]`.
 *   locomo [dir]  LoCoMo retrieval set (default ../shared/eval/locomo from the repo root)
 *   noise         unrelated prompts against the LoCoMo workspaces: how often recall injects nothing
 *   asks [dir]    everyday questions (../shared/eval/asks/dev): exact words, time windows, natural phrasing, small memories
 *   updates [dir] facts that change over time (default ../shared/eval/updates/dev): current value first
 */
import { parseArgs } from "./args.js";
import { errorMessage } from "../../src/util/error-message.js";
import { locomoCommand, LOCOMO_USAGE } from "./locomo.js";
import { noiseCommand, NOISE_USAGE } from "./noise.js";
import { asksCommand, ASKS_USAGE } from "./asks.js";
import { updatesCommand, UPDATES_USAGE } from "./updates.js";

const COMMANDS: Record<string, { run: (argv: string[]) => Promise<number>; usage: string }> = {
  locomo: { run: locomoCommand, usage: LOCOMO_USAGE },
  noise: { run: noiseCommand, usage: NOISE_USAGE },
  asks: { run: asksCommand, usage: ASKS_USAGE },
  updates: { run: updatesCommand, usage: UPDATES_USAGE },
};

const argv = process.argv.slice(2);
const name = argv[0];
const cmd = name ? COMMANDS[name] : undefined;
if (!cmd) {
  console.error(`usage: npm run eval -- <${Object.keys(COMMANDS).join("|")}> [options]\n`);
  for (const c of Object.values(COMMANDS)) console.error(c.usage);
  process.exit(2);
}
if (parseArgs(argv.slice(1)).flags.help) {
  console.log(cmd.usage);
  process.exit(0);
}
try {
  process.exitCode = await cmd.run(argv.slice(1));
} catch (e) {
  console.error(`eval ${name}: ${errorMessage(e)}`);
  process.exitCode = 2;
}
