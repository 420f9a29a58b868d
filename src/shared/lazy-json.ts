/**
 * @module JSON lines parsed without copying their long strings. `JSON.parse` copies every string
 * out of the text it reads, so a large tool result lives twice: once as the line (kept to be sent
 * on as it came, `raw-json.ts`) and once as the parsed text. A large line is parsed here as a
 * skeleton instead — its long string literals replaced by short marks — and each long string
 * becomes a property that parses its slice of the line the first time it is read. What the
 * gateway reads of a result (`isError`, the content blocks' types, the ids) is parsed at once;
 * a long text nobody reads (the common case: it is sent on as raw text) is never copied. Whoever
 * does read it (a filter, a script, the SDK client's schema check, `JSON.stringify`) gets the
 * same value `JSON.parse` would have given.
 *
 * The line is checked as `JSON.parse` would check it: the skeleton is parsed, and each long
 * string is checked to be a valid JSON string body, so a line this path accepts is valid JSON.
 *
 * The same holds the other way: a large request body is parsed here too (`readJson`), and a value
 * written to a stdio server is serialised by `jsonParts`, which leaves each long string nobody
 * read as its literal, a slice of the body it came in — so a large argument the gateway only
 * passes on is neither parsed nor serialised again.
 */

/** Lines shorter than this are parsed whole: the skeleton only pays off for large ones. */
export const LAZY_LINE_CHARS = 1024 * 1024;
/** String literals at least this long (quotes included) stay in the line until read. */
const LAZY_STRING_CHARS = 64 * 1024;
/**
 * A line with more strings than this is parsed whole: the skeleton's scan visits each string in
 * script, and a line made of many short ones has nothing to save anyway.
 */
const MAX_STRINGS = 100_000;
/** What a JSON string body may not contain unescaped. */
// deno-lint-ignore no-control-regex -- control characters are exactly what it looks for
const CONTROL = /[\u0000-\u001f]/;
/** What may follow a backslash in a JSON string (the backslash's own character). */
const ESCAPES = new Set([...'"\\/bfnrt'].map((c) => c.charCodeAt(0)));
const HEX4 = /[0-9a-fA-F]{4}/y;
/**
 * The marks that stand for long strings in a skeleton. A random part, so no upstream can write a
 * string that passes for one.
 */
const MARK = `\u0000lazy-${crypto.randomUUID()}-`;

/**
 * `JSON.parse(line)`, except that a large line's long strings are read from the line on first
 * use (see the module comment). Throws as `JSON.parse` does on a line that is not JSON.
 */
export function parseLine(line: string): unknown {
  if (line.length < LAZY_LINE_CHARS) return JSON.parse(line);
  let lazy: unknown;
  try {
    lazy = parseLazily(line);
  } catch {
    lazy = undefined; // too deep to walk, or a skeleton that does not parse: JSON.parse decides
  }
  return lazy === undefined ? JSON.parse(line) : lazy;
}

/** The lazily parsed value of `text`; `undefined` when it has no long string or is not valid. */
function parseLazily(text: string): unknown {
  const spans: number[] = [];
  let strings = 0;
  for (let at = text.indexOf('"'); at !== -1;) {
    if (++strings > MAX_STRINGS) return undefined;
    const close = closingQuote(text, at + 1);
    if (close === -1) return undefined;
    if (close + 1 - at >= LAZY_STRING_CHARS && !isKey(text, close + 1)) spans.push(at, close + 1);
    at = text.indexOf('"', close + 1);
  }
  if (spans.length === 0) return undefined;
  const pieces: string[] = [];
  let from = 0;
  for (let i = 0; i < spans.length; i += 2) {
    const start = spans[i]!;
    const end = spans[i + 1]!;
    if (!isStringBody(text, start + 1, end - 1)) return undefined;
    pieces.push(text.slice(from, start), JSON.stringify(`${MARK}${i}`));
    from = end;
  }
  pieces.push(text.slice(from));
  const skeleton: unknown = JSON.parse(pieces.join(""));
  const left = { count: spans.length / 2 };
  if (typeof skeleton === "string") return undefined; // the whole line one string: nothing to save
  attach(skeleton, text, spans, left);
  return left.count === 0 ? skeleton : undefined;
}

/** The index of the quote that closes the string whose body starts at `from`; -1 if none. */
function closingQuote(text: string, from: number): number {
  for (let q = text.indexOf('"', from); q !== -1; q = text.indexOf('"', q + 1)) {
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === 92) slashes++;
    if (slashes % 2 === 0) return q;
  }
  return -1;
}

/**
 * True when `text` from `from` to `to` is a valid JSON string body: no control character, and
 * every backslash starts a known escape. (Its quotes are escaped: see {@link closingQuote}.)
 */
function isStringBody(text: string, from: number, to: number): boolean {
  if (CONTROL.test(text.slice(from, to))) return false;
  for (let at = text.indexOf("\\", from); at !== -1 && at < to; at = text.indexOf("\\", at)) {
    const next = text.charCodeAt(at + 1);
    if (ESCAPES.has(next)) {
      at += 2;
      continue;
    }
    HEX4.lastIndex = at + 2;
    if (next !== 117 || at + 6 > to || !HEX4.test(text)) return false; // 117: "u"
    at += 6;
  }
  return true;
}

