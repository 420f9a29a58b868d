/**
 * The one walk the text filters share: every string of a result, copied on write. An object or
 * array none of whose strings changed is answered as itself, so an untouched result costs no
 * allocation and stays the object that arrived. Only real binary payloads are skipped, and only
 * where the protocol puts them: the base64 `data` of an image or audio block and the `blob` of
 * an embedded resource in a result's `content`, and the `blob` of a read's `contents` — no
 * secret or address is read from picture bytes, and redacting inside them would corrupt them.
 * A key named `blob` or an image-typed object anywhere else (in `structuredContent`, `_meta`, an
 * error's `data`) is text like any other.
 */

/** Rewrites a string; answers `s` itself when nothing changed. */
export type StringRewrite = (s: string) => string;

/** `value` with `rewrite` applied to each of its strings (see the module comment). */
export function mapStrings<T>(value: T, rewrite: StringRewrite): T {
  if (!isObject(value)) return walk(value, rewrite) as T;
  return mapKeys(
    value,
    (key, v) =>
      Array.isArray(v) && (key === "content" || key === "contents")
        ? mapEach(v, (b) => block(b, key, rewrite))
        : walk(v, rewrite),
  ) as T;
}

/** One content block (`content`) or read item (`contents`), its binary payload skipped. */
function block(b: unknown, list: "content" | "contents", rewrite: StringRewrite): unknown {
  if (!isObject(b)) return walk(b, rewrite);
  const skip = list === "contents"
    ? "blob"
    : b.type === "image" || b.type === "audio"
    ? "data"
    : "";
  const embedded = list === "content" && b.type === "resource";
  return mapKeys(b, (key, v) => {
    if (key === skip) return v;
    if (embedded && key === "resource") return block(v, "contents", rewrite);
    return walk(v, rewrite);
  });
}

function walk(value: unknown, rewrite: StringRewrite): unknown {
  if (typeof value === "string") return rewrite(value);
  if (Array.isArray(value)) return mapEach(value, (v) => walk(v, rewrite));
  if (isObject(value)) return mapKeys(value, (_, v) => walk(v, rewrite));
  return value;
}

/** `list` with `next` applied to each item; itself when no item changed. */
export function mapEach(list: readonly unknown[], next: (v: unknown) => unknown): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    const n = next(v);
    if (n !== v) (out ??= list.slice())[i] = n;
  }
  return (out ?? list) as unknown[];
}

/** `obj` with `next` applied to each own key's value; itself when no value changed. */
export function mapKeys(
  obj: Record<string, unknown>,
  next: (key: string, v: unknown) => unknown,
): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    const n = next(key, v);
    // The spread copies every own key, `__proto__` too, so this sets the copy's own key.
    if (n !== v) (out ??= { ...obj })[key] = n;
  }
  return out ?? obj;
}

/** A JSON object (not an array, not null). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
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
