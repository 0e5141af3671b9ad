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
  /** cortexd records each recall/search answer to this gateway (/audit on|off); default true. */
  auditLog?: boolean;
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
  logger?: { debug?(msg: string): void; info?(msg: string): void; warn?(msg: string): void; error?(msg: string): void };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each hook has its own event type
  on(event: string, handler: (event: any, ctx: any) => unknown): void;
  registerGatewayMethod(name: string, handler: (args: GatewayMethodArgs) => Promise<void> | void): void;
  /** A tool, or a factory OpenClaw calls with each conversation's tool context (its sessionKey, …). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- OpenClaw's tool context
  registerTool(tool: PluginTool | ((ctx: any) => PluginTool), opts?: { names: string[] }): void;
  registerCommand?(cmd: {
    name: string;
    description: string;
    acceptsArgs?: boolean;
    handler: (ctx: unknown) => Promise<{ text: string }> | { text: string };
  }): void;
  registerService?(svc: { id: string; start(ctx?: unknown): void | Promise<void>; stop(): void }): void;
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
export function captureWindow(messages: unknown): unknown[];
/** Where cortexd listens, as the daemon resolves it from the environment; throws when no path fits. */
export function defaultSocketPath(env?: NodeJS.ProcessEnv, opts?: { platform?: NodeJS.Platform; uid?: number }): string;
