import { benchConsolidate } from "./consolidate-bench.js";
import { benchCrash } from "./crash-bench.js";
import { benchDaemon } from "./daemon-bench.js";
import { benchEmbed } from "./embed-bench.js";
import { benchHooks } from "./hooks-bench.js";
import { benchIndex } from "./index-bench.js";
import { parseArgs } from "./util.js";

const BENCHES: Record<string, (args: ReturnType<typeof parseArgs>) => Promise<void>> = {
  index: benchIndex,
  embed: benchEmbed,
  daemon: benchDaemon,
  consolidate: benchConsolidate,
  crash: benchCrash,
  hooks: benchHooks,
};

const args = parseArgs(process.argv.slice(2));
const name = args.positional[0];
const bench = name ? BENCHES[name] : undefined;
if (!bench) {
  console.error(`usage: npm run bench -- <${Object.keys(BENCHES).join("|")}> [options]`);
  process.exit(2);
}
await bench(args);
