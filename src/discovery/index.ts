/**
 * Lexical tool search: BM25F over name parts, title, keywords, parameter names, enum values,
 * descriptions (their first sentence once more) and the server's name, with prefix matching for
 * partial words, words of the same root at a lower weight (`porter.ts`), abbreviations the catalog
 * teaches, the best candidates reranked by their names' structure (`rerank.ts`), and exact-name
 * matches lifted to the top. Built once per catalog, queried many times; a query
 * touches only the postings of its own terms.
 */
import { buildIndexData, lowerBound, termIndex } from "./build.ts";
import type { IndexData } from "./build.ts";
import { forEachSameRoot } from "./porter.ts";
import { makePage, topRanked } from "./rank.ts";
import { nameQuery, RERANK_POOL, rescore } from "./rerank.ts";
import { fold, type QueryWord, queryWords } from "./tokenize.ts";
import type { SearchOptions, SearchResult, ToolDescriptor } from "./types.ts";

/** Default page size of a search. */
export const DEFAULT_SEARCH_LIMIT = 10;
/** Largest page size a search returns. */
export const MAX_SEARCH_LIMIT = 100;

/** A prefix hit counts this much of an exact hit, scaled by how much of the word was typed. */
const PREFIX_WEIGHT = 0.5;
/** A word of the same root counts this much of the word itself. */
const ROOT_WEIGHT = 0.5;
/** Query terms shorter than this do not expand to prefixes (`a` would match half the index). */
const MIN_PREFIX = 2;
/** At most this many vocabulary terms per query term are expanded as prefix matches. */
const MAX_EXPANSIONS = 64;
/** An abbreviation's phrase counts this much of the word itself. */
const ACRONYM_WEIGHT = 0.8;
/** Words of a query beyond this many are ignored: bounds the cost of a hostile query. */
export const MAX_QUERY_TERMS = 64;

/** A built search index over one catalog snapshot. */
export interface SearchIndex {
  /** Number of indexed definitions (identical tools of several servers count once). */
  readonly size: number;
  /**
   * Ranks tools for `query`. A blank query lists every tool (of `server`, if given) by name with
   * score 0; a query with no searchable words (only punctuation or stopwords) matches only tools
   * whose name equals it.
   */
  search(query: string, options?: SearchOptions): SearchResult;
  /**
   * The best `k` definitions for a non-blank query, best first, with their scores and the
   * number of matches: the lexical half of a fused ranking.
   */
  ranked(query: string, server: string | undefined, k: number): RankedDocs;
  /** A page of results from a ranking of definitions made elsewhere (a fused one). */
  page(ranked: RankedDocs, options?: SearchOptions): SearchResult;
  /** Names of every copy of the definition `name` belongs to (several servers offering it). */
  copiesOf(name: string): string[];
  /** The data the index was built from, for browsing. */
  readonly data: IndexData;
}

/** Definitions by position in the index's `data.docs`, best first. */
export interface RankedDocs {
  readonly ids: readonly number[];
  readonly scores: readonly number[];
  /** Matches in all (may exceed `ids`). */
  readonly total: number;
}

/** Indexes `descriptors` (the array is copied; later changes to it are not seen). */
export function buildSearchIndex(descriptors: readonly ToolDescriptor[]): SearchIndex {
  const data = buildIndexData(descriptors);
  const n = data.docs.length;
  // Scratch buffers reused by every query; search is synchronous, so they are never shared.
  const scratch: Scratch = {
    total: new Float64Array(n),
    covered: new Float64Array(n),
    slot: new Float64Array(n),
    slotCover: new Float64Array(n),
    alt: new Float64Array(n),
    altCover: new Float64Array(n),
    term: new Float64Array(n),
    termCover: new Float64Array(n),
    seen: new Uint8Array(n),
    mask: new Uint8Array(n),
    touched: new Int32Array(n),
    slotTouched: new Int32Array(n),
    altTouched: new Int32Array(n),
    termTouched: new Int32Array(n),
  };
  return {
    size: n,
    data,
    search: (query, options = {}) => runSearch(data, scratch, query, options),
    ranked: (query, server, k) => rankDocs(data, scratch, query, server, k),
    page: (ranked, options = {}) => {
      const limit = clampInt(options.limit, DEFAULT_SEARCH_LIMIT, 1, MAX_SEARCH_LIMIT);
      const offset = clampInt(options.offset, 0, 0, Number.MAX_SAFE_INTEGER);
      const ids = ranked.ids.slice(offset, offset + limit);
      const scoreOf = new Map(ids.map((d, i) => [d, ranked.scores[offset + i] ?? 0]));
      return makePage(data, ids, (d) => scoreOf.get(d) ?? 0, ranked.total, offset, options.server);
    },
    copiesOf: (name) => {
      for (const d of data.fullNames.get(fold(name)) ?? []) {
        const copies = data.copies.get(d);
        if (copies?.some((c) => c.name === name)) return copies.map((c) => c.name);
      }
      return [name];
    },
  };
}

