/**
 * Redacts obvious secrets before anything is written to a memory file: provider API keys, tokens,
 * private key blocks, JWTs, bearer tokens, credentials in URLs and `password=` / `token:` style
 * assignments. Each secret becomes `[REDACTED:<kind>]`; the text around it is kept.
 *
 * Patterns are deliberately specific (known prefixes and lengths) so ordinary prose survives.
 */

export interface Redaction {
  text: string;
  /** Number of secrets replaced. */
  count: number;
  /** Kinds found, in order of first appearance, without repeats. */
  kinds: string[];
}

interface Rule {
  kind: string;
  re: RegExp;
  /** Builds the replacement from the match (default: the marker alone). */
  replace?: (marker: string, ...groups: string[]) => string;
}

const marker = (kind: string) => `[REDACTED:${kind}]`;

/** Order matters: specific formats first, generic assignments last (they skip what is already redacted). */
const RULES: Rule[] = [
  {
    kind: "private-key",
    re: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END \1PRIVATE KEY(?: BLOCK)?-----|$)/g,
  },
  { kind: "anthropic-key", re: /\bsk-ant-(?:api|admin|oat)?\d{0,2}-?[A-Za-z0-9_-]{20,}/g },
  { kind: "openai-key", re: /\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}/g },
  { kind: "stripe-key", re: /\b(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})/g },
  { kind: "github-token", re: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g },
  { kind: "gitlab-token", re: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { kind: "aws-access-key", re: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g },
  { kind: "slack-token", re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: "slack-token", re: /\bxapp-\d-[A-Za-z0-9-]{10,}/g },
  { kind: "slack-webhook", re: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]{20,}/g },
  { kind: "google-api-key", re: /\bAIza[0-9A-Za-z_-]{35}/g },
  { kind: "npm-token", re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: "huggingface-token", re: /\bhf_[A-Za-z0-9]{30,}\b/g },
  { kind: "jwt", re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  {
    kind: "bearer-token",
    re: /\b(Bearer|Token|Basic)(\s+)(?!\[REDACTED)([A-Za-z0-9._~+/-]{16,}=*)/g,
    replace: (m, scheme, space) => `${scheme}${space}${m}`,
  },
  {
    // scheme://user:password@host (the user may be empty: redis://:password@host)
    kind: "password",
    re: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)(?!\[REDACTED)([^\s@/]{3,})(@)/gi,
    replace: (m, before, _secret, at) => `${before}${m}${at}`,
  },
  {
    // Escaped JSON inside a string: {\"password\": \"hunter22\"} (a log line or a tool result quoted again)
    kind: "password",
    re: /(\\")([A-Za-z0-9_-]*?(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret)(?:[_-][A-Za-z0-9_]+)?)(\\"\s*:\s*\\")(?!\[REDACTED)((?:[^"\\\n]|\\(?!"))){4,200}?(?=\\")/gi,
    replace: (m, q, key, sep) => `${q}${key}${sep}${m}`,
  },
  {
    // curl -u user:pass, curl --user user:pass
    kind: "password",
    re: /(\bcurl\b[^\n]*?\s(?:-u|--user)[ =]?\s*["']?[^\s:"']+:)(?!\[REDACTED)([^\s"']{3,})/g,
    replace: (m, before) => `${before}${m}`,
  },
  {
    // --password X, --password=X, --passwd X, -p X after sshpass, mysql -pX
    kind: "password",
    re: /((?:--(?:password|passwd|pass|db-password|token|secret|api-key)|\bsshpass\s+-p)(?:\s+|=)["']?)(?!\[REDACTED)(?!-)(?!(?:flag|option|argument|parameter|is|was|and|or|to|for|with|from|of)\b)([^\s"']{3,})/gi,
    replace: (m, before) => `${before}${m}`,
  },
  {
    // PGPASSWORD=…, MYSQL_PWD=…, REDISCLI_AUTH=… (environment variables that carry a password)
    kind: "password",
    re: /\b((?:PGPASSWORD|MYSQL_PWD|REDISCLI_AUTH|SSHPASS)\s*=\s*["']?)(?!\[REDACTED)([^\s"']{3,})/g,
    replace: (m, before) => `${before}${m}`,
  },
  {
    // password=hunter22, "api_key": "…", token: abc…, export GITHUB_TOKEN=…, AWS_SECRET_ACCESS_KEY=…
    kind: "secret",
    re: /(["']?)\b([A-Za-z0-9_-]*?(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret)(?:[_-][A-Za-z0-9_]+)?)\1(\s*[:=]\s*)(?:"([^"\n]{4,200})"|'([^'\n]{4,200})'|(?!\[REDACTED)([^\s"'`,;)}\]]{4,}))/gi,
    replace: (m, q1, key, sep, dq, sq) => `${q1}${key}${q1}${sep}${dq ? `"${m}"` : sq ? `'${m}'` : m}`,
  },
  {
    // (after the assignments) A 40-character AWS secret access key named as such nearby ("aws secret key: …"); alone it is just base64.
    kind: "aws-secret-key",
    re: /\b(aws[\w .-]{0,20}?secret[\w .-]{0,20}?[:=]?\s*["']?)([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi,
    replace: (m, before) => `${before}${m}`,
  },
];

/** Words that follow "password:" / "token:" in prose and are not secrets. */
const NOT_A_VALUE =
  /^(?:true|false|null|none|undefined|required|optional|redacted|hidden|string|number|enabled|disabled|\d{1,9}(?:\.\d+)?[a-z%]{0,3}|\*+|x+|\.\.\.+|<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?)$/i;

export function redactSecrets(input: string): Redaction {
  let text = input;
  let count = 0;
  const kinds: string[] = [];
  for (const rule of RULES) {
    text = text.replace(rule.re, (...args: unknown[]) => {
      const match = args[0] as string;
      const groups = args.slice(1, -2).map((g) => (typeof g === "string" ? g : ""));
      let kind = rule.kind;
      if (rule.kind === "secret") {
        const value = groups[3] || groups[4] || groups[5] || "";
        if (value.startsWith("[REDACTED")) return match;
        if (NOT_A_VALUE.test(value)) return match;
        const key = (groups[1] ?? "").toLowerCase();
        kind = /pass|pwd/.test(key)
          ? "password"
          : /token/.test(key)
            ? "token"
            : /secret/.test(key)
              ? "secret"
              : "api-key";
      }
      count++;
      if (!kinds.includes(kind)) kinds.push(kind);
      return rule.replace ? rule.replace(marker(kind), ...groups) : marker(kind);
    });
  }
  return { text, count, kinds };
}
