/**
 * Reciprocal-rank fusion: each ranking gives a document `1 / (k + rank)`, and the sums decide.
 * It needs no calibration between a BM25 score and a cosine similarity — only their orders —
 * which is why it is the usual way to join lexical and semantic search.
 */
import type { RankedDocs } from "./index.ts";

/** The customary constant: dampens the difference between the very first ranks. */
export const RRF_K = 60;

/**
 * Fuses rankings of the same documents into one, best first; ties keep the first ranking's order.
 * `weights` (one per ranking, default 1 each) scale what each ranking gives.
 */
export function fuseRankings(
  rankings: readonly (readonly number[])[],
  k = RRF_K,
  weights: readonly number[] = [],
): RankedDocs {
  const score = new Map<number, number>();
  const firstSeen = new Map<number, number>();
  for (const [i, ranking] of rankings.entries()) {
    const weight = weights[i] ?? 1;
    ranking.forEach((d, rank) => {
      score.set(d, (score.get(d) ?? 0) + weight / (k + rank + 1));
      if (!firstSeen.has(d)) firstSeen.set(d, firstSeen.size);
    });
  }
  const ids = [...score.keys()].sort((a, b) =>
    (score.get(b) as number) - (score.get(a) as number) ||
    (firstSeen.get(a) as number) - (firstSeen.get(b) as number)
  );
  // Scaled so the best possible score (first everywhere) is 1, rounded like lexical scores.
  const best = rankings.reduce((sum, _, i) => sum + (weights[i] ?? 1), 0) / (k + 1);
  const scores = ids.map((d) => Math.round(((score.get(d) as number) / best) * 1000) / 1000);
  return { ids, scores, total: ids.length };
}
