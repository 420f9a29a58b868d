/**
 * A search ranked both ways and fused: the lexical ranking's best and the embeddings' best,
 * joined by their scores with the lexical ranking leading (`fuse.ts`), then paged like any
 * search. The gateway's `tool_search` answers with it whenever an embeddings endpoint is
 * configured.
 */
import { fuseScores, SEMANTIC_WEIGHT } from "../fuse.ts";
import type { SearchIndex } from "../index.ts";
import type { SearchOptions, SearchResult } from "../types.ts";
import type { SemanticRanker } from "./ranker.ts";

/** Hits of each ranking (lexical, semantic) that a fused ranking draws from. */
export const FUSE_DEPTH = 50;

/** How the two rankings are joined. */
export interface FuseSettings {
  /** Hits taken from each ranking (default {@link FUSE_DEPTH}). */
  readonly depth?: number;
  /** What the semantic ranking weighs against the lexical one's 1 (default {@link SEMANTIC_WEIGHT}). */
  readonly semanticWeight?: number;
}

/**
 * `query` ranked lexically and semantically over `index`, fused and paged by `options`;
 * `null` when the embeddings endpoint cannot answer now (the caller ranks lexically alone).
 */
export async function searchFused(
  index: SearchIndex,
  ranker: SemanticRanker,
  query: string,
  options: SearchOptions = {},
  settings: FuseSettings = {},
): Promise<SearchResult | null> {
  const depth = settings.depth ?? FUSE_DEPTH;
  const { server } = options;
  const allowed = server === undefined ? null : index.data.serverDocs.get(server) ?? [];
  const semantic = await ranker.rank(query, index.data.docs, allowed, depth);
  if (semantic === null) return null;
  const lexical = index.ranked(query, server, depth);
  const weights = [1, settings.semanticWeight ?? SEMANTIC_WEIGHT];
  return index.page(fuseScores([lexical, semantic], weights), options);
}
