/**
 * A second look at the best candidates of a search through the structure of their names. BM25
 * treats a name as a bag of words; two things it cannot see decide many close calls:
 *
 * - how much of the name the request accounts for: "create a merge request" names all of
 *   `create_merge_request` but only part of `create_merge_request_note`, whose extra word the
 *   request never asked for. The server's own name in a tool's name (`linear_createIssue`) is
 *   not counted: it says which server, not what the tool does. The share counts words, not
 *   their idf: weighted by idf, a word every description of a server repeats would cost its
 *   names nothing when left out, and a close call would go to whichever name has it.
 * - words the request puts side by side that the name (or title) also has side by side: "pull
 *   request", "delete branch" — a phrase says more than its two words apart. Each pair adds
 *   the idf of its rarer word, so a pair of common words ("list all") adds little.
 *
 * Only the first {@link RERANK_POOL} candidates are looked at: the signal moves close calls
 * near the top, and the cost stays flat however many tools a word matches.
 */
import type { IndexData } from "./build.ts";
import { termIndex } from "./build.ts";
import type { QueryWord } from "./tokenize.ts";

/** Candidates reranked per search. */
export const RERANK_POOL = 50;
/** A name the request accounts for wholly scores this much more (in part: that share of it). */
const NAME_SHARE_WEIGHT = 0.5;
/** A pair of query words found adjacent in a name adds this times the idf of its rarer word. */
const PAIR_WEIGHT = 0.5;

/** What of a query the rerank needs: its terms and its adjacent pairs, as term ids. */
export interface NameQuery {
  /** Ids of the query's terms, their camelCase parts and the phrases they abbreviate. */
  readonly terms: ReadonlySet<number>;
  /** `a * vocabulary size + b` for each pair of adjacent query words `a b` both indexed. */
  readonly pairs: ReadonlySet<number>;
}

/** The query's terms and adjacent pairs as ids of this index's vocabulary. */
export function nameQuery(data: IndexData, words: readonly QueryWord[]): NameQuery {
  const v = data.vocabulary.length;
  const terms = new Set<number>();
  const add = (term: string): number => {
    const id = termIndex(data.vocabulary, term);
    if (id >= 0) terms.add(id);
    return id;
  };
  const pairs = new Set<number>();
  let previous = -1;
  for (const word of words) {
    const id = add(word.term);
    for (const part of word.parts) add(part);
    for (const term of word.joined) add(term);
    for (const part of data.acronyms.get(word.term) ?? []) add(part);
    if (previous >= 0 && id >= 0) pairs.add(previous * v + id);
    previous = id;
  }
  return { terms, pairs };
}

/** Doc `d`'s score after the second look: `(score + pair bonus) * (1 + share of the name matched)`. */
export function rescore(data: IndexData, query: NameQuery, d: number, score: number): number {
  const { names, nameStart, idf } = data;
  const from = nameStart[d] as number;
  const to = nameStart[d + 1] as number;
  // The name's distinct terms, up to the title.
  const counted = new Set<number>();
  let hit = 0;
  for (let i = from; i < to && (names[i] as number) >= 0; i++) {
    const t = names[i] as number;
    if (counted.has(t)) continue;
    counted.add(t);
    if (query.terms.has(t)) hit++;
  }
  let bonus = 0;
  if (query.pairs.size > 0) {
    const v = data.vocabulary.length;
    const found = new Set<number>();
    for (let j = from; j + 1 < to; j++) {
      const a = names[j] as number;
      const b = names[j + 1] as number;
      if (a < 0 || b < 0) continue;
      const key = a * v + b;
      if (!query.pairs.has(key) || found.has(key)) continue;
      found.add(key);
      bonus += PAIR_WEIGHT * Math.min(idf[a] as number, idf[b] as number);
    }
  }
  return (score + bonus) * (1 + NAME_SHARE_WEIGHT * (counted.size > 0 ? hit / counted.size : 0));
}
