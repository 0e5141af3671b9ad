import { createReadStream, existsSync, readFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";

/**
 * An npm registry on 127.0.0.1 that holds exactly the packages of a lockfile, their tarballs read
 * from an npm cache (`npm ci` put them there), as an offline machine's registry mirror would, plus
 * any other files named in `files` (a prebuilt binary's download path → local file). Optional peer
 * dependencies the lockfile never installed are not on it: npm looks them up and takes the 404
 * as "not installed", so they are not counted as missing. It is also
 * the proxy: npm and install scripts pointed at it (`npm_config_registry`, `npm_config_proxy`,
 * `npm_config_https_proxy`) reach nothing else. Each answered request is listed in `served`, each
 * one the mirror could not answer in `missing`, each attempt to reach another host in `refused`.
 */
export interface NpmMirror {
  url: string;
  served: string[];
  missing: string[];
  refused: string[];
  close(): Promise<void>;
}

interface LockEntry {
  version?: string;
  integrity?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, unknown>;
  os?: string[];
  cpu?: string[];
  engines?: Record<string, string>;
  bin?: Record<string, string>;
  hasInstallScript?: boolean;
}

interface Version extends Omit<LockEntry, "integrity" | "link"> {
  name: string;
  version: string;
  dist: { tarball: string; integrity: string };
}

/** The cacache path of a tarball with this integrity (`sha512-<base64>`). */
function cachedTarball(npmCache: string, integrity: string): string {
  const [algo, b64] = integrity.split(" ")[0]!.split("-", 2) as [string, string];
  const hex = Buffer.from(b64, "base64").toString("hex");
  return join(npmCache, "_cacache", "content-v2", algo, hex.slice(0, 2), hex.slice(2, 4), hex.slice(4));
}

function newer(a: string, b: string): boolean {
  const pa = a.split(/[.+-]/).map(Number);
  const pb = b.split(/[.+-]/).map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) > (pb[i] ?? 0);
  return !a.includes("-") && b.includes("-");
}

export async function startNpmMirror(
  lockfile: string,
  npmCache: string,
  files: Record<string, string> = {},
): Promise<NpmMirror> {
  const lock = JSON.parse(readFileSync(lockfile, "utf8")) as { packages: Record<string, LockEntry> };
  const packuments = new Map<string, { name: string; versions: Record<string, Version>; latest: string }>();
  const tarballs = new Map<string, string>(Object.entries(files)); // "/-/<hex>.tgz" → cache path
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  // Optional peers nobody installed: npm looks them up and takes a 404 as "not there".
  const optionalPeers = new Set<string>();
  for (const [key, e] of Object.entries(lock.packages)) {
    for (const [peer, m] of Object.entries(e.peerDependenciesMeta ?? {}))
      if ((m as { optional?: boolean }).optional) optionalPeers.add(peer);
    if (!key.includes("node_modules/") || e.link || !e.version || !e.integrity) continue;
    const name = key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length);
    const file = cachedTarball(npmCache, e.integrity);
    const path = `/-/${Buffer.from(e.integrity).toString("hex").slice(0, 40)}.tgz`;
    tarballs.set(path, file);
    const { integrity, link: _link, ...meta } = e;
    const p = packuments.get(name) ?? { name, versions: {}, latest: e.version };
    p.versions[e.version] = {
      ...meta,
      name,
      version: e.version,
      dist: { tarball: url + path, integrity },
    };
    if (newer(e.version, p.latest)) p.latest = e.version;
    packuments.set(name, p);
  }

  const served: string[] = [];
  const missing: string[] = [];
  const refused: string[] = [];
  const host = new URL(url).host;
  const answer = (path: string, res: ServerResponse) => {
    const file = tarballs.get(path);
    if (file) {
      if (!existsSync(file)) {
        missing.push(path);
        res.writeHead(404).end();
        return;
      }
      served.push(path);
      res.writeHead(200, { "content-type": "application/octet-stream" });
      createReadStream(file).pipe(res);
      return;
    }
    const name = decodeURIComponent(path.slice(1));
    const p = packuments.get(name);
    if (!p) {
      if (!optionalPeers.has(name)) missing.push(path);
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
      return;
    }
    served.push(path);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ name: p.name, "dist-tags": { latest: p.latest }, versions: p.versions }));
  };
  server.on("request", (req, res) => {
    const target = new URL(req.url ?? "/", url); // a proxied request names its host
    if (target.host !== host) {
      refused.push(target.href);
      res.writeHead(403).end();
      return;
    }
    answer(target.pathname, res);
  });
  // A tunnel (CONNECT) is opened to this mirror only.
  server.on("connect", (req, socket, head) => {
    if (req.url !== host) {
      refused.push(`CONNECT ${req.url}`);
      socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
      return;
    }
    const upstream = connect(Number(new URL(url).port), "127.0.0.1", () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
  });

  return {
    url,
    served,
    missing,
    refused,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
