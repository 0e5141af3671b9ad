/** Types for the cortexd OpenClaw plugin (the implementation is plain ESM JavaScript). */

export interface CortexdPluginConfig {
  socketPath?: string;
  workspace?: string;
  autoRecall?: boolean;
  autoCapture?: boolean;
  recallBudgetTokens?: number;
  recallTimeoutMs?: number;
  captureTimeoutMs?: number;
  scope?: "auto" | "private" | "group";
  recallHook?: "auto" | "before_prompt_build" | "before_agent_start";
}

export interface ToolResult {
  content: { type: "text"; text: string }[];
  isError?: boolean;
}

export interface PluginTool {
  name: string;
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
  registerTool(tool: PluginTool): void;
  registerCommand?(cmd: { name: string; description: string; handler: (ctx: unknown) => Promise<{ text: string }> | { text: string } }): void;
  registerService?(svc: { id: string; start(ctx?: unknown): void; stop(): void }): void;
}

declare const plugin: {
  id: string;
  name: string;
  description: string;
  version: string;
  configSchema: Record<string, unknown>;
  register(api: OpenClawPluginApi): void;
};
export default plugin;

export function normalizeConfig(raw: unknown): Required<Omit<CortexdPluginConfig, "workspace">> & { workspace?: string };
export function captureWindow(messages: unknown): unknown[];
