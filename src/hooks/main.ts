#!/usr/bin/env node
/**
 * Lean entry for agent hooks (what the `cortexd-hook` launcher, bin/cortexd, runs in Node; `cortexd
 * hook …` dispatches here too).
 * It loads only node built-ins and src/hooks (no commander, zod, SQLite or model code), so a hook
 * costs little more than Node's own start-up. See src/hooks/run.ts.
 */
import { runHook } from "./run.js";

await runHook(process.argv.slice(2));
