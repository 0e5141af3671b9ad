import { mulberry32 } from "../../src/util/prng.js";
import type { GeneratedWorkspace } from "./generate.js";
import { WorkspaceWriter } from "./workspace-writer.js";

/**
 * A second corpus generator, shaped unlike generate.ts so that figures do not hinge on one
 * generator: a knowledge base of project notes rather than daily logs. Other vocabulary (longer
 * real words, no syllable tail, identifiers with digits), file sizes spread log-normally (many
 * notes under 1 KB, a few over 40 KB), and deep heading structure (# / ## / ### numbered
 * sections, key: value fact lists, tables). Markdown only.
 */

const DOMAINS: Record<string, string> = {
  infrastructure:
    "kubernetes terraform ingress certificate renewal autoscaler nodepool replica quorum failover snapshot backup restore bastion firewall subnet gateway loadbalancer healthcheck rollout canary",
  research:
    "hypothesis experiment baseline ablation dataset annotation benchmark regression variance significance protocol reviewer manuscript citation appendix figure methodology sampling cohort",
  gardening:
    "tomato seedling compost mulch irrigation pruning trellis greenhouse fertilizer germination perennial hedge orchard harvest pollinator aphids raspberry lavender",
  legal:
    "contract clause indemnity liability amendment counterparty signature jurisdiction arbitration compliance trademark license warranty termination renewal invoice retainer",
  hiring:
    "candidate interview onboarding referral recruiter offer compensation equity probation mentor feedback scorecard headcount contractor internship relocation",
  product:
    "roadmap milestone persona wireframe prototype usability feedback backlog estimate sprint retrospective launch pricing churn activation onboarding telemetry",
};
const COMMON =
  "the of and to in is that for it as with was on be by this are from at or an have not which but were been has their more will would also when".split(
    " ",
  );
const OWNERS = "Amara Bjorn Chiara Dmitri Esme Farid Greta Hiro Ines Joaquin Kavya Luca".split(" ");

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

/** Log-normal size in bytes, clamped (median ≈ 1.6 KB). */
function logNormalBytes(r: () => number, scale: number): number {
  const u = Math.max(1e-9, r());
  const v = r();
  const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  return Math.round(Math.min(80_000, Math.max(200, Math.exp(7.4 + 1.1 * z))) * scale);
}

function words(domain: string): string[] {
  return DOMAINS[domain]!.split(" ");
}

function sentence(r: () => number, domain: string): string {
  const ws = words(domain);
  const n = 6 + Math.floor(r() * 18);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const x = r();
    out.push(
      x < 0.5
        ? pick(r, COMMON)
        : x < 0.93
          ? pick(r, ws)
          : x < 0.97
            ? `${pick(r, ws)}-${Math.floor(r() * 90 + 10)}`
            : pick(r, OWNERS),
    );
  }
  const s = out.join(" ");
  return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
}

function section(r: () => number, domain: string, level: number, number: string): string {
  const ws = words(domain);
  let s = `${"#".repeat(level)} ${number} ${pick(r, ws)} ${pick(r, ws)}\n\n`;
  const kind = r();
  if (kind < 0.35) s += `${Array.from({ length: 1 + Math.floor(r() * 4) }, () => sentence(r, domain)).join(" ")}\n\n`;
  else if (kind < 0.65)
    s += `${Array.from({ length: 2 + Math.floor(r() * 5) }, () => `- ${pick(r, ws)}: ${sentence(r, domain)}`).join("\n")}\n\n`;
  else if (kind < 0.85) {
    s += `| item | owner | status |\n|---|---|---|\n`;
    s += `${Array.from({ length: 2 + Math.floor(r() * 5) }, () => `| ${pick(r, ws)} ${pick(r, ws)} | ${pick(r, OWNERS)} | ${pick(r, ["open", "done", "blocked", "review"])} |`).join("\n")}\n\n`;
  } else s += `1. ${sentence(r, domain)}\n2. ${sentence(r, domain)}\n3. ${sentence(r, domain)}\n\n`;
  return s;
}

function noteFile(r: () => number, title: string, domain: string, target: number): string {
  let s = `# ${title}\n\nOwner: ${pick(r, OWNERS)} · domain: ${domain}\n\n`;
  let h2 = 0;
  while (s.length < target) {
    h2++;
    s += section(r, domain, 2, `${h2}.`);
    const subs = Math.floor(r() * 4);
    for (let h3 = 1; h3 <= subs && s.length < target; h3++) s += section(r, domain, 3, `${h2}.${h3}`);
  }
  return s;
}

/** Generates the notes-shaped workspace (MEMORY.md, USER.md, notes in topic folders under memory/notes). */
export function generateNotesWorkspace(root: string, files = 2000, seed = 7, sizeFactor = 1): GeneratedWorkspace {
  const out = new WorkspaceWriter(root);
  const write = (rel: string, content: string) => out.write(rel, content);
  const r = mulberry32(seed);
  const domains = Object.keys(DOMAINS);
  write(
    "MEMORY.md",
    `# Memory\n\n${Array.from({ length: 60 }, () => `- ${sentence(r, pick(r, domains))}`).join("\n")}\n`,
  );
  write("USER.md", `# User\n\n${Array.from({ length: 12 }, () => `- ${sentence(r, "hiring")}`).join("\n")}\n`);
  for (let i = 0; i < files - 2; i++) {
    const domain = pick(r, domains);
    const ws = words(domain);
    write(
      `memory/notes/${domain}/${pick(r, ws)}-${i}.md`,
      noteFile(r, `${pick(r, ws)} ${pick(r, ws)} ${i}`, domain, logNormalBytes(r, sizeFactor)),
    );
  }
  return { root, files, bytes: out.bytes };
}
