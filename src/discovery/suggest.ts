/**
 * "Did you mean …?" for unknown tool names: a blend of edit distance (typos, wrong case) and
 * fuzzy word overlap (a missing server prefix, words in another order or form).
 */
import { fold, tokenize } from "./tokenize.ts";

/** Candidates scoring below this are not worth suggesting. */
const MIN_SIMILARITY = 0.3;
/** Two words at least this similar by edit distance count as (partly) the same word. */
const MIN_WORD_SIMILARITY = 0.7;

/** Up to `max` names from `allNames` closest to `unknownName`, best first (ties by name). */
export function suggestNames(unknownName: string, allNames: readonly string[], max = 3): string[] {
  if (max <= 0) return [];
  const query = fold(unknownName.trim());
  if (query === "") return [];
  const queryLocal = localPart(query);
  const queryWords = [...new Set(tokenize(query))];
  const scored: { name: string; score: number }[] = [];
  for (const name of new Set(allNames)) {
    const candidate = fold(name);
    const edit = Math.max(
      similarity(query, candidate),
      similarity(query, localPart(candidate)),
      similarity(queryLocal, localPart(candidate)),
    );
    const score = 0.5 * edit + 0.5 * wordOverlap(queryWords, [...new Set(tokenize(candidate))]);
    if (score >= MIN_SIMILARITY) scored.push({ name, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scored.slice(0, max).map((s) => s.name);
}

/** 1 − normalised Levenshtein distance: 1 for equal strings, 0 for nothing in common. */
export function similarity(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  return longest === 0 ? 1 : 1 - levenshtein(a, b) / longest;
}

/** Levenshtein edit distance (insert, delete, substitute), two-row dynamic programme. */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prev = new Uint32Array(b.length + 1);
  let curr = new Uint32Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    curr[0] = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const cost = ca === b.charCodeAt(j - 1) ? 0 : 1;
      curr[j] = Math.min(
        (prev[j] as number) + 1,
        (curr[j - 1] as number) + 1,
        (prev[j - 1] as number) + cost,
      );
    }
    [prev, curr] = [curr, prev];
  }
  return prev[b.length] as number;
}

// Sum of each query word's best fuzzy match, over the mean word count of both names.
function wordOverlap(queryWords: readonly string[], candidateWords: readonly string[]): number {
  if (queryWords.length === 0 || candidateWords.length === 0) return 0;
  let matched = 0;
  for (const q of queryWords) {
    let best = 0;
    for (const c of candidateWords) {
      const s = q === c ? 1 : similarity(q, c);
      if (s > best) best = s;
    }
    if (best >= MIN_WORD_SIMILARITY) matched += best;
  }
  return matched / ((queryWords.length + candidateWords.length) / 2);
}

function localPart(name: string): string {
  const cut = name.lastIndexOf("__");
  return cut >= 0 ? name.slice(cut + 2) : name;
}
