import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { DaemonUnavailableError, withClient } from "../../client/client.js";
import { editConfigFile } from "../../config/edit.js";
import { defaultConfigPath, expandPath } from "../../config/paths.js";
import { BUILTIN_MODEL_NAME, buildBuiltinModel } from "../../embed/builtin/build.js";
import { builtinModelPath, ensureBuiltinModel } from "../../embed/builtin/ensure.js";
import { ggufValue, readGgufInfo } from "../../embed/gguf/reader.js";
import { modelsDir, selectProvider } from "../../embed/select.js";
import { socketPathFor } from "../../daemon/socket.js";
import { sha256File } from "../../util/hash.js";
import { CliError, loadForCli, printJson, type GlobalOptions } from "../context.js";
import { modelBuildProgress } from "../progress.js";

export interface ModelInfo {
  path: string;
  name: string | null;
  architecture: string | null;
  dims: number | null;
  vocab: number | null;
  contextLength: number | null;
  license: string | null;
  source: string | null;
  bytes: number;
  sha256?: string;
  builtin: boolean;
}

/** Reads a GGUF's identity from its metadata (no model load). */
export async function modelInfo(path: string, withHash = false): Promise<ModelInfo> {
  const info = await readGgufInfo(path);
  const str = (k: string) => {
    const v = ggufValue(info, k);
    return v === undefined ? null : String(v);
  };
  const arch = str("general.architecture");
  const num = (k: string) => {
    const v = ggufValue(info, k);
    return typeof v === "number" || typeof v === "bigint" ? Number(v) : null;
  };
  const tokens = ggufValue(info, "tokenizer.ggml.tokens");
  const name = str("general.name");
  return {
    path,
    name,
    architecture: arch,
    dims: arch ? num(`${arch}.embedding_length`) : null,
    vocab: Array.isArray(tokens) ? tokens.length : null,
    contextLength: arch ? num(`${arch}.context_length`) : null,
    license: str("general.license"),
    source: str("general.source.url") ?? str("general.source"),
    bytes: statSync(path).size,
    ...(withHash ? { sha256: await sha256File(path) } : {}),
    builtin: name === BUILTIN_MODEL_NAME,
  };
}

function describe(m: ModelInfo, active: boolean): string {
  const mb = (m.bytes / 1e6).toFixed(1);
  return [
    `${active ? "* " : "  "}${m.name ?? "(unnamed)"}${m.builtin ? " (built-in)" : ""}`,
    `    path:    ${m.path}`,
    `    model:   ${m.architecture ?? "?"}, ${m.dims ?? "?"} dims, ${m.vocab ?? "?"} tokens, context ${m.contextLength ?? "?"}, ${mb} MB`,
    ...(m.license ? [`    license: ${m.license}`] : []),
    ...(m.source ? [`    source:  ${m.source}`] : []),
    ...(m.sha256 ? [`    sha256:  ${m.sha256}`] : []),
  ].join("\n");
}

/** Tells a running daemon to re-read its config; false when no daemon runs. */
async function reloadDaemon(opts: GlobalOptions): Promise<boolean> {
  try {
    await withClient(socketPathFor(loadForCli(opts)), (c) => c.call("daemon.reload", {}), { timeoutMs: 5000 });
    return true;
  } catch (e) {
    if (e instanceof DaemonUnavailableError) return false;
    throw e;
  }
}

