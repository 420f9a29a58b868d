/**
 * Abbreviations learned from the catalog itself: a phrase that names many tools ("pull request"
 * in `create_pull_request`, `merge_pull_request`, …) makes its initials ("pr") a way to ask for
 * it. Nothing is listed by hand, so a catalog of other domains learns its own ("merge request" →
 * "mr", "virtual machine" → "vm").
 */
import { tokenize } from "./tokenize.ts";
import type { ToolDescriptor } from "./types.ts";

/** Phrases of this many words are considered. */
const MIN_WORDS = 2;
const MAX_WORDS = 3;
/** A phrase must name at least this many tools to teach its acronym. */
const MIN_TOOLS = 2;
/** It must name this many times more tools than the next phrase with the same initials … */
const DOMINANCE = 2;
/** … and than the tools that already use the acronym as a word. */
const OVER_OWN_USE = 2;
/** Phrases counted per catalog: bounds the work on a hostile catalog. */
const MAX_PHRASES = 50_000;

/**
 * Acronym → the terms of the phrase it stands for. `dfOf(term)` is the number of tools whose
 * text holds `term` as a word.
 */
export function learnAcronyms(
  docs: readonly ToolDescriptor[],
  dfOf: (term: string) => number,
): Map<string, readonly string[]> {
  const counts = new Map<string, Map<string, number>>();
  let phrases = 0;
  for (const doc of docs) {
    const seen = new Set<string>();
    for (const text of [doc.localName ?? doc.name, doc.title ?? ""]) {
      const terms = tokenize(text);
      for (let i = 0; i < terms.length; i++) {
        for (let len = MIN_WORDS; len <= MAX_WORDS && i + len <= terms.length; len++) {
          const words = terms.slice(i, i + len);
          if (!words.every(isWord)) break;
          const phrase = words.join(" ");
          if (seen.has(phrase)) continue;
          seen.add(phrase);
          const acronym = words.map((w) => w[0]).join("");
          let byPhrase = counts.get(acronym);
          if (byPhrase === undefined) counts.set(acronym, byPhrase = new Map());
          byPhrase.set(phrase, (byPhrase.get(phrase) ?? 0) + 1);
          if (++phrases >= MAX_PHRASES) return decide(counts, dfOf);
        }
      }
    }
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
