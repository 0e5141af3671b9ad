/**
 * Hosts as people write them: domain names ("db-stage-3.internal", "grafana.example.com") and IPv4
 * addresses, with a port or not — not file names ("notes.md") or tools ("Node.js").
 */

/** A domain name's labels ("db-stage-3.internal"): two or more, the last of letters only. */
const DOMAIN = /^[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.([a-z]{2,})(?::\d{1,5})?$/;
/** An IPv4 address, with a port or not. */
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?::\d{1,5})?$/;
/** Endings that make a dotted word a file name or a tool ("notes.md", "Node.js"), not a host. */
const FILE_ENDING = new Set(
  `md markdown txt json jsonl yaml yml toml ini cfg conf env lock log csv tsv xml html htm css scss sql db sqlite
   js mjs cjs jsx ts tsx py rb go rs java kt swift c h cc cpp hpp cs php sh bash zsh ps1 bat exe dll so dylib
   pdf png jpg jpeg gif svg webp mp3 mp4 mov zip gz tgz tar bz2 xz gguf bin wasm ipynb pem key crt`.split(/\s+/),
);

/** A host as written (any case): a label that opens with a capital and goes on in lower case ("it.Then") is a sentence run into the next, not a domain name. */
export function isHost(word: string): boolean {
  if (/\.[A-Z][a-z]/.test(word)) return false;
  const w = word.toLowerCase();
  if (IPV4.test(w)) return true;
  const m = DOMAIN.exec(w);
  // The first label has two characters or more: "e.g", "i.e" are no hosts.
  return !!m && !FILE_ENDING.has(m[1]!) && /^[a-z0-9-]{2,}\./.test(w);
}
