/**
 * The one walk the text filters share: every string of a result, copied on write. An object or
 * array none of whose strings changed is answered as itself, so an untouched result costs no
 * allocation and stays the object that arrived. Base64 payloads (`blob`, and `data` of image
 * and audio blocks) are skipped: no secret or address is read from picture bytes.
 */

/** Rewrites a string; answers `s` itself when nothing changed. */
export type StringRewrite = (s: string) => string;

/** `value` with `rewrite` applied to each of its strings (see the module comment). */
export function mapStrings<T>(value: T, rewrite: StringRewrite): T {
  return walk(value, rewrite) as T;
}

function walk(value: unknown, rewrite: StringRewrite): unknown {
  if (typeof value === "string") return rewrite(value);
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      const n = walk(v, rewrite);
      if (n !== v) (out ??= value.slice())[i] = n;
    }
    return out ?? value;
  }
  const obj = value as Record<string, unknown>;
  const binary = obj.type === "image" || obj.type === "audio";
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(obj)) {
    if (key === "blob" || (binary && key === "data")) continue;
    const v = obj[key];
    const n = walk(v, rewrite);
    if (n !== v) (out ??= { ...obj })[key] = n;
  }
  return out ?? value;
}

/** A rule of a {@link redactor}: a regex source and what a match becomes (`undefined`: kept). */
export interface RedactRule {
  readonly label: string;
  readonly source: string;
  /** Decides on a match (checksums); default: `[redacted:<label>]`. */
  readonly replace?: (match: string, groups: Record<string, string | undefined>) => string;
}

/**
 * One rewrite running every rule in a single pass: the rules are joined into one regex with a
 * named group each (`r0`, `r1`, …), and the group that matched says which rule decides.
 */
export function redactor(rules: readonly RedactRule[]): StringRewrite {
  const re = new RegExp(rules.map((r, i) => `(?<r${i}>${r.source})`).join("|"), "g");
  const names = rules.map((_, i) => `r${i}`);
  return (s) => {
    let hits = 0;
    re.lastIndex = 0;
    const out = s.replace(re, (...args) => {
      const match = args[0] as string;
      const groups = args[args.length - 1] as Record<string, string | undefined>;
      const i = names.findIndex((n) => groups[n] !== undefined);
      const rule = rules[i]!;
      const next = rule.replace ? rule.replace(match, groups) : `[redacted:${rule.label}]`;
      if (next !== match) hits++;
      return next;
    });
    return hits === 0 ? s : out;
  };
}
