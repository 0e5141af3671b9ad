/**
 * Settings as values: a port ("port 5173") and an amount of a setting ("a 30 minute timeout", "8
 * replicas", "512 MB heap"). An amount is a value only in a statement about a setting (its words
 * below): "the session timeout is 30 minutes" is a setting that changes, "standup ran 45 minutes
 * over" is an event, and two events must not supersede each other.
 */

/** Units by family: a slot holds one family (a timeout in seconds and one in minutes are one setting). */
const UNITS: Readonly<Record<string, string>> = Object.assign(Object.create(null) as Record<string, string>, {
  ms: "time",
  millisecond: "time",
  milliseconds: "time",
  s: "time",
  sec: "time",
  secs: "time",
  second: "time",
  seconds: "time",
  min: "time",
  mins: "time",
  minute: "time",
  minutes: "time",
  h: "time",
  hr: "time",
  hrs: "time",
  hour: "time",
  hours: "time",
  day: "time",
  days: "time",
  kb: "bytes",
  kib: "bytes",
  mb: "bytes",
  mib: "bytes",
  gb: "bytes",
  gib: "bytes",
  tb: "bytes",
});
/** Things counted in a setting ("8 replicas"): the count's class is the thing. */
const COUNTED =
  /^(?:replica|worker|thread|shard|partition|pod|instance|connection|retr(?:y|ie)|attempt|node|core|cpu|vcpu)s?$/;
/** Words of a statement about a setting, not an event. */
const SETTING =
  /\b(?:timeouts?|ttl|intervals?|expir\w*|retention|delays?|backoff|cooldown|debounce|limits?|max|maximum|minimum|memory|heap|disk|cache|quota|size|ram|storage|pool|retries|retry|replicas?|workers?|threads?|shards?|partitions?|pods?|instances?|concurrency|budget|config\w*)\b/i;
/** A number as an amount: digits, a decimal. */
const AMOUNT = /^\d+(?:\.\d+)?$/;
/** A number with its unit attached ("30s", "512MB", "250ms"). */
const ATTACHED = /^(\d+(?:\.\d+)?)(ms|s|kb|mb|gb|tb|kib|mib|gib)$/i;

export interface SettingValue {
  text: string;
  cls: string;
  /** Words it takes: 1 (attached unit) or 2. */
  words: 1 | 2;
}

/** The setting value a word (and the next) make in a statement, or null. */
export function settingValue(word: string, next: string | undefined, statement: string): SettingValue | null {
  const w = word.toLowerCase();
  if (w === "port" && next && /^\d{2,5}$/.test(next)) return { text: `port ${next}`, cls: "port", words: 2 };
  const attached = ATTACHED.exec(word);
  if (attached && SETTING.test(statement))
    return { text: word, cls: `amount:${UNITS[attached[2]!.toLowerCase()]!}`, words: 1 };
  if (!AMOUNT.test(word) || !next) return null;
  const n = next.toLowerCase();
  const unit = UNITS[n];
  if (unit && SETTING.test(statement)) return { text: `${word} ${next}`, cls: `amount:${unit}`, words: 2 };
  if (COUNTED.test(n) && SETTING.test(statement)) {
    const thing = n.replace(/ies$/, "y").replace(/s$/, "");
    return { text: `${word} ${next}`, cls: `count:${thing === "retry" ? "attempt" : thing}`, words: 2 };
  }
  return null;
}