export function registerModel(program: Command): void {
  const model = program
    .command("model")
    .description("the embedding model: build the built-in one, list, inspect, switch");
  model
    .command("build")
    .description("build the built-in offline model (GloVe 100d, SIF-weighted) into the data dir")
    .option("--force", "rebuild even if it exists")
    .action(async (_o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions & { force?: boolean }>();
      const loaded = loadForCli(opts);
      const dir = modelsDir(loaded.dataDir);
      const t0 = Date.now();
      const progress = modelBuildProgress(!opts.json);
      const path = opts.force
        ? (await buildBuiltinModel(builtinModelPath(dir), { onProgress: progress })).path
        : await ensureBuiltinModel(dir, { onProgress: progress });
      const info = await modelInfo(path, true);
      if (opts.json) printJson({ ...info, ms: Date.now() - t0 });
      else console.log(`${describe(info, false).trimStart()}\n    ready in ${Date.now() - t0} ms`);
    });
  model
    .command("list")
    .description("models in the data dir, and the configured one")
    .action(async (_o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions>();
      const loaded = loadForCli(opts);
      const dir = modelsDir(loaded.dataDir);
      const configured =
        loaded.config.embedding.model && !loaded.config.embedding.model.startsWith("hf:")
          ? expandPath(loaded.config.embedding.model)
          : null;
      const paths = new Set<string>();
      if (existsSync(dir)) for (const f of readdirSync(dir)) if (f.endsWith(".gguf")) paths.add(join(dir, f));
      if (configured && existsSync(configured)) paths.add(configured);
      const infos: ModelInfo[] = [];
      for (const p of [...paths].sort())
        infos.push(
          await modelInfo(p).catch(
            () => ({ path: p, name: "(unreadable GGUF)", bytes: statSync(p).size }) as ModelInfo,
          ),
        );
      const activePath = loaded.config.embedding.provider === "none" ? null : (configured ?? builtinModelPath(dir));
      if (opts.json) {
        printJson({
          provider: loaded.config.embedding.provider,
          configured: loaded.config.embedding.model ?? null,
          models: infos.map((m) => ({ ...m, active: m.path === activePath })),
        });
        return;
      }
      console.log(
        `provider: ${loaded.config.embedding.provider}${loaded.config.embedding.model ? `, model ${loaded.config.embedding.model}` : " (built-in model unless one is configured)"}`,
      );
      if (infos.length === 0)
        console.log(`no models in ${dir} yet: \`cortexd model build\` (or the first index) builds the built-in one`);
      for (const m of infos) console.log(describe(m, m.path === activePath));
    });
  model
    .command("info")
    .description("details of a model (default: the one in use)")
    .argument("[path]", "a GGUF file")
    .action(async (path: string | undefined, _o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions>();
      const loaded = loadForCli(opts);
      const target = path
        ? expandPath(path)
        : loaded.config.embedding.model
          ? expandPath(loaded.config.embedding.model)
          : builtinModelPath(modelsDir(loaded.dataDir));
      if (!existsSync(target)) throw new CliError(`no model at ${target}${path ? "" : " (run `cortexd model build`)"}`);
      const info = await modelInfo(target, true);
      if (opts.json) printJson(info);
      else console.log(describe(info, false).trimStart());
    });
  model
    .command("test")
    .description("embed two probe sentences with the configured provider: latency, dimension, similarity")
    .action(async (_o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions>();
      const loaded = loadForCli(opts);
      const emb = loaded.config.embedding;
      const t0 = performance.now();
      const sel = await selectProvider(emb, { dataDir: loaded.dataDir });
      const loadMs = performance.now() - t0;
      if (!sel.provider)
        throw new CliError(
          `embedding provider ${emb.provider}: ${sel.status.state}${sel.status.reason ? `: ${sel.status.reason}` : ""}`,
        );
      const p = sel.provider;
      try {
        const probes = [
          "The deploy failed on the build server last night.",
          "Our CI pipeline broke during the release.",
        ];
        const t1 = performance.now();
        const [a, b] = await p.embedBatch(probes);
        const latencyMs = performance.now() - t1;
        const t2 = performance.now();
        await p.embedBatch([probes[0]!]);
        const singleMs = performance.now() - t2;
        let similarity: number | null = null;
        if (a && b) {
          similarity = 0;
          for (let i = 0; i < a.length; i++) similarity += a[i]! * b[i]!;
        }
        const out = {
          provider: emb.provider,
          model: p.modelName,
          identity: p.identity,
          dims: p.dims,
          loadMs: Math.round(loadMs),
          latencyMs: Math.round(latencyMs * 10) / 10,
          singleLatencyMs: Math.round(singleMs * 10) / 10,
          similarity: similarity === null ? null : Math.round(similarity * 1000) / 1000,
          probes,
        };
        if (opts.json) printJson(out);
        else {
          console.log(`provider: ${out.provider}, model ${out.model} (${out.identity})`);
          console.log(`  ready in ${out.loadMs} ms (includes one probe embed for remote providers)`);
          console.log(`  dimension: ${out.dims}`);
          console.log(`  latency:   ${out.latencyMs} ms for 2 texts, ${out.singleLatencyMs} ms for 1`);
          console.log(
            `  cosine similarity of the two probe sentences: ${out.similarity ?? "n/a (a probe had no vector)"}`,
          );
        }
      } finally {
        await p.close();
      }
    });
  model
    .command("use")
    .description(
      "switch models: a GGUF path, an hf: URI, `builtin`, or `none` (keyword-only); vectors are re-embedded in the background",
    )
    .argument("<model>", "path | hf:<uri> | builtin | none")
    .option("--no-check", "do not load the model before switching")
    .action(async (spec: string, _o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions & { check?: boolean }>();
      const loaded = loadForCli(opts);
      const file = loaded.file ?? opts.config ?? process.env.CORTEXD_CONFIG ?? defaultConfigPath();
      let changes: { path: string[]; value: unknown }[];
      if (spec === "builtin")
        changes = [
          { path: ["embedding", "provider"], value: "auto" },
          { path: ["embedding", "model"], value: undefined },
        ];
      else if (spec === "none") changes = [{ path: ["embedding", "provider"], value: "none" }];
      else {
        const model = spec.startsWith("hf:") ? spec : expandPath(spec);
        if (!spec.startsWith("hf:") && !existsSync(model)) throw new CliError(`no file at ${model}`);
        if (opts.check !== false) {
          const sel = await selectProvider(
            { ...loaded.config.embedding, provider: "local", model },
            { dataDir: loaded.dataDir },
          );
          if (!sel.provider) throw new CliError(`not switching: ${sel.status.reason}`);
          console.log(`loaded ${sel.provider.modelName}: ${sel.provider.dims} dims`);
          await sel.provider.close();
        }
        changes = [
          { path: ["embedding", "provider"], value: "local" },
          { path: ["embedding", "model"], value: model },
        ];
      }
      editConfigFile(file, changes);
      console.log(`${file}: embedding set to ${spec}`);
      if (await reloadDaemon(opts))
        console.log(
          "the running daemon switched; vectors are re-embedded in the background (keyword search keeps answering)",
        );
      else console.log("the daemon is not running; the next start or `cortexd index` uses the new model");
    });
}
