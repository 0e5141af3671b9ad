import { spawn } from "node:child_process";
import type { Command } from "commander";
import { probeDaemon, withClient } from "../../client/client.js";
import { CliError } from "../cli-error.js";
import type { GlobalOptions } from "../context.js";
import { daemonSocket } from "../daemon-target.js";
import { printJson } from "../print-json.js";

interface UiOptions extends GlobalOptions {
  open?: boolean;
}

/** A browser can be opened: macOS, or a Linux/BSD desktop session (an X or Wayland display). */
function canOpenBrowser(env: NodeJS.ProcessEnv): string | null {
  if (process.platform === "darwin") return "open";
  if (process.platform === "win32") return null;
  return env.DISPLAY || env.WAYLAND_DISPLAY ? "xdg-open" : null;
}

/**
 * `cortexd ui`: asks the running daemon to serve its local memory console (loopback only; started on
 * demand when `ui.enabled` is off), then opens it in the browser, or prints the URL when there is no
 * display. The URL carries this daemon start's token: it is for the local user only.
 */
export function registerUi(program: Command): void {
  program
    .command("ui")
    .description("open the local memory console (a web page the daemon serves on 127.0.0.1; docs/console.md)")
    .option("--no-open", "print the URL, do not open a browser")
    .action(async (_o, cmd: Command) => {
      const opts = cmd.optsWithGlobals<UiOptions>();
      const socket =
        daemonSocket(opts) ??
        (await import("../../daemon/socket.js")).socketPathFor((await import("../context.js")).loadForCli(opts));
      const probe = await probeDaemon(socket, 2000);
      if (!probe.up)
        throw new CliError(
          `the console is served by the daemon, which is not running (${probe.detail}): start it with \`cortexd start\`, then run \`cortexd ui\` again`,
        );
      const opened = await withClient(socket, (c) => c.call("console.open", {}), { timeoutMs: 10_000 });
      if (opts.json) return printJson(opened);
      const opener = opts.open === false ? null : canOpenBrowser(process.env);
      if (opener) {
        const child = spawn(opener, [opened.url], { detached: true, stdio: "ignore" });
        child.on("error", () => console.error(`could not start ${opener}: open the URL above yourself`));
        child.unref();
      }
      console.log(opened.url);
      console.log(
        opener
          ? "opened in your browser (the link holds a token valid until the daemon stops: do not share it)"
          : "open this URL in a browser on this machine (the token in it is valid until the daemon stops: do not share it)",
      );
    });
}
