import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { redactSecrets } from "../src/memory-files/redact.js";
import { daemonsPerTest } from "./helpers/daemon.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

/**
 * Secrets in realistic formats (made-up values shaped like the real ones) never reach a memory file
 * or the index, through save or capture; ordinary prose, hashes and ids are left alone.
 */
const REALISTIC: [name: string, text: string, secret: string, kind: string][] = [
  [
    "OpenAI legacy",
    "key sk-9Zq3LmT7xV2bN8cR4fK1pW6yH0jD5sA3gE7uI2oQ4tY8nM1v here",
    "9Zq3LmT7xV2bN8cR4fK1pW6yH0jD5sA3",
    "openai-key",
  ],
  [
    "OpenAI project",
    "OPENAI sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-AbCdEfGhIjKlMnOpQrSt",
    "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
    "openai-key",
  ],
  [
    "OpenAI service account",
    "sk-svcacct-Zx8Cv7Bn6Mm5Ll4Kk3Jj2Hh1Gg0Ff9Dd8Ss7Aa6Qq5Ww4Ee3Rr2Tt1Yy0",
    "Zx8Cv7Bn6Mm5Ll4Kk3Jj2Hh1Gg0Ff9Dd8",
    "openai-key",
  ],
  [
    "Anthropic",
    "ANTHROPIC_KEY is sk-ant-api03-h7Gf2Kd9Lm4Np8Qr3St6Uv1Wx5Yz0Ab2Cd4Ef6Gh8Ij0Kl2Mn4Op6Qr8St0Uv2Wx4Yz6Ab8Cd0Ef2Gh4Ij6Kl8Mn0Op2Qr4St6Uv8-Wx0YzAA",
    "h7Gf2Kd9Lm4Np8Qr3St6Uv1Wx5Yz0Ab2",
    "anthropic-key",
  ],
  ["AWS access key id", "id AKIAZ7X3Q2M4N6P8R0T2 in us-east-1", "AKIAZ7X3Q2M4N6P8R0T2", "aws-access-key"],
  ["AWS temporary key id", "ASIAY4W6E8R0T2Y4U6I8", "ASIAY4W6E8R0T2Y4U6I8", "aws-access-key"],
  [
    "AWS secret (env)",
    "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "secret",
  ],
  [
    "AWS secret (prose)",
    "the aws secret key is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY ok",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "aws-secret-key",
  ],
  [
    "GitHub classic",
    "ghp_1A2b3C4d5E6f7G8h9I0j1K2l3M4n5O6p7Q8r",
    "1A2b3C4d5E6f7G8h9I0j1K2l3M4n5O6p7Q8r",
    "github-token",
  ],
  [
    "GitHub app",
    "gho_Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8 and ghs_Qw3Er4Ty5Ui6Op7As8Df9Gh0Jk1Lz2Xc3Vb4",
    "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8",
    "github-token",
  ],
  [
    "GitHub fine-grained",
    "github_pat_11AABBCCD0123456789abcdEFGHijklMNOPqrstUVWXyz_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNO",
    "0123456789abcdEFGHijklMNOPqrstUVWXyz",
    "github-token",
  ],
  ["Slack bot", "xoxb-2345678901234-3456789012345-aBcDeFgHiJkLmNoPqRsTuVwX", "aBcDeFgHiJkLmNoPqRsTuVwX", "slack-token"],
  [
    "Slack user",
    "xoxp-2345678901234-3456789012345-4567890123456-0123456789abcdef0123456789abcdef",
    "0123456789abcdef0123456789abcdef",
    "slack-token",
  ],
  [
    "Slack app",
    "xapp-1-A0123BCDEFG-1234567890123-0123456789abcdef0123456789abcdef",
    "0123456789abcdef0123456789abcdef",
    "slack-token",
  ],
  [
    "Slack webhook",
    "https://hooks.slack.com/services/T01234567/B0123456789/aBcDeFgHiJkLmNoPqRsTuVwX",
    "aBcDeFgHiJkLmNoPqRsTuVwX",
    "slack-webhook",
  ],
  [
    "Stripe live",
    "sk_live_51Hq2XyZaBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ00AbCdEfGh",
    "51Hq2XyZaBcDeFgHiJkLmNoPqRsTuVwXyZ",
    "stripe-key",
  ],
  [
    "Stripe restricted",
    "rk_live_51Hq2XyZaBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
    "51Hq2XyZaBcDeFgHiJkLmNoPqRsTuVwXyZ",
    "stripe-key",
  ],
  [
    "Stripe webhook secret",
    "whsec_3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a",
    "3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
    "stripe-key",
  ],
  [
    "JWT",
    "token eyJhbGciOiJSUzI1NiIsImtpZCI6IjEyMyJ9.eyJpc3MiOiJodHRwczovL2F1dGguZXhhbXBsZS5jb20iLCJzdWIiOiJ1c2VyLTQyIn0.dGhpcyBpcyBub3QgYSByZWFsIHNpZ25hdHVyZQ",
    "eyJpc3MiOiJodHRwczovL2F1dGguZXhhbXBsZS5jb20i",
    "jwt",
  ],
  [
    "PEM PKCS#8",
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n-----END PRIVATE KEY-----",
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj",
    "private-key",
  ],
  [
    "PEM EC",
    "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY/PuoAoGCCqGSM49\n-----END EC PRIVATE KEY-----",
    "MHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY",
    "private-key",
  ],
  [
    "PEM OpenSSH, cut off",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
    "private-key",
  ],
  ["Postgres URL", "postgresql://app_user:Tr0ub4dor%263@db.prod.internal:5432/main", "Tr0ub4dor%263", "password"],
  ["Redis URL without user", "redis://:s3cretRedisPass@cache:6379/0", "s3cretRedisPass", "password"],
  ["MongoDB SRV", "mongodb+srv://admin:P%40ssw0rd2024@cluster0.ab1cd.mongodb.net/test", "P%40ssw0rd2024", "password"],
  [
    "Bearer header",
    "curl -H 'Authorization: Bearer ya29.a0AfH6SMBx3Kq9Lm2Np8Qr3St6Uv1Wx5Yz0Ab2Cd4Ef6Gh8Ij0'",
    "a0AfH6SMBx3Kq9Lm2Np8Qr3St6Uv1Wx5Yz0",
    "bearer-token",
  ],
  [
    "Basic header",
    "Authorization: Basic YWRtaW46c3VwZXJzZWNyZXRwYXNzd29yZA==",
    "YWRtaW46c3VwZXJzZWNyZXRwYXNzd29yZA",
    "bearer-token",
  ],
  ["Google API key", "AIzaSyB3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z0A", "B3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z0A", "google-api-key"],
  ["GitLab", "glpat-xY7zA9bC1dE3fG5hJ7kL", "xY7zA9bC1dE3fG5hJ7kL", "gitlab-token"],
  [
    "npm",
    "//registry.npmjs.org/:_authToken=npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "npm-token",
  ],
  [
    "Hugging Face",
    "HF hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
    "AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
    "huggingface-token",
  ],
  [
    "password assignment",
    'db: {"password": "correct horse battery staple"}',
    "correct horse battery staple",
    "password",
  ],
];

