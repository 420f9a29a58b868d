/**
 * Text normalisation shared by the index and its queries: the same function runs on both sides,
 * so a crude stemmer is enough — it only has to be consistent, not linguistically right.
 */

// A general English stop list (function words, question words, pronouns, auxiliaries and the
// filler of a spoken request: "can you please show me how many …"), applied to tools and queries
// alike. Words that carry meaning in tool names — up, down, all, new, first, last, open, close,
// not — are kept. BM25's idf would shrink the rest anyway; dropping them keeps them from
// matching tool names and from counting as words a hit failed to match.
const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a about am an and any are as at be been being both but by can could did do does doing " +
    "each for from had has have having he her here hers herself him himself his how i if in " +
    "into is it its itself just let lets may me might must my myself of on or our ours " +
    "ourselves please shall she should so some such than that the their theirs them " +
    "themselves there these they this those to us was we were what whats when where which " +
    "while who whom whose why will with would you your yours yourself yourselves " +
    "many much also want wants need needs s t d ll m re ve"
  ).split(" "),
);

const WORD = /[\p{L}\p{N}]+/gu;
const NON_ASCII = /[\u0080-\uffff]/;
// Only marks on Latin letters: "é" → "e", but Cyrillic "й" must not become "и".
const LATIN_MARKS = /(\p{Script=Latin})\p{M}+/gu;
// A plural acronym ("URLs", "IDs") is one word, not "UR" + "Ls".
const CAMEL = /[a-z0-9][A-Z]|[A-Z][A-Z](?!s(?![a-z]))[a-z]/;
const CAMEL_SPLIT = /[A-Z]?[a-z0-9]+|[A-Z]+s?(?![a-z])/g;
const ES_AFTER = /(?:ss|x|z|ch|sh)es$/;
const KEEP_S = /(?:ss|us|is|as)$/;
const DOUBLE_CONSONANT = /([b-df-hj-km-np-rtv-xz])\1$/;

/** Reduces a lowercase word to a crude stem: plurals (`ies`, `es`, `s`) and `ing` forms. */
export function stem(word: string): string {
  const n = word.length;
  if (n <= 3) return word;
  if (n > 4 && word.endsWith("ies")) return word.slice(0, -3) + "y";
  if (n > 4 && ES_AFTER.test(word)) return word.slice(0, -2);
  if (n >= 7 && word.endsWith("ing")) {
    const base = word.slice(0, -3);
    // "mapping" → "mapp" → "map"; "filling" keeps its "ll" (the rule skips l, s and z).
    return DOUBLE_CONSONANT.test(base) && !/(?:ll|ss|zz)$/.test(base) ? base.slice(0, -1) : base;
  }
  if (word.endsWith("s") && !KEEP_S.test(word)) return word.slice(0, -1);
  return word;
}

/** Lowercases and strips diacritics (`Café` → `cafe`); ASCII input skips the Unicode work. */
export function fold(text: string): string {
  return (NON_ASCII.test(text) ? stripLatinMarks(text) : text).toLowerCase();
}

function stripLatinMarks(text: string): string {
  return text.normalize("NFKD").replace(LATIN_MARKS, "$1").normalize("NFC");
}

/**
 * Splits text into normalised terms: words of letters and digits (so `_`, `-`, `.` and `__`
 * separate), camelCase parts plus the whole compound (`GitHub` → `github`, `git`, `hub`),
 * stopwords dropped, each term stemmed. This is the tool side; queries use {@link queryWords}.
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  scanWords(text, (word, mixedCase) => {
    push(out, word.toLowerCase());
    if (mixedCase && CAMEL.test(word)) {
      for (const part of word.match(CAMEL_SPLIT) ?? []) push(out, part.toLowerCase());
    }
  });
  return out;
}

/**
 * The words of a name in order, a camelCase compound as its parts only (`createIssue` →
 * `create`, `issue`): the name's structure, where the whole compound would be one more word
 * that no request of separate words matches.
 */
export function nameWords(text: string): string[] {
  const out: string[] = [];
  scanWords(text, (word, mixedCase) => {
    if (!mixedCase || !CAMEL.test(word)) return push(out, word.toLowerCase());
    for (const part of word.match(CAMEL_SPLIT) ?? []) push(out, part.toLowerCase());
  });
  return out;
}

/** One word of a query: its term, and its camelCase parts when it is a compound. */
export interface QueryWord {
  readonly term: string;
  /** The parts of a camelCase compound (`listIssues` → `list`, `issue`); empty otherwise. */
  readonly parts: readonly string[];
  /**
   * Terms of this word written together with its neighbours that the catalog holds as one word
   * ("set up" → `setup`, "to do" → `todo`); empty otherwise.
   */
  readonly joined: readonly string[];
}

