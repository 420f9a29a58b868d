/**
 * Score fusion of a lexical and a semantic ranking: each ranking's scores are scaled to 0..1 over
 * its own hits (its best 1, its worst 0), weighted and summed. Unlike reciprocal-rank fusion,
 * which sees only orders, this keeps how far apart two hits are: a close lexical call can be
 * decided by the model, while a clear lexical win is not overturned by a model that ranks a
 * different tool first. With the lexical ranking weighted most, a general embedding model adds
 * to BM25 instead of pulling its first places down.
 */
import type { RankedDocs } from "./index.ts";

/** What the semantic ranking weighs against the lexical one's 1 by default. */
export const SEMANTIC_WEIGHT = 0.2;

/** A ranking with its scores, best first: `scores[i]` is the score of `ids[i]`. */
export interface ScoredRanking {
  readonly ids: readonly number[];
  readonly scores: readonly number[];
}

/**
 * Fuses rankings of the same documents into one, best first; ties keep the order in which the
 * rankings first list them. `weights` (one per ranking, default 1 each) scale what each ranking
 * gives; a document a ranking lacks gets nothing from it. Fused scores are scaled so that the best
 * possible (first in every ranking) is 1, and rounded like lexical scores.
 */
export function fuseScores(
  rankings: readonly ScoredRanking[],
  weights: readonly number[] = [],
): RankedDocs {
  const score = new Map<number, number>();
  const firstSeen = new Map<number, number>();
  for (const [i, { ids, scores }] of rankings.entries()) {
    const weight = weights[i] ?? 1;
    let hi = -Infinity;
    let lo = Infinity;
    for (let r = 0; r < ids.length; r++) {
      const x = scores[r] as number;
      if (x > hi) hi = x;
      if (x < lo) lo = x;
    }
    ids.forEach((d, r) => {
      const scaled = hi > lo ? ((scores[r] as number) - lo) / (hi - lo) : 1;
      score.set(d, (score.get(d) ?? 0) + weight * scaled);
      if (!firstSeen.has(d)) firstSeen.set(d, firstSeen.size);
    });
  }
  const ids = [...score.keys()].sort((a, b) =>
    (score.get(b) as number) - (score.get(a) as number) ||
    (firstSeen.get(a) as number) - (firstSeen.get(b) as number)
  );
  const best = rankings.reduce((sum, _, i) => sum + (weights[i] ?? 1), 0);
  const scores = ids.map((d) =>
    best > 0 ? Math.round(((score.get(d) as number) / best) * 1000) / 1000 : 0
  );
  return { ids, scores, total: ids.length };
}
