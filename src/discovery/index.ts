/**
 * Lexical tool search: BM25F over name parts, keywords, parameter names and descriptions, with
 * prefix matching for partial words and exact-name matches lifted to the top. Built once per
 * catalog, queried many times; a query touches only the postings of its own terms.
 */
import { buildIndexData, compareStrings } from "./build.ts";
import type { IndexData, Posting } from "./build.ts";
import { makePage, topRanked } from "./rank.ts";
import { fold, uniqueTerms } from "./tokenize.ts";
import type { SearchOptions, SearchResult, ToolDescriptor } from "./types.ts";

/** Default page size of a search. */
export const DEFAULT_SEARCH_LIMIT = 10;
/** Largest page size a search returns. */
export const MAX_SEARCH_LIMIT = 100;

/** A prefix hit counts this much of an exact hit, scaled by how much of the word was typed. */
const PREFIX_WEIGHT = 0.5;
/** Query terms shorter than this do not expand to prefixes (`a` would match half the index). */
const MIN_PREFIX = 2;
/** At most this many vocabulary terms per query term are expanded as prefix matches. */
const MAX_EXPANSIONS = 64;
/** Words of a query beyond this many are ignored: bounds the cost of a hostile query. */
export const MAX_QUERY_TERMS = 64;

/** A built search index over one catalog snapshot. */
export interface SearchIndex {
  /** Number of indexed tools. */
  readonly size: number;
  /**
   * Ranks tools for `query`. A blank query lists every tool (of `server`, if given) by name with
   * score 0; a query with no searchable words (only punctuation or stopwords) matches only tools
   * whose name equals it.
   */
  search(query: string, options?: SearchOptions): SearchResult;
}

/** Indexes `descriptors` (the array is copied; later changes to it are not seen). */
export function buildSearchIndex(descriptors: readonly ToolDescriptor[]): SearchIndex {
  const data = buildIndexData(descriptors);
  const n = data.docs.length;
  // Scratch buffers reused by every query; search is synchronous, so they are never shared.
  const scratch: Scratch = {
    total: new Float64Array(n),
    term: new Float64Array(n),
    seen: new Uint8Array(n),
    coverage: new Float64Array(n),
    termCoverage: new Float64Array(n),
    touched: new Int32Array(n),
    termTouched: new Int32Array(n),
  };
  return {
    size: n,
    search: (query, options = {}) => runSearch(data, scratch, query, options),
  };
}

interface Scratch {
  total: Float64Array;
  term: Float64Array;
  seen: Uint8Array;
  /** Query words matched per doc: 1 per exact match, the prefix factor per prefix match. */
  coverage: Float64Array;
  termCoverage: Float64Array;
  touched: Int32Array;
  termTouched: Int32Array;
}

function runSearch(
  data: IndexData,
  scratch: Scratch,
  query: string,
  options: SearchOptions,
): SearchResult {
  const limit = clampInt(options.limit, DEFAULT_SEARCH_LIMIT, 1, MAX_SEARCH_LIMIT);
  const offset = clampInt(options.offset, 0, 0, Number.MAX_SAFE_INTEGER);
  const server = options.server === undefined ? -1 : (data.serverCodes.get(options.server) ?? -2);
  const allowed = (d: number): boolean => server === -1 || data.serverOf[d] === server;

  if (query.trim() === "") {
    let count = 0;
    const ids: number[] = [];
    for (const d of data.byName) {
      if (!allowed(d)) continue;
      if (count >= offset && count < offset + limit) ids.push(d);
      count++;
    }
    return makePage(data, ids, () => 0, count, offset);
  }

  const { total, term, seen, coverage, termCoverage, touched, termTouched } = scratch;
  let touchedCount = 0;
  const words = uniqueTerms(query).slice(0, MAX_QUERY_TERMS);
  for (const word of words) {
    let termCount = 0;
    const add = (p: Posting, factor: number): void => {
      const scale = p.idf * factor;
      const { docs, weights } = p;
      for (let i = 0; i < docs.length; i++) {
        const d = docs[i] as number;
        if (server !== -1 && data.serverOf[d] !== server) continue;
        const v = scale * (weights[i] as number);
        const prev = term[d] as number;
        if (prev === 0) termTouched[termCount++] = d;
        // A query word scores once per doc: its best match, exact or prefix.
        if (v > prev) term[d] = v;
        if (factor > (termCoverage[d] as number)) termCoverage[d] = factor;
      }
    };
    const exact = data.postings.get(word);
    if (exact !== undefined) add(exact, 1);
    if (word.length >= MIN_PREFIX) {
      const vocab = data.vocabulary;
      let expanded = 0;
      for (let i = lowerBound(vocab, word); i < vocab.length && expanded < MAX_EXPANSIONS; i++) {
        const candidate = vocab[i] as string;
        if (!candidate.startsWith(word)) break;
        if (candidate === word) continue;
        const p = data.postings.get(candidate);
        if (p !== undefined) add(p, (PREFIX_WEIGHT * word.length) / candidate.length);
        expanded++;
      }
    }
    for (let i = 0; i < termCount; i++) {
      const d = termTouched[i] as number;
      if (seen[d] === 0) {
        seen[d] = 1;
        touched[touchedCount++] = d;
      }
      total[d] = (total[d] as number) + (term[d] as number);
      coverage[d] = (coverage[d] as number) + (termCoverage[d] as number);
      term[d] = 0;
      termCoverage[d] = 0;
    }
  }

  const tiers = new Map<number, number>();
  const folded = fold(query.trim());
  for (const d of data.localNames.get(folded) ?? []) if (allowed(d)) tiers.set(d, 1);
  for (const d of data.fullNames.get(folded) ?? []) if (allowed(d)) tiers.set(d, 2);

  // Coordination: a tool matching every query word beats one matching a single rare word.
  let max = 0;
  for (let i = 0; i < touchedCount; i++) {
    const d = touched[i] as number;
    const score = ((total[d] as number) * (coverage[d] as number)) / words.length;
    total[d] = score;
    if (score > max) max = score;
  }
  for (const d of tiers.keys()) {
    if (seen[d] === 0) {
      seen[d] = 1;
      touched[touchedCount++] = d;
    }
  }
  // The exact-name bonus keeps score order equal to tier order (tier 2 > tier 1 > the rest), so
  // ranking needs one key — the rounded score — plus the name for ties.
  for (let i = 0; i < touchedCount; i++) {
    const d = touched[i] as number;
    total[d] = round3((total[d] as number) + (tiers.get(d) ?? 0) * (max + 1));
  }
  const ids = topRanked(touched.subarray(0, touchedCount), total, data.nameRank, offset + limit);
  const result = makePage(data, ids.slice(offset), (d) => total[d] as number, touchedCount, offset);
  for (let i = 0; i < touchedCount; i++) {
    const d = touched[i] as number;
    total[d] = 0;
    seen[d] = 0;
    coverage[d] = 0;
  }
  return result;
}

function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareStrings(sorted[mid] as string, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function clampInt(value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