const PROSE = [
  "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed the flaky test",
  "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 is the empty file",
  "request id 123e4567-e89b-12d3-a456-426614174000 failed at 14:05",
  "the token budget is 2000 tokens; the password reset flow needs work",
  "Bearer of bad news: the deploy failed again",
  "use the Token bucket algorithm for rate limiting",
  "ask-anything-about-the-task is a slug, and so is risk-assessment-for-q3",
  "image node:20-alpine@sha256:abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789",
  "the secret to good coffee is fresh beans; passwords must be at least 12 characters",
  "my public key is ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl me@laptop",
  "see https://example.com/path?query=1#frag and http://localhost:8080/",
  "AKIA is the prefix of AWS access key ids; sk- is OpenAI's",
  "tokenizer: bpe; max_tokens: 4096; author: Jane",
];

describe("redaction of realistic secrets", () => {
  it.each(REALISTIC)("%s", (_name, text, secret, kind) => {
    const r = redactSecrets(`Note for later: ${text} (rotate monthly)`);
    expect(r.kinds).toContain(kind);
    expect(r.text).not.toContain(secret);
    expect(r.text).toMatch(/^Note for later: /);
    // A private key block without its END line is redacted to the end of the text (nothing of it may survive).
    if (kind !== "private-key" || text.includes("-----END")) expect(r.text).toMatch(/ \(rotate monthly\)$/);
  });

  it("leaves prose, hashes, ids, public keys and URLs without credentials alone", () => {
    for (const p of PROSE) expect(redactSecrets(p), p).toEqual({ text: p, count: 0, kinds: [] });
  });
});

