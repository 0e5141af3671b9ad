// @ts-check
/**
 * Terminal commands, `openclaw cortex …` (api.registerCli with a descriptor, so OpenClaw lists the
 * command and loads the plugin only when it is run):
 *   status              health, latency (a round trip now, recall percentiles), counts
 *   memories            memories (files, chunks, days of logs), sessions, maturity, top entities, most recalled
 *   search <query…>     ranked results with path#Lx-Ly citations
 *   config              the plugin's effective config and the daemon's
 *   reset [--yes]       rebuild the index from the memory files and clear cortexd's session state
 *                       (asks first; the memory files are never deleted)
 *   pair                no meaning for a local engine: says so
 */
import { createInterface } from "node:readline/promises";

/** @param {unknown} e */
const why = (e) => (e instanceof Error ? e.message : String(e));

/**
 * @param {{
 *   call: (method: string, params: Record<string, unknown>, timeoutMs: number) => Promise<any>,
 *   cfg: Record<string, unknown> & { socketPath: string, toolTimeoutMs: number },
 *   ws: Record<string, string>,
 *   ignored: string[],
 *   out?: (line: string) => void,
 *   ask?: (question: string) => Promise<string>,
 *   close?: () => void,
 * }} deps
 */
export function cortexCliRegistrar(deps) {
  const out = deps.out ?? ((/** @type {string} */ l) => process.stdout.write(`${l}\n`));
  const t = deps.cfg.toolTimeoutMs;
  /** Runs a command body; a failure is one line on stderr and exit code 1. */
  const run = (/** @type {() => Promise<void>} */ fn) => async () => {
    try {
      await fn();
    } catch (e) {
      process.stderr.write(`cortexd: ${why(e)}\n`);
      process.exitCode = 1;
    } finally {
      deps.close?.(); // the connection must not keep the CLI process alive
    }
  };
  const pickWs = (/** @type {any} */ s) =>
    (s.workspaces ?? []).find(
      (/** @type {any} */ w) => !deps.ws.workspace || w.name === deps.ws.workspace || w.root === deps.ws.workspace,
    ) ?? s.workspaces?.[0];

  /** @param {{ program: any }} ctx */
  return ({ program }) => {
    const cortex = program
      .command("cortex")
      .description("cortexd memory: status, memories, search, config, reset (local engine)");

    cortex
      .command("status")
      .description("cortexd's health, latency and counts")
      .action(
        run(async () => {
          const t0 = performance.now();
          await deps.call("daemon.ping", {}, t);
          const rtt = performance.now() - t0;
          const s = await deps.call("cortex.status", {}, t);
          const w = pickWs(s);
          const r = s.recallMetrics;
          out(`cortexd ${s.version}: ${s.healthy ? "healthy" : "degraded"} at ${deps.cfg.socketPath}`);
          out(
            `latency: ping ${rtt.toFixed(1)} ms; recall p50 ${r.p50} ms, p95 ${r.p95} ms, p99 ${r.p99} ms (${r.count} recalls)`,
          );
          out(
            `memories: ${w ? `${w.files} files, ${w.chunks} chunks in ${w.name}` : "no workspace"}; sessions ${s.knowledgeState.totalSessions}; maturity ${s.knowledgeState.maturity}, tier ${s.knowledgeState.tier}`,
          );
          out(
            `embedding: ${s.embedding?.state ?? "?"} (${s.embedding?.provider ?? "?"}); watcher ${s.watcher?.mode ?? "?"}`,
          );
          for (const e of (s.errors ?? []).slice(-3)) out(`error ${e.at}: ${e.message}`);
        }),
      );

    cortex
      .command("memories")
      .description("memory count, sessions, maturity, the most recalled memories")
      .action(
        run(async () => {
          const s = await deps.call("cortex.status", {}, t);
          const w = pickWs(s);
          const k = s.knowledgeState;
          out(
            `memories: ${w ? `${w.files} files, ${w.chunks} chunks (workspace ${w.name}, ${w.root})` : "no workspace"}`,
          );
          out(
            `daily logs: ${k.memoryDays ?? 0} days${k.oldestMemory ? ` since ${k.oldestMemory}` : ""}; sessions: ${k.totalSessions}; maturity: ${k.maturity} (tier ${k.tier})`,
          );
          const ents = w?.topEntities ?? [];
          if (ents.length)
            out(
              `top entities: ${ents.map((/** @type {any} */ e) => `${e.name}${e.aliases?.length ? ` (aka ${e.aliases.join(", ")})` : ""} (${e.chunks})`).join(", ")}`,
            );
          const lists = await deps.call("promote.list", { ...deps.ws }, t).catch(() => []);
          const top = (lists[0]?.candidates ?? []).slice(0, 5);
          if (top.length) {
            out("most recalled:");
            for (const c of top)
              out(`  - ${String(c.text ?? c.snippet ?? "").slice(0, 120)}${c.path ? ` (${c.path})` : ""}`);
          } else out("most recalled: none yet (a memory recalled 3 times for 3 different questions shows here)");
        }),
      );

    cortex
      .command("search")
      .description("search memory (hybrid keyword + semantic), with citations")
      .argument("<query...>", "what to look for")
      .option("-n, --limit <n>", "number of results", "6")
      .action(
        /** @param {string[]} words @param {{ limit?: string }} opts */ (words, opts) =>
          run(async () => {
            const query = words.join(" ").trim();
            const limit = Math.min(50, Math.max(1, Number.parseInt(opts?.limit ?? "6", 10) || 6));
            const r = await deps.call("memory.search", { query, limit, ...deps.ws }, t);
            if (r.results.length === 0) return out(`No memories found for "${query}".`);
            for (const h of r.results)
              out(
                `${h.path}#L${h.startLine}-L${h.endLine}  ${h.score.toFixed(3)}  ${String(h.snippet).replace(/\s+/g, " ").slice(0, 200)}`,
              );
          })(),
      );

    cortex
      .command("config")
      .description("the plugin's effective config and the daemon's")
      .action(
        run(async () => {
          out(JSON.stringify({ plugin: deps.cfg, ignoredCortexKeys: deps.ignored }, null, 2));
          const s = await deps.call("cortex.status", {}, t).catch((/** @type {unknown} */ e) => ({ error: why(e) }));
          const daemon =
            "error" in s
              ? s
              : {
                  version: s.version,
                  socketPath: s.socketPath,
                  config: s.config,
                  workspaces: (s.workspaces ?? []).map((/** @type {any} */ w) => ({ name: w.name, root: w.root })),
                  embedding: { provider: s.embedding?.provider, model: s.embedding?.model },
                };
          out(JSON.stringify({ daemon }, null, 2));
        }),
      );

    cortex
      .command("reset")
      .description(
        "rebuild cortexd's index from the memory files and clear its session state (recovery notes, capture watermarks); the memory files are yours and are never deleted",
      )
      .option("-y, --yes", "do not ask for confirmation")
      .action(
        /** @param {{ yes?: boolean }} opts */ (opts) =>
          run(async () => {
            if (!opts?.yes) {
              const ask =
                deps.ask ??
                (async (/** @type {string} */ q) => {
                  const rl = createInterface({ input: process.stdin, output: process.stdout });
                  try {
                    return await rl.question(q);
                  } finally {
                    rl.close();
                  }
                });
              const a = await ask(
                "Rebuild the index from the memory files and clear cortexd's session state? The memory files are not touched. [y/N] ",
              );
              if (!/^y(es)?$/i.test(a.trim())) return out("Nothing changed.");
            }
            const cleared = await deps.call("session.reset", { ...deps.ws }, t);
            const synced = await deps.call("index.sync", { force: true, ...deps.ws }, Math.max(t, 600_000));
            const files = (synced.reports ?? []).reduce(
              (/** @type {number} */ n, /** @type {any} */ r) =>
                n + (r.added ?? 0) + (r.changed ?? 0) + (r.unchanged ?? 0),
              0,
            );
            out(
              `Index rebuilt from the memory files (${files} files re-read); session state cleared (${cleared.cleared} sessions). No memory file was changed.`,
            );
          })(),
      );

    cortex
      .command("pair")
      .description("(Cortex cloud only) has no meaning for cortexd")
      .action(() =>
        out(
          "pair has no meaning for cortexd: it is a local engine; your memory stays in this machine's files and there is nothing to link.",
        ),
      );
  };
}

/** The descriptor OpenClaw lists before loading the plugin. */
export const CLI_DESCRIPTORS = [
  { name: "cortex", description: "cortexd memory: status, memories, search, config, reset", hasSubcommands: true },
];