/** True when the string ending before `after` is an object key (a colon follows it). */
function isKey(text: string, after: number): boolean {
  let at = after;
  while (at < text.length && " \t\r\n".includes(text[at]!)) at++;
  return text[at] === ":";
}

/** Puts a lazy property wherever a mark stands in `node`; counts down `left.count`. */
function attach(node: unknown, text: string, spans: number[], left: { count: number }): void {
  if (typeof node !== "object" || node === null || left.count === 0) return;
  const holder = node as Record<string, unknown>;
  const keys = Array.isArray(node) ? undefined : Object.keys(node);
  const n = keys ? keys.length : (node as unknown[]).length;
  for (let i = 0; i < n && left.count > 0; i++) {
    const key = keys ? keys[i]! : String(i);
    const value = holder[key];
    if (typeof value === "string") {
      if (!value.startsWith(MARK)) continue;
      const at = Number(value.slice(MARK.length));
      defineLazy(holder, key, text, spans[at]!, spans[at + 1]!);
      left.count--;
    } else attach(value, text, spans, left);
  }
}

/** `holder[key]` becomes the string literal at `start…end` of `text`, parsed when first read. */
function defineLazy(
  holder: Record<string, unknown>,
  key: string,
  text: string,
  start: number,
  end: number,
): void {
  let unread = UNREAD.get(holder);
  if (unread === undefined) {
    unread = new Map();
    UNREAD.set(holder, unread);
    // Never over a member the JSON itself has: that holder is then serialised as any other.
    if (!Object.hasOwn(holder, "toJSON")) {
      Object.defineProperty(holder, "toJSON", {
        value: holderJson,
        enumerable: false,
        writable: true,
        configurable: true,
      });
    }
  }
  unread.set(key, [text, start, end]);
  const settle = (value: unknown) => {
    unread.delete(key);
    Object.defineProperty(holder, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  };
  Object.defineProperty(holder, key, {
    enumerable: true,
    configurable: true,
    get() {
      const value: unknown = JSON.parse(text.slice(start, end));
      settle(value);
      return value;
    },
    set: settle,
  });
}

/**
 * Per object with long strings not read yet: where each one's literal is, as `[line, start, end]`
 * (quotes included).
 */
const UNREAD = new WeakMap<object, Map<string, readonly [string, number, number]>>();
/** True while {@link jsonParts} serialises; {@link literals} are the ones its marks stand for. */
let collecting = false;
const literals: string[] = [];
/** How a mark of {@link jsonParts} begins in the serialised text (its closing quote left off). */
const ESCAPED_MARK = JSON.stringify(MARK).slice(0, -1);

/**
 * The `toJSON` of an object with long strings not read yet: the object itself, except inside
 * {@link jsonParts}, where a copy stands for it with a mark in place of each such string, so the
 * string is neither parsed nor copied into the serialised text.
 */
function holderJson(this: Record<string, unknown>): unknown {
  const unread = collecting ? UNREAD.get(this) : undefined;
  if (unread === undefined || unread.size === 0) return this;
  const copy: Record<string, unknown> = Array.isArray(this)
    ? ([] as unknown as Record<string, unknown>)
    : {};
  for (const key of Object.keys(this)) {
    const span = unread.get(key);
    if (span === undefined) copy[key] = this[key];
    else {
      copy[key] = `${MARK}${literals.length}`;
      literals.push(span[0].slice(span[1], span[2]));
    }
  }
  return copy;
}

/**
 * `JSON.stringify(value)` as the parts to write one after the other: a long string of a lazily
 * parsed value that nobody has read is a part of its own, the literal as it stood in the line it
 * came in (a slice of that line, not a copy), and the text between them the other parts. A value
 * without such strings is one part. What the parts spell is what `JSON.stringify` would give, up
 * to how a string's characters are escaped.
 */
export function jsonParts(value: unknown): string[] {
  collecting = true;
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    literals.length = 0; // a value that does not serialise leaves nothing for the next
    throw err;
  } finally {
    collecting = false;
  }
  if (literals.length === 0) return [text];
  const found = literals.splice(0);
  const parts: string[] = [];
  let from = 0;
  for (let at = text.indexOf(ESCAPED_MARK); at !== -1; at = text.indexOf(ESCAPED_MARK, from)) {
    const close = text.indexOf('"', at + ESCAPED_MARK.length);
    parts.push(text.slice(from, at), found[Number(text.slice(at + ESCAPED_MARK.length, close))]!);
    from = close + 1;
  }
  parts.push(text.slice(from));
  return parts;
}

/**
 * A request's JSON body, as `request.json()` reads it; one declared as large as a lazily parsed
 * line is read as text and parsed as {@link parseLine} parses, so its long strings can travel on
 * unread ({@link jsonParts}). Throws as `request.json()` does on a body that is not JSON.
 */
export async function readJson(request: Request): Promise<unknown> {
  const declared = Number(request.headers.get("content-length"));
  return declared >= LAZY_LINE_CHARS ? parseLine(await request.text()) : await request.json();
}
