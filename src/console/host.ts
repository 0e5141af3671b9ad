import type { Logger } from "pino";
import type { LatencyWindow } from "../daemon/latency.js";
import type { MethodHandlers } from "../rpc/server.js";
import type { UiConfig } from "../config/schema.js";
import { loadAssets } from "./assets.js";
import { consoleCaller } from "./calls.js";
import { newSecrets, removeTokenFile, tokenFileFor, writeTokenFile } from "./secrets.js";
import { startConsoleServer, type ConsoleServer } from "./server.js";

export interface ConsoleOpened {
  /** The console's address with this daemon start's token (what `cortexd ui` opens). */
  url: string;
  port: number;
  tokenFile: string;
}

/**
 * The daemon's side of the console: started on demand (`console.open`, `cortexd ui`) or at start-up
 * (`ui.enabled`), once per daemon run; its token is new at each start and written, with the URL, to a
 * 0600 file beside the socket; stopped (and the file removed) with the daemon.
 */
export class ConsoleHost {
  private readonly secrets = newSecrets();
  private starting: Promise<ConsoleServer> | null = null;
  private server: ConsoleServer | null = null;

  constructor(
    private readonly deps: {
      config: () => UiConfig;
      handlers: MethodHandlers;
      latency: LatencyWindow;
      socketPath: string;
      logger: Logger;
    },
  ) {}

  get tokenFile(): string {
    return tokenFileFor(this.deps.socketPath);
  }

  async open(): Promise<ConsoleOpened> {
    this.starting ??= this.start().catch((e: unknown) => {
      this.starting = null;
      throw e;
    });
    const server = await this.starting;
    return { url: `${server.url}?token=${this.secrets.token}`, port: server.port, tokenFile: this.tokenFile };
  }

  private async start(): Promise<ConsoleServer> {
    const { logger } = this.deps;
    const server = await startConsoleServer({
      port: this.deps.config().port,
      secrets: this.secrets,
      assets: loadAssets(),
      api: { call: consoleCaller(this.deps.handlers), latency: this.deps.latency },
      logger,
    });
    this.server = server;
    writeTokenFile(this.tokenFile, {
      url: `${server.url}?token=${this.secrets.token}`,
      port: server.port,
      pid: process.pid,
    });
    logger.info({ url: server.url }, "console serving on loopback");
    return server;
  }

  async close(): Promise<void> {
    if (!this.starting) return;
    await this.starting.catch(() => {});
    await this.server?.close();
    removeTokenFile(this.tokenFile);
  }
}