/** Adjacent words are tried written together in runs of up to this many. */
const MAX_JOINED_WORDS = 3;
/** Only the first this many words of a query are tried together (a query's cost is bounded). */
const MAX_JOINED_SCAN = 128;
/**
 * A run written together must be at least this long: two or three short words glued ("I'm",
 * "do I") make short strings that a catalog holds by chance as some other word.
 */
const MIN_JOINED_LENGTH = 4;

/**
 * The distinct words of a query. Unlike {@link tokenize}, a camelCase word stays one word: a
 * person who types "GitLab" means one thing, not "git" and "lab" as two more words to match.
 * Its parts are kept as an alternative spelling (`readFile` also finds `read_file`). With
 * `known` (is a term in the catalog?), runs of adjacent words — stopwords too — that the catalog
 * writes as one word are kept as another spelling of the run's first meaningful word: "who am
 * I" finds `whoami`, "roll back" `rollback`. A run of stopwords only becomes a word of its own.
 */
export function queryWords(text: string, known?: (term: string) => boolean): QueryWord[] {
  const written: { lower: string; term: string | undefined; parts: string[] }[] = [];
  scanWords(text, (word, mixedCase) => {
    const terms: string[] = [];
    push(terms, word.toLowerCase());
    const parts: string[] = [];
    if (mixedCase && CAMEL.test(word)) {
      for (const part of word.match(CAMEL_SPLIT) ?? []) push(parts, part.toLowerCase());
    }
    written.push({ lower: word.toLowerCase(), term: terms[0], parts });
  });
  // Index of each written word's query word (-1: a stopword), filled as words are kept.
  const slotOf: number[] = [];
  const out: { term: string; parts: readonly string[]; joined: string[] }[] = [];
  const bySlot = new Map<string, number>();
  for (const { term, parts } of written) {
    if (term === undefined) {
      slotOf.push(-1);
      continue;
    }
    let at = bySlot.get(term);
    if (at === undefined) {
      at = out.length;
      bySlot.set(term, at);
      out.push({ term, parts: parts.length > 1 ? parts : [], joined: [] });
    }
    slotOf.push(at);
  }
  if (known === undefined) return out;
  const runs: { at: number; term: string }[] = [];
  for (let n = 2; n <= MAX_JOINED_WORDS; n++) {
    for (let i = 0; i + n <= Math.min(written.length, MAX_JOINED_SCAN); i++) {
      const run = written.slice(i, i + n);
      const together = run.map((w) => w.lower).join("");
      if (together.length < MIN_JOINED_LENGTH) continue;
      const terms: string[] = [];
      push(terms, together);
      const term = terms[0];
      // A run that is one of the query's words already ("task list" → `tasklist`) adds nothing.
      if (term === undefined || bySlot.has(term) || !known(term)) continue;
      const first = slotOf.slice(i, i + n).find((s) => s >= 0);
      if (first === undefined) runs.push({ at: i, term });
      else if (!out[first]!.joined.includes(term)) out[first]!.joined.push(term);
    }
  }
  // A run of stopwords alone is a word of its own, in its place among the others.
  for (const { at, term } of runs.sort((a, b) => b.at - a.at)) {
    if (bySlot.has(term)) continue;
    bySlot.set(term, -1);
    const next = slotOf.slice(at).find((s) => s >= 0);
    out.splice(next ?? out.length, 0, { term, parts: [], joined: [] });
  }
  return out;
}

function scanWords(text: string, onWord: (word: string, mixedCase: boolean) => void): void {
  if (NON_ASCII.test(text)) {
    const s = stripLatinMarks(text);
    WORD.lastIndex = 0;
    for (let m = WORD.exec(s); m !== null; m = WORD.exec(s)) onWord(m[0], true);
    return;
  }
  // ASCII fast path: a char-code scan instead of a Unicode regex (index builds tokenise a lot).
  const n = text.length;
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (!isAsciiAlnum(c)) {
      i++;
      continue;
    }
    const start = i;
    let upper = false;
    let lower = false;
    for (; i < n && isAsciiAlnum(c = text.charCodeAt(i)); i++) {
      if (c >= 65 && c <= 90) upper = true;
      else if (c >= 97 && c <= 122) lower = true;
    }
    onWord(text.slice(start, i), upper && lower);
  }
}

function isAsciiAlnum(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
}

// Stems are memoised: a catalog's vocabulary is small next to its token count.
const stems = new Map<string, string>();
const MAX_MEMO = 100_000;

function push(out: string[], word: string): void {
  let term = stems.get(word);
  if (term === undefined) {
    if (stems.size >= MAX_MEMO) stems.clear();
    term = STOPWORDS.has(word) ? "" : stem(word);
    stems.set(word, term);
  }
  if (term !== "") out.push(term);
}
