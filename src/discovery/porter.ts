/**
 * Word roots (the Porter stemmer, 1980) for a weaker way of matching a query word: the index keeps
 * the crude stems of `tokenize.ts`, and a query word also finds the catalog's words of the same
 * root ("invite" → `invitation`, "evaluated" → `evaluation`, "reviewers" → `review`) at a lower
 * weight. As the only stemmer, Porter's conflations cost exact matches their lead ("filed" is
 * "file", "manager" is "manage"); as an alternative they add recall without outranking the word
 * the request wrote.
 */
import { lowerBound } from "./build.ts";

/** Roots are memoised: a catalog's vocabulary is small next to the number of searches. */
const roots = new Map<string, string>();
const MAX_MEMO = 100_000;
/** Words shorter than this are their own root: short words conflate by accident. */
const MIN_ROOTED = 4;
/** A root shorter than this is not looked up in the vocabulary. */
const MIN_ROOT = 3;

/**
 * Calls `visit` with the position of every term of the sorted `vocabulary` that shares `term`'s
 * root, `term` itself excepted, among the first `limit` terms that start with the root.
 */
export function forEachSameRoot(
  vocabulary: readonly string[],
  term: string,
  limit: number,
  visit: (at: number) => void,
): void {
  if (term.length < MIN_ROOTED) return;
  const root = rootOf(term);
  // Step 1c turns a final "y" into "i": "query" and "queries" are found from "quer".
  const prefix = root.endsWith("i") ? root.slice(0, -1) : root;
  if (prefix.length < MIN_ROOT) return;
  let scanned = 0;
  for (let i = lowerBound(vocabulary, prefix); i < vocabulary.length && scanned < limit; i++) {
    const candidate = vocabulary[i] as string;
    if (!candidate.startsWith(prefix)) break;
    scanned++;
    if (candidate !== term && rootOf(candidate) === root) visit(i);
  }
}

/** The Porter root of a lowercase word. */
export function rootOf(word: string): string {
  let root = roots.get(word);
  if (root === undefined) {
    if (roots.size >= MAX_MEMO) roots.clear();
    root = porter(word);
    roots.set(word, root);
  }
  return root;
}

function porter(word: string): string {
  if (word.length <= 2) return word;
  let w = step1(word);
  w = replaceSuffix(w, STEP2, 0);
  w = replaceSuffix(w, STEP3, 0);
  w = step4(w);
  // Step 5: a final "e" and a final double "l".
  if (w.endsWith("e")) {
    const base = w.slice(0, -1);
    const m = measure(base);
    if (m > 1 || (m === 1 && !endsCvc(base))) w = base;
  }
  if (measure(w) > 1 && w.endsWith("ll")) w = w.slice(0, -1);
  return w;
}

/** Plurals, -ed and -ing, and a final "y". */
function step1(word: string): string {
  let w = word;
  if (w.endsWith("sses") || w.endsWith("ies")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !w.endsWith("ss")) w = w.slice(0, -1);
  let cut = false;
  if (w.endsWith("eed")) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else if (w.endsWith("ed") && hasVowel(w.slice(0, -2))) {
    w = w.slice(0, -2);
    cut = true;
  } else if (w.endsWith("ing") && hasVowel(w.slice(0, -3))) {
    w = w.slice(0, -3);
    cut = true;
  }
  if (cut) {
    if (w.endsWith("at") || w.endsWith("bl") || w.endsWith("iz")) w += "e";
    else if (endsDoubleConsonant(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
    else if (measure(w) === 1 && endsCvc(w)) w += "e";
  }
  if (w.endsWith("y") && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  return w;
}

const STEP2: readonly (readonly [string, string])[] = [
  ["ational", "ate"],
  ["tional", "tion"],
  ["enci", "ence"],
  ["anci", "ance"],
  ["izer", "ize"],
  ["bli", "ble"],
  ["alli", "al"],
  ["entli", "ent"],
  ["eli", "e"],
  ["ousli", "ous"],
  ["ization", "ize"],
  ["ation", "ate"],
  ["ator", "ate"],
  ["alism", "al"],
  ["iveness", "ive"],
  ["fulness", "ful"],
  ["ousness", "ous"],
  ["aliti", "al"],
  ["iviti", "ive"],
  ["biliti", "ble"],
  ["logi", "log"],
];
const STEP3: readonly (readonly [string, string])[] = [
  ["icate", "ic"],
  ["ative", ""],
  ["alize", "al"],
  ["iciti", "ic"],
  ["ical", "ic"],
  ["ful", ""],
  ["ness", ""],
];
const STEP4: readonly string[] = [
  "al",
  "ance",
  "ence",
  "er",
  "ic",
  "able",
  "ible",
  "ant",
  "ement",
  "ment",
  "ent",
  "ion",
  "ou",
  "ism",
  "ate",
  "iti",
  "ous",
  "ive",
  "ize",
];

/** The first listed suffix `w` ends with is replaced when what precedes it measures over `min`. */
function replaceSuffix(
  w: string,
  table: readonly (readonly [string, string])[],
  min: number,
): string {
  for (const [suffix, replacement] of table) {
    if (!w.endsWith(suffix)) continue;
    const base = w.slice(0, -suffix.length);
    return measure(base) > min ? base + replacement : w;
  }
  return w;
}

function step4(w: string): string {
  for (const suffix of STEP4) {
    if (!w.endsWith(suffix)) continue;
    const base = w.slice(0, -suffix.length);
    return measure(base) > 1 && (suffix !== "ion" || /[st]$/.test(base)) ? base : w;
  }
  return w;
}

function isConsonant(w: string, i: number): boolean {
  const c = w[i];
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return false;
  return c === "y" ? i === 0 || !isConsonant(w, i - 1) : true;
}

/** The number of vowel–consonant sequences in `w`. */
function measure(w: string): number {
  let n = 0;
  let i = 0;
  while (i < w.length && isConsonant(w, i)) i++;
  while (i < w.length) {
    while (i < w.length && !isConsonant(w, i)) i++;
    if (i >= w.length) break;
    while (i < w.length && isConsonant(w, i)) i++;
    n++;
  }
  return n;
}

function hasVowel(w: string): boolean {
  for (let i = 0; i < w.length; i++) if (!isConsonant(w, i)) return true;
  return false;
}

function endsDoubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && isConsonant(w, n - 1);
}

/** Ends consonant–vowel–consonant, the last not w, x or y ("hop", not "snow"). */
function endsCvc(w: string): boolean {
  const n = w.length;
  if (n < 3 || !isConsonant(w, n - 1) || isConsonant(w, n - 2) || !isConsonant(w, n - 3)) {
    return false;
  }
  const c = w[n - 1];
  return c !== "w" && c !== "x" && c !== "y";
}