interface Scratch {
  /** Sum over query words of each word's score. */
  total: Float64Array;
  /** Sum over query words of the word's weight times how well the doc matched it. */
  covered: Float64Array;
  slot: Float64Array;
  slotCover: Float64Array;
  alt: Float64Array;
  altCover: Float64Array;
  term: Float64Array;
  termCover: Float64Array;
  seen: Uint8Array;
  mask: Uint8Array;
  touched: Int32Array;
  slotTouched: Int32Array;
  altTouched: Int32Array;
  termTouched: Int32Array;
}

/** One way to match a query word: all of `terms` (summed), scaled by `factor`. */
interface Alternative {
  readonly terms: readonly string[];
  readonly factor: number;
}

function runSearch(
  data: IndexData,
  scratch: Scratch,
  query: string,
  options: SearchOptions,
): SearchResult {
  const limit = clampInt(options.limit, DEFAULT_SEARCH_LIMIT, 1, MAX_SEARCH_LIMIT);
  const offset = clampInt(options.offset, 0, 0, Number.MAX_SAFE_INTEGER);
  const server = options.server;
  if (query.trim() === "") {
    const serverDocs = server === undefined ? null : data.serverDocs.get(server) ?? [];
    let count = 0;
    const ids: number[] = [];
    const inServer = serverDocs === null ? null : new Set(serverDocs);
    for (const d of data.byName) {
      if (inServer !== null && !inServer.has(d)) continue;
      if (count >= offset && count < offset + limit) ids.push(d);
      count++;
    }
    return makePage(data, ids, () => 0, count, offset, server);
  }
  const { ids, scores, total } = rankDocs(data, scratch, query, server, offset + limit);
  const page = ids.slice(offset);
  const scoreOf = new Map(page.map((d, i) => [d, scores[offset + i] as number]));
  return makePage(data, page, (d) => scoreOf.get(d) ?? 0, total, offset, server);
}

/** The best `k` docs for a non-blank query, best first, with their scores and the match count. */
function rankDocs(
  data: IndexData,
  scratch: Scratch,
  query: string,
  server: string | undefined,
  k: number,
): { ids: number[]; scores: number[]; total: number } {
  const serverDocs = server === undefined ? null : data.serverDocs.get(server) ?? new Int32Array();
  const { mask } = scratch;
  if (serverDocs !== null) { for (const d of serverDocs) mask[d] = 1; }
  try {
    const { touched, count, scores } = score(data, scratch, query, serverDocs !== null);
    const ids = topRanked(touched.subarray(0, count), scores, data.nameRank, k);
    const out = { ids, scores: ids.map((d) => scores[d] as number), total: count };
    for (let i = 0; i < count; i++) {
      const d = touched[i] as number;
      scores[d] = 0;
      scratch.covered[d] = 0;
      scratch.seen[d] = 0;
    }
    return out;
  } finally {
    if (serverDocs !== null) { for (const d of serverDocs) mask[d] = 0; }
  }
}

