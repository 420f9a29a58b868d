/**
 * Word roots (the Porter stemmer, from the `stemmer` package) for a weaker way of matching a query word: the index keeps
 * the crude stems of `tokenize.ts`, and a query word also finds the catalog's words of the same
 * root ("invite" → `invitation`, "evaluated" → `evaluation`, "reviewers" → `review`) at a lower
 * weight. As the only stemmer, Porter's conflations cost exact matches their lead ("filed" is
 * "file", "manager" is "manage"); as an alternative they add recall without outranking the word
 * the request wrote.
 */
import { stemmer } from "stemmer";
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
    root = stemmer(word);
    roots.set(word, root);
  }
  return root;
}
