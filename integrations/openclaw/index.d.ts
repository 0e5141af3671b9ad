/** Types for the cortexd OpenClaw plugin (the implementation is plain ESM JavaScript). */

export interface CortexdPluginConfig {
  socketPath?: string;
  workspace?: string;
  autoRecall?: boolean;
  autoCapture?: boolean;
  /** Also recall MEMORY.md/USER.md (OpenClaw already puts them in the system prompt); default false. */
  recallCurated?: boolean;
  recallBudgetTokens?: number;
  recallTimeoutMs?: number;
  captureTimeoutMs?: number;
  scope?: "auto" | "private" | "group";
  // The Cortex plugin's keys (see compat.js): honoured…
  recallLimit?: number;
  recallTopK?: number;
  toolTimeoutMs?: number;
  captureMaxPayloadBytes?: number;
  captureFilter?: boolean;
  /** cortexd records each recall/search answer to this gateway (/audit on|off); default true. */
  auditLog?: boolean;
  namespace?: string;
  recallReferenceDate?: string;
  fileSync?: boolean;
  transcriptSync?: boolean;
  // …and accepted with a warning (cloud only).
  apiKey?: string;
  baseUrl?: string;
  userId?: string;
  recallProfile?: string;
  recallQueryType?: string;
  dedupeWindowMinutes?: number;
  noveltyThreshold?: number;
}

/** OpenClaw's AgentToolResult: content for the model, details for logs/UI. */
export interface ToolResult {
  content: { type: "text"; text: string }[];
  details: unknown;
}

/** OpenClaw's AgentTool (the subset used): failures are thrown, not returned. */
export interface PluginTool {
  name: string;
  label: string;
  description: string;
  parameters: Record<string, unknown>;
  execute(id: string, params: Record<string, unknown>): Promise<ToolResult>;
}

export interface GatewayMethodArgs {
  params?: unknown;
  respond: (ok: boolean, payload?: unknown, error?: { code: string; message: string; details?: unknown }) => void;
}

/** The subset of OpenClaw's plugin API this plugin uses. */
export interface OpenClawPluginApi {
  pluginConfig?: CortexdPluginConfig;
  /** OpenClaw's runtime helpers (the subset used: where the gateway keeps its state). */
  runtime?: { state?: { resolveStateDir?(): string } };
  logger?: { debug?(msg: string): void; info?(msg: string): void; warn?(msg: string): void; error?(msg: string): void };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each hook has its own event type
  on(event: string, handler: (event: any, ctx: any) => unknown): void;
  /** Absent on older runtimes: the plugin then serves no cortex.status. */
  registerGatewayMethod?(name: string, handler: (args: GatewayMethodArgs) => Promise<void> | void): void;
  /** A tool, or a factory OpenClaw calls with each conversation's tool context (its sessionKey, …); absent on older runtimes. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- OpenClaw's tool context
  registerTool?(tool: PluginTool | ((ctx: any) => PluginTool), opts?: { names: string[] }): void;
  registerCommand?(cmd: {
    name: string;
    description: string;
    acceptsArgs?: boolean;
    handler: (ctx: unknown) => Promise<{ text: string }> | { text: string };
  }): void;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Commander's program, OpenClaw's CLI context
  registerCli?(registrar: (ctx: { program: any }) => void | Promise<void>, opts?: { descriptors?: unknown[] }): void;
  registerService?(svc: { id: string; start(ctx?: unknown): void | Promise<void>; stop(): void | Promise<void> }): void;
}

/** OpenClaw's OpenClawPluginConfigSchema (safeParse + JSON Schema). */
export interface PluginConfigSchema {
  safeParse(value: unknown): {
    success: boolean;
    data?: unknown;
    error?: { issues: { path: (string | number)[]; message: string }[] };
  };
  jsonSchema: Record<string, unknown>;
}

declare const plugin: {
  id: string;
  name: string;
  description: string;
  version: string;
  configSchema: PluginConfigSchema;
  register(api: OpenClawPluginApi): void;
};
export default plugin;

export const configSchema: PluginConfigSchema;
export function normalizeConfig(
  raw: unknown,
): Required<Omit<CortexdPluginConfig, "workspace">> & { workspace?: string };
export function scopeFor(configured: "auto" | "private" | "group", ctx: unknown): "private" | "group";
/** The scope params of a call to cortexd: the scope, and in a group the session key (its own memories). */
export function scopeParams(
  configured: "auto" | "private" | "group",
  ctx: unknown,
): { scope: "private" | "group"; group?: string };
export function captureWindow(messages: unknown, opts?: { maxBytes?: number; filter?: boolean }): unknown[];
export function createGate(opts?: { clock?: () => number; failures?: number; coolOffMs?: number }): {
  allow(): boolean;
  success(): void;
  failure(e: unknown): void;
  state(): { open: boolean; consecutiveFailures: number; retryInMs?: number; skippedRecalls: number };
};
export function createCaptureQueue(opts: {
  file: string | null;
  send: (method: string, params: Record<string, unknown>) => Promise<unknown>;
  log?: { debug?(m: string): void; info?(m: string): void; warn?(m: string): void };
  clock?: () => number;
  maxItems?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
}): {
  enqueue(method: string, params: Record<string, unknown>): void;
  nudge(): void;
  pending(): number;
  stats(): { pending: number; delivered: number; dropped: number; failures: number; lastError: string | null };
  flush(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
};
/** Where cortexd listens, as the daemon resolves it from the environment; throws when no path fits. */
export function defaultSocketPath(env?: NodeJS.ProcessEnv, opts?: { platform?: NodeJS.Platform; uid?: number }): string;
/** cortexd not reached, or gone (reason: "no-socket", "stale-socket", "timeout", "closed", …). */
export class DaemonUnavailableError extends Error {
  constructor(reason: string, message: string, code?: string);
  reason: string;
  code?: string;
}
/** `openclaw cortex`: the root command's descriptor (the manifest's cliCommands say the same). */
export const CLI_DESCRIPTORS: { name: string; description: string; hasSubcommands: boolean }[];