/** Scores every doc that matches a query word; `scores` is `scratch.total`, to be cleared. */
function score(
  data: IndexData,
  scratch: Scratch,
  query: string,
  filtered: boolean,
): { touched: Int32Array; count: number; scores: Float64Array } {
  const { total, covered, slot, slotCover, alt, altCover, term, termCover, seen, mask } = scratch;
  const { touched, slotTouched, altTouched, termTouched } = scratch;
  let touchedCount = 0;
  let weightSum = 0;
  const vocab = data.vocabulary;
  const words = queryWords(query, (t) => termIndex(vocab, t) >= 0).slice(0, MAX_QUERY_TERMS);

  for (const word of words) {
    let slotCount = 0;
    // A word's weight in the matched share is its rarest match's idf; a word the catalog does
    // not hold at all weighs nothing, so it cannot push a good hit below a poor one.
    let weight = 0;
    for (const { terms, factor } of alternativesOf(data, word)) {
      let altCount = 0;
      for (const t of terms) {
        let termCount = 0;
        const walk = (id: number, match: number, idf = data.idf[id] as number): void => {
          const scale = idf * match;
          if (scale > weight) weight = scale;
          const end = data.start[id + 1] as number;
          for (let i = data.start[id] as number; i < end; i++) {
            const d = data.postDocs[i] as number;
            if (filtered && mask[d] === 0) continue;
            const v = scale * (data.postWeights[i] as number);
            const prev = term[d] as number;
            if (prev === 0 && termCover[d] === 0) termTouched[termCount++] = d;
            // A term scores once per doc: its best match, exact or prefix.
            if (v > prev) term[d] = v;
            if (match > (termCover[d] as number)) termCover[d] = match;
          }
        };
        const vocab = data.vocabulary;
        const at = lowerBound(vocab, t);
        if (vocab[at] === t) walk(at, 1);
        if (t.length >= MIN_PREFIX) {
          let expanded = 0;
          for (let i = at; i < vocab.length && expanded < MAX_EXPANSIONS; i++) {
            const candidate = vocab[i] as string;
            if (!candidate.startsWith(t)) break;
            if (candidate === t) continue;
            walk(i, (PREFIX_WEIGHT * t.length) / candidate.length);
            expanded++;
          }
        }
        // Words of the same root ("invite" → `invitation`); a doc keeps its best match. A rare
        // form of a common word ("created" beside "create") is no rarer a request: it weighs
        // at most what the word itself does.
        const own = vocab[at] === t ? data.idf[at] as number : Infinity;
        forEachSameRoot(vocab, t, MAX_EXPANSIONS, (i) => {
          walk(i, ROOT_WEIGHT, Math.min(own, data.idf[i] as number));
        });
        for (let i = 0; i < termCount; i++) {
          const d = termTouched[i] as number;
          if (alt[d] === 0 && altCover[d] === 0) altTouched[altCount++] = d;
          alt[d] = (alt[d] as number) + factor * (term[d] as number);
          altCover[d] = (altCover[d] as number) + (termCover[d] as number) / terms.length;
          term[d] = 0;
          termCover[d] = 0;
        }
      }
      for (let i = 0; i < altCount; i++) {
        const d = altTouched[i] as number;
        if (slot[d] === 0 && slotCover[d] === 0) slotTouched[slotCount++] = d;
        if ((alt[d] as number) > (slot[d] as number)) slot[d] = alt[d] as number;
        const cover = Math.min(1, altCover[d] as number) * Math.min(1, factor * terms.length);
        if (cover > (slotCover[d] as number)) slotCover[d] = cover;
        alt[d] = 0;
        altCover[d] = 0;
      }
    }
    weightSum += weight;
    for (let i = 0; i < slotCount; i++) {
      const d = slotTouched[i] as number;
      if (seen[d] === 0) {
        seen[d] = 1;
        touched[touchedCount++] = d;
      }
      total[d] = (total[d] as number) + (slot[d] as number);
      covered[d] = (covered[d] as number) + weight * (slotCover[d] as number);
      slot[d] = 0;
      slotCover[d] = 0;
    }
  }

  const tiers = new Map<number, number>();
  const folded = fold(query.trim());
  for (const d of data.localNames.get(folded) ?? []) if (!filtered || mask[d]) tiers.set(d, 1);
  for (const d of data.fullNames.get(folded) ?? []) if (!filtered || mask[d]) tiers.set(d, 2);

  // Coordination: a tool matching the query's rare words beats one matching a common one. The
  // share is weighted by idf, so words every tool shares cost little, and taken as a square
  // root, so the extra words of a long natural request do not crush a strong match.
  let max = 0;
  for (let i = 0; i < touchedCount; i++) {
    const d = touched[i] as number;
    const share = weightSum > 0 ? (covered[d] as number) / weightSum : 0;
    const s = (total[d] as number) * Math.sqrt(share);
    total[d] = s;
  }
  // The best candidates get a second look through their names' structure.
  const named = nameQuery(data, words);
  for (const d of topRanked(touched.subarray(0, touchedCount), total, data.nameRank, RERANK_POOL)) {
    total[d] = rescore(data, named, d, total[d] as number);
  }
  for (let i = 0; i < touchedCount; i++) max = Math.max(max, total[touched[i] as number] as number);
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
  return { touched, count: touchedCount, scores: total };
}

/** The ways a query word can match: itself, its camelCase parts, the phrase it abbreviates. */
function alternativesOf(
  data: IndexData,
  word: QueryWord,
): Alternative[] {
  const out: Alternative[] = [{ terms: [word.term], factor: 1 }];
  // The word written together with its neighbours, as the catalog writes it ("set up" → setup).
  for (const term of word.joined) out.push({ terms: [term], factor: 1 });
  // A compound the catalog knows means itself ("GitLab"); one it does not know is read as its
  // parts ("readFile" finds `read_file`).
  if (word.parts.length > 1 && termIndex(data.vocabulary, word.term) < 0) {
    out.push({ terms: word.parts, factor: 1 / word.parts.length });
  }
  const phrase = data.acronyms.get(word.term);
  if (phrase !== undefined) out.push({ terms: phrase, factor: ACRONYM_WEIGHT / phrase.length });
  return out;
}

function clampInt(value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
