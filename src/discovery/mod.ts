/**
 * @module Discovery: lexical tool search (BM25F), optionally fused with semantic ranking through
 * an embeddings endpoint, compact search and describe answers, browsing, and name suggestions
 * for unknown tools. Pure (no I/O, no runtime globals) except `semantic/`, which asks the
 * endpoint over HTTP and keeps vectors in the state folder.
 */
export { buildSearchIndex, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from "./index.ts";
export type { SearchIndex } from "./index.ts";
export {
  describeTool,
  inputGuidance,
  inputShape,
  OUTPUT_SCHEMA_TARGET,
  signatureOf,
} from "./describe.ts";
export { levenshtein, suggestNames } from "./suggest.ts";
export { stem, tokenize } from "./tokenize.ts";
export { rootOf } from "./porter.ts";
export type {
  DescribableTool,
  SearchItem,
  SearchOptions,
  SearchResult,
  ToolDescription,
  ToolDescriptor,
} from "./types.ts";
export { browseText, describeText, searchText } from "./answer.ts";
export { browseServers } from "./browse.ts";
export type { ServerSummary } from "./browse.ts";
export { MAX_SUMMARY, summarize } from "./summary.ts";
export { fuseScores, type ScoredRanking, SEMANTIC_WEIGHT } from "./fuse.ts";
export type { RankedDocs } from "./index.ts";
export { SemanticRanker } from "./semantic/ranker.ts";
export type { SemanticStats } from "./semantic/ranker.ts";
export { FUSE_DEPTH, type FuseSettings, searchFused } from "./semantic/search.ts";
