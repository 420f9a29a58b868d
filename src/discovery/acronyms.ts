/**
 * Abbreviations learned from the catalog itself: a phrase that names many tools ("pull request"
 * in `create_pull_request`, `merge_pull_request`, …) makes its initials ("pr") a way to ask for
 * it. Nothing is listed by hand, so a catalog of other domains learns its own ("merge request" →
 * "mr", "virtual machine" → "vm").
 */

/** Phrases of this many words are considered. */
const MIN_WORDS = 2;
const MAX_WORDS = 3;
/** A phrase must name at least this many tools to teach its acronym. */
const MIN_TOOLS = 2;
/** It must name this many times more tools than the next phrase with the same initials … */
const DOMINANCE = 2;
/** … and than the tools that already use the acronym as a word. */
const OVER_OWN_USE = 1;
/** Distinct phrases counted per catalog: bounds the memory a hostile catalog can take. */
const MAX_PHRASES = 50_000;

/**
 * The `acronym\0phrase` keys of a tool's name and title: every run of 2–3 words. Computed once
 * per tool (it is cached with its terms) and counted per catalog by {@link learnAcronyms}.
 */
export function phrasesOf(texts: readonly (readonly string[])[]): string[] {
  const out = new Set<string>();
  for (const terms of texts) {
    for (let i = 0; i < terms.length; i++) {
      for (let len = MIN_WORDS; len <= MAX_WORDS && i + len <= terms.length; len++) {
        const words = terms.slice(i, i + len);
        if (!words.every(isWord)) break;
        out.add(`${words.map((w) => w[0]).join("")}\0${words.join(" ")}`);
      }
    }
  }
  return [...out];
}

/**
 * Acronym → the terms of the phrase it stands for. `phrases` holds each tool's
 * {@link phrasesOf}; `dfOf(term)` is the number of tools whose text holds `term`.
 */
export function learnAcronyms(
  phrases: Iterable<readonly string[]>,
  dfOf: (term: string) => number,
): Map<string, readonly string[]> {
  // Counted by whole key first (one map operation per phrase), then grouped by acronym.
  const byKey = new Map<string, number>();
  for (const list of phrases) {
    for (const key of list) {
      if (byKey.size >= MAX_PHRASES && !byKey.has(key)) continue;
      byKey.set(key, (byKey.get(key) ?? 0) + 1);
    }
  }
  const counts = new Map<string, Map<string, number>>();
  for (const [key, n] of byKey) {
    if (n < MIN_TOOLS) continue;
    const cut = key.indexOf("\0");
    const acronym = key.slice(0, cut);
    let byPhrase = counts.get(acronym);
    if (byPhrase === undefined) counts.set(acronym, byPhrase = new Map());
    byPhrase.set(key.slice(cut + 1), n);
  }
  return decide(counts, dfOf);
}

function decide(
  counts: ReadonlyMap<string, ReadonlyMap<string, number>>,
  dfOf: (term: string) => number,
): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  for (const [acronym, byPhrase] of counts) {
    let best = "";
    let top = 0;
    let second = 0;
    for (const [phrase, n] of byPhrase) {
      if (n > top || (n === top && phrase < best)) {
        second = top;
        top = n;
        best = phrase;
      } else if (n > second) second = n;
    }
    if (top < MIN_TOOLS || top < DOMINANCE * second) continue;
    if (top < OVER_OWN_USE * dfOf(acronym)) continue;
    out.set(acronym, best.split(" "));
  }
  return out;
}

// Initials of words, not of numbers or one-letter leftovers.
function isWord(term: string): boolean {
  return term.length >= 2 && term.charCodeAt(0) >= 97 && term.charCodeAt(0) <= 122;
}