describe("redaction on the write paths of a real daemon", () => {
  const { daemonOn } = daemonsPerTest();

  it("memory.save and memory.capture (a secret straddling the capture's length cap too) write no secret to the files or the index", async () => {
    const root = tempDir();
    writeFiles(root, { "memory/2026-01-05.md": "# 2026-01-05\n" });
    const d = await daemonOn(root);
    for (const [name, text] of REALISTIC) {
      const r = await d.call("memory.save", { text: `${name}: ${text}` });
      expect(r.redactions, name).toBeGreaterThan(0);
    }
    // A long user message whose key (in a JSON blob without spaces) sits across the 400-character cap of a captured turn.
    const head = `${"We are setting up the billing export job for staging. ".repeat(5).slice(0, 230)} {"service":"`;
    const blob = `${head}${"b".repeat(385 - head.length - 12)}","openai":"`;
    expect(blob.length).toBe(385);
    const straddling = `${blob}sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"} for it.`;
    const messages = [
      { role: "user", content: straddling },
      {
        role: "assistant",
        content: `Configured. The webhook is https://hooks.slack.com/services/T01234567/B0123456789/aBcDeFgHiJkLmNoPqRsTuVwX and the DB is postgresql://app_user:Tr0ub4dor%263@db.prod.internal:5432/main. ${"More detail about the export. ".repeat(20)}`,
      },
      ...REALISTIC.flatMap(([name, text], i) => [
        { role: "user", content: `${name}: ${text}` },
        // distinct words per turn, so near-duplicate detection keeps every turn
        {
          role: "assistant",
          content: `Stored it as item${i} with notes ${["amber", "basil", "cedar", "delta", "ember", "fjord", "gale", "haze"].map((w) => `${w}${i}`).join(" ")}.`,
        },
      ]),
    ];
    const c = await d.call("memory.capture", { session_id: "redact-1", messages });
    expect(c.stored).toBe(true);
    expect(c.entries).toBe(REALISTIC.length + 1);
    expect(c.redactions).toBeGreaterThanOrEqual(REALISTIC.length + 1);

    const files = readdirSync(join(root, "memory")).map((f) => readFileSync(join(root, "memory", f), "utf8"));
    const all = files.join("\n");
    expect(all).toContain("[REDACTED:openai-key]");
    const leaks = [...REALISTIC.map(([, , secret]) => secret), "sk-proj-Ab3d", "aBcDeFgHiJkLmNoPqRsTuVwX", "Tr0ub4dor"];
    for (const s of leaks) expect(all, s).not.toContain(s);
    for (const s of ["AKIAZ7X3Q2M4N6P8R0T2", "Tr0ub4dor", "wJalrXUtnFEMI"]) {
      expect(
        (await d.call("memory.search", { query: s, limit: 50 })).results.filter((h) => h.snippet.includes(s)),
      ).toEqual([]);
    }
  });
});
