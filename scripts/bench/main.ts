import { abDaemon } from "./ab-daemon.js";
import { benchAbuse } from "./abuse-bench.js";
import { benchConsole } from "./console-bench.js";
import { benchConsolidate } from "./consolidate-bench.js";
import { benchCrash } from "./crash-bench.js";
import { benchDaemon } from "./daemon-bench.js";
import { benchEmbed } from "./embed-bench.js";
import { benchHooks } from "./hooks-bench.js";
import { gapProbe } from "./gap-probe.js";
import { benchIndex } from "./index-bench.js";
import { benchKeywords } from "./keyword-probe.js";
import { benchPeers } from "./peers-bench.js";
import { recallProbe } from "./recall-probe.js";
import { sameAnswers } from "./same-answers.js";
import { benchScale } from "./scale-bench.js";
import { benchSoak } from "./soak.js";
import { benchVectors } from "./vector-probe.js";
import { parseArgs } from "./util.js";

const BENCHES: Record<string, (args: ReturnType<typeof parseArgs>) => Promise<void>> = {
  index: benchIndex,
  embed: benchEmbed,
  daemon: benchDaemon,
  console: benchConsole,
  consolidate: benchConsolidate,
  crash: benchCrash,
  hooks: benchHooks,
  scale: benchScale,
  vectors: benchVectors,
  keywords: benchKeywords,
  peers: benchPeers,
  "recall-probe": recallProbe,
  gap: gapProbe,
  soak: benchSoak,
  abuse: benchAbuse,
  "ab-daemon": abDaemon,
  "same-answers": sameAnswers,
};

const args = parseArgs(process.argv.slice(2));
const name = args.positional[0];
const bench = name ? BENCHES[name] : undefined;
if (!bench) {
  console.error(`usage: npm run bench -- <${Object.keys(BENCHES).join("|")}> [options]`);
  process.exit(2);
}
await bench(args);
