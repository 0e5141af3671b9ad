import { homedir } from "node:os";
import { createInterface } from "node:readline";
import type { Command } from "commander";
import { openclawPluginDir } from "../../install/self.js";
import { shellQuote as shellWord } from "../../hooks/install.js";
import { detect, type Detected } from "../../init/detect.js";
import { applySetup, propose, type InitChoices, type SetupOutcome } from "../../init/setup.js";
import { absoluteSelector } from "../../workspace/resolve.js";
import { CliError, printJson, type GlobalOptions } from "../context.js";
import { errorMessage } from "../../util/error-message.js";

interface InitOptions extends GlobalOptions {
  yes?: boolean;
  dryRun?: boolean;
  transcripts?: boolean;
  claudeMemory?: boolean;
  hooks?: string;
  service?: boolean;
}

interface InitReport extends SetupOutcome {
  detected: Detected;
  hooks?: { settingsPath: string; changed: boolean; events: string[] } | { error: string };
  service?:
    | { path: string; written: boolean; enabled?: string; problem?: string; noServiceManager?: boolean }
    | { error: string };
  next: string[];
}

const tilde = (p: string, home: string) =>
  p === home ? "~" : p.startsWith(`${home}/`) ? `~${p.slice(home.length)}` : p;

function describeDetected(d: Detected): string[] {
  const h = (p: string) => tilde(p, d.home);
  return [
    `config:      ${d.config.exists ? `${h(d.config.file)}${d.config.error ? ` (INVALID: ${d.config.error})` : ` (${d.config.workspaces.map((w) => `${h(w.path)}${w.exists ? "" : " — missing"}`).join(", ")})`}` : "none yet"}`,
    `OpenClaw:    ${d.openclaw.workspace ? `${h(d.openclaw.workspace)}${d.openclaw.sessionDirs.length ? `, ${d.openclaw.sessionDirs.length} agent session dir${d.openclaw.sessionDirs.length === 1 ? "" : "s"}` : ""}` : "no ~/.openclaw/workspace"}`,
    `Claude Code: ${d.claudeCode.memory.paths.length ? `memory: ${d.claudeCode.memory.summary}; ` : ""}${d.claudeCode.projectsDir ? `${d.claudeCode.transcripts} transcript${d.claudeCode.transcripts === 1 ? "" : "s"} in ${d.claudeCode.projects} project${d.claudeCode.projects === 1 ? "" : "s"} under ${h(d.claudeCode.projectsDir)}` : "no transcripts under ~/.claude/projects"}`,
  ];
}

/** Questions on a terminal (node:readline: three questions do not need a prompt library). */
async function ask(
  d: Detected,
  choices: InitChoices,
  opts: InitOptions,
): Promise<{ choices: InitChoices; hooks: boolean; service: boolean }> {
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: false });
  // Lines are read from a buffered iterator: answers typed (or pasted) ahead are not lost; end of input takes the defaults.
  const lines = rl[Symbol.asyncIterator]();
  const question = async (q: string): Promise<string> => {
    process.stdout.write(q);
    const next = await lines.next();
    return next.done ? "" : String(next.value).trim();
  };
  try {
    const yes = async (q: string, def: boolean) => {
      const a = (await question(`${q} [${def ? "Y/n" : "y/N"}] `)).toLowerCase();
      return a === "" ? def : a.startsWith("y");
    };
    const answer = await question(`memory workspace [${tilde(choices.workspace, d.home)}]: `);
    const workspace = answer ? absoluteSelector(answer, process.cwd(), d.home) : choices.workspace;
    const next =
      workspace === choices.workspace
        ? choices
        : propose(d, { workspace, transcripts: opts.transcripts !== false, claudeMemory: opts.claudeMemory !== false });
    let transcriptDirs = next.transcriptDirs;
    if (
      transcriptDirs.length &&
      !(await yes(`also index ${transcriptDirs.map((t) => tilde(t, d.home)).join(", ")}?`, true))
    )
      transcriptDirs = [];
    const offerHooks = d.claudeCode.present && !d.claudeCode.hooksInstalled;
    const hooks =
      opts.hooks === "claude-code" ||
      (offerHooks && (await yes("install the Claude Code hooks (memories recalled into each prompt)?", true)));
    const service = opts.service === true || (await yes("start cortexd at login (systemd/launchd service)?", false));
    return { choices: { ...next, workspace, transcriptDirs }, hooks, service };
  } finally {
    rl.close();
  }
}

