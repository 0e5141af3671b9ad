/** The event JSON a hook reads on stdin. */

const MAX_STDIN_BYTES = 16 * 1024 * 1024;

export type Input = Record<string, unknown>;

export function isJson(raw: string): boolean {
  const t = raw.trim();
  return t.startsWith("{") || t.startsWith("[");
}

export function parseInput(raw: string): Input {
  if (!isJson(raw)) return {};
  try {
    const v: unknown = JSON.parse(raw);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Input) : {};
  } catch {
    return {};
  }
}

/** Reads stdin to the end ("" for a terminal); the overall deadline bounds the wait. */
export function readStdin(stdin: NodeJS.ReadableStream & { isTTY?: boolean }): Promise<string> {
  if (stdin.isTTY) return Promise.resolve("");
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let bytes = 0;
    stdin.on("data", (d: Buffer | string) => {
      const b = typeof d === "string" ? Buffer.from(d) : d;
      if (bytes + b.length <= MAX_STDIN_BYTES) parts.push(b);
      bytes += b.length;
    });
    stdin.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    stdin.on("error", () => resolve(Buffer.concat(parts).toString("utf8")));
  });
}
