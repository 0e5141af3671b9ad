import { readdirSync } from "node:fs";
import { extname, join } from "node:path";
import { readRegularTextSync } from "../util/regular-file.js";
import { PACKAGE_ROOT } from "../version.js";

/**
 * The page's files, shipped in the package and read once when the console starts: the HTML and CSS
 * (console-web/static) and the browser modules the build compiles (dist/console-web). Served by
 * name from this map only — a request's path never reaches the file system.
 */

export interface Asset {
  body: Buffer;
  type: string;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
};

export const ASSET_DIRS = [join(PACKAGE_ROOT, "console-web", "static"), join(PACKAGE_ROOT, "dist", "console-web")];

export function loadAssets(dirs: readonly string[] = ASSET_DIRS): Map<string, Asset> {
  const out = new Map<string, Asset>();
  for (const dir of dirs) {
    for (const name of readdirSync(dir)) {
      const type = TYPES[extname(name)];
      if (!type || !/^[\w.-]+$/.test(name)) continue;
      out.set(name, { body: Buffer.from(readRegularTextSync(join(dir, name), { maxBytes: 4 * 1024 * 1024 })), type });
    }
  }
  const page = out.get("index.html");
  if (!page || !out.has("app.js"))
    throw new Error(`the console's files are missing (looked in ${dirs.join(", ")}): run \`npm run build\``);
  out.set("index.html", { ...page, body: withModulePreloads(page.body, [...out.keys()]) });
  return out;
}

/**
 * The page with a `modulepreload` link for each of its modules: the browser fetches them all at once
 * while it reads the page, instead of learning of each module's imports only once its importer has
 * arrived (app.js → its pages → their helpers: three round trips, ~0.3–0.6 s on a loaded machine).
 */
export function withModulePreloads(html: Buffer, names: readonly string[]): Buffer {
  const links = names
    .filter((n) => n.endsWith(".js"))
    .sort()
    .map((n) => `    <link rel="modulepreload" href="/assets/${n}" />\n`)
    .join("");
  const text = html.toString("utf8");
  const at = text.indexOf("  </head>");
  if (at < 0) throw new Error("the console's index.html has no </head> line");
  return Buffer.from(text.slice(0, at) + links + text.slice(at));
}