export function registerInit(program: Command): void {
  program
    .command("init")
    .description(
      "set up cortexd: find OpenClaw / Claude Code memory, create a memory workspace, write the config (idempotent)",
    )
    .option("-y, --yes", "accept the proposal without asking (the default when not on a terminal)")
    .option("--dry-run", "say what would be done, change nothing")
    .option("--no-transcripts", "do not index agent transcripts (OpenClaw sessions, ~/.claude/projects)")
    .option("--no-claude-memory", "do not index Claude Code's own memory (auto memory, CLAUDE.md files)")
    .option("--hooks <agent>", "also install the agent's hooks (claude-code)")
    .option("--service", "also install and start the login service (cortexd service install)")
    .action(async (_o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<InitOptions>();
      if (opts.hooks && opts.hooks !== "claude-code")
        throw new CliError(
          `--hooks: only claude-code is supported, got "${opts.hooks}" (OpenClaw: the plugin in ${openclawPluginDir()}, MCP: cortexd mcp)`,
        );
      const d = detect(
        opts.config ? { configFile: absoluteSelector(opts.config, process.cwd(), process.env.HOME || homedir()) } : {},
      );
      if (d.config.error) throw new CliError(`the config is not valid, so init leaves it alone: ${d.config.error}`, 78);
      const flagged = opts.workspace ? absoluteSelector(opts.workspace, process.cwd(), d.home) : undefined;
      let choices = propose(d, {
        ...(flagged ? { workspace: flagged } : {}),
        transcripts: opts.transcripts !== false,
        claudeMemory: opts.claudeMemory !== false,
      });
      let hooks = opts.hooks === "claude-code";
      let service = opts.service === true;
      const interactive = !opts.yes && !opts.json && !opts.dryRun && process.stdin.isTTY && process.stdout.isTTY;
      if (!opts.json) for (const line of ["found:", ...describeDetected(d).map((l) => `  ${l}`)]) console.log(line);
      if (interactive) ({ choices, hooks, service } = await ask(d, choices, opts));
      if (opts.dryRun) {
        const plan = { dryRun: true, detected: d, ...choices, hooks, service };
        if (opts.json) return printJson(plan);
        console.log(
          `would use the workspace ${choices.workspace}${choices.transcriptDirs.length ? ` with transcripts from ${choices.transcriptDirs.join(", ")}` : ""}, and write ${d.config.file}`,
        );
        if (hooks) {
          const { defaultClaudeSettingsPath, defaultHookCommand } = await import("../../hooks/install.js");
          console.log(
            `would install the Claude Code hooks in ${defaultClaudeSettingsPath()} (${defaultHookCommand()} …)`,
          );
        }
        if (service) console.log("would install the login service (see `cortexd service install --dry-run`)");
        return;
      }
      const outcome = applySetup(d, choices);
      const report: InitReport = { ...outcome, detected: d, next: [] };
      const configArg = opts.config ? ` --config ${d.config.file}` : "";
      if (hooks) {
        try {
          const { installClaudeHooks, shellQuote } = await import("../../hooks/install.js");
          const r = installClaudeHooks({
            dryRun: false,
            ...(opts.config ? { extraArgs: `--config ${shellQuote(d.config.file)}` } : {}),
          });
          report.hooks = { settingsPath: r.settingsPath, changed: r.changed, events: r.events };
        } catch (e) {
          report.hooks = { error: errorMessage(e) };
        }
      }
      if (service) {
        try {
          const { installService } = await import("./service.js");
          const r = installService({
            ...(opts.config ? { config: d.config.file } : {}),
            ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
          });
          report.service = {
            path: r.path,
            written: r.written,
            ...(r.enabled ? { enabled: r.enabled } : {}),
            ...(r.problem ? { problem: r.problem } : {}),
            ...(r.noServiceManager ? { noServiceManager: true } : {}),
          };
        } catch (e) {
          report.service = { error: errorMessage(e) };
        }
      }
      // Later: a git-backed workspace also gets `cortexd sync init` (.gitattributes for memory files) here.
      const serviceRunning = !!report.service && "enabled" in report.service && !!report.service.enabled;
      report.next = serviceRunning
        ? [`cortexd${configArg} status`]
        : [`cortexd${configArg} start`, `cortexd${configArg} status`];
      if (!report.hooks && d.claudeCode.present && !d.claudeCode.hooksInstalled)
        report.next.push(`cortexd${configArg} hook install claude-code   # recall in Claude Code (or: cortexd mcp)`);
      if (d.openclaw.workspace)
        report.next.push(
          `openclaw plugins install -l ${shellWord(openclawPluginDir())} --force --accept-capabilities   # the OpenClaw plugin`,
        );
      if (opts.json) return printJson(report);
      const h = (p: string) => tilde(p, d.home);
      console.log(
        `workspace:   ${outcome.workspace}${outcome.created.length ? ` (created ${outcome.created.join(", ")})` : " (already a workspace, left as it is)"}`,
      );
      if (outcome.transcriptDirs.length) console.log(`transcripts: ${outcome.transcriptDirs.map(h).join(", ")}`);
      if (outcome.claudeCodeMemory)
        console.log(`Claude Code: ${d.claudeCode.memory.summary} (indexed with the workspace, never written)`);
      console.log(`config:      ${outcome.configChanged ? "wrote" : "unchanged"} ${outcome.configFile}`);
      if (report.hooks)
        console.log(
          `hooks:       ${"error" in report.hooks ? `NOT installed: ${report.hooks.error}` : `${report.hooks.changed ? "installed in" : "already in"} ${report.hooks.settingsPath}`}`,
        );
      if (report.service) {
        const s = report.service;
        console.log(
          `service:     ${"error" in s ? `NOT installed: ${s.error}` : `${s.path}${s.enabled ? `, ${s.enabled}` : ""}${s.problem ? `; not enabled:\n${s.problem.replace(/^/gm, "             ")}` : ""}`}`,
        );
      }
      console.log(`next:        ${report.next.join("\n             ")}`);
      if (
        (report.hooks && "error" in report.hooks) ||
        // No service manager (a container, CI) is not a failed setup: the rest is done and the message says what to run.
        (report.service && ("error" in report.service || (report.service.problem && !report.service.noServiceManager)))
      )
        process.exitCode = 1;
    });
}
