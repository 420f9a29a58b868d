/**
 * Builds the inverted index behind tool search (BM25F): every per-document, per-term quantity that
 * does not depend on the query — weighted, length-normalised and saturated term frequency — is
 * computed here once, so a query only walks the postings of its own terms.
 *
 * The layout is flat typed arrays (term ids, one postings array for all terms) rather than a map
 * of small arrays per term: a catalog of tens of thousands of tools builds without a large
 * transient heap, and the built index is a few bytes per (tool, term) pair.
 */
import { learnAcronyms } from "./acronyms.ts";
import { groupDefinitions } from "./group.ts";
import {
  beginBuild,
  CACHED_FIELDS,
  dictionarySize,
  type FieldTerms,
  fieldTerms,
  sortedTermIds,
  termId,
  termOf,
  textTerms,
  TITLE_MARK,
} from "./terms.ts";
import { fold } from "./tokenize.ts";
import type { ToolDescriptor } from "./types.ts";

/** One searchable field: its BM25F weight and length-normalisation strength. */
interface FieldSpec {
  readonly weight: number;
  readonly b: number;
}

// name > title, keywords > params > enum values > description > parameter descriptions, server.
// The description's first sentence ("lead") counts once more: together it weighs 0.9 against
// the rest's 0.6. The server's name is a weak field: "github" in a request should favour
// GitHub's tools, not outrank the words that say which of them is meant.
const FIELDS = {
  name: { weight: 3, b: 0.3 },
  title: { weight: 2, b: 0.3 },
  keywords: { weight: 2, b: 0.5 },
  params: { weight: 1.5, b: 0.5 },
  enums: { weight: 1, b: 0.5 },
  description: { weight: 0.6, b: 0.75 },
  lead: { weight: 0.3, b: 0.5 },
  paramDocs: { weight: 0.5, b: 0.75 },
  server: { weight: 0.5, b: 0 },
} as const satisfies Record<string, FieldSpec>;

type FieldName = keyof typeof FIELDS;
const FIELD_NAMES = Object.keys(FIELDS) as FieldName[];
const FIELD_COUNT = FIELD_NAMES.length;
/** The server field comes last: the others are cached per descriptor, in the same order. */
const SERVER_FIELD = FIELD_COUNT - 1;
const WEIGHTS = Float64Array.from(FIELD_NAMES, (f) => FIELDS[f].weight);
const B = Float64Array.from(FIELD_NAMES, (f) => FIELDS[f].b);

/** BM25 term-frequency saturation. */
const K1 = 1.2;

/** The immutable search structure; see {@link buildIndexData}. */
export interface IndexData {
  /** One entry per distinct definition: the first descriptor that offers it. */
  readonly docs: readonly ToolDescriptor[];
  /** Every descriptor of a definition offered more than once, the representative first. */
  readonly copies: ReadonlyMap<number, readonly ToolDescriptor[]>;
  /** Every indexed term, sorted; a term's id is its position here. */
  readonly vocabulary: readonly string[];
  /** Postings of term `t` are `postDocs/postWeights[start[t] .. start[t + 1])`, docs ascending. */
  readonly start: Int32Array;
  readonly postDocs: Int32Array;
  /** `tf / (k1 + tf)` of the weighted, length-normalised frequency. */
  readonly postWeights: Float32Array;
  /** Inverse document frequency per term id. */
  readonly idf: Float32Array;
  /** Docs offered by each server (a copied definition counts for each of its servers). */
  readonly serverDocs: ReadonlyMap<string | null, Int32Array>;
  /** Acronym term → the terms of the phrase it stands for in this catalog. */
  readonly acronyms: ReadonlyMap<string, readonly string[]>;
  /**
   * Each doc's name terms in order (term ids), then `-1` and its title's, without its server's
   * own name: doc `d`'s are `names[nameStart[d] .. nameStart[d + 1])`.
   */
  readonly names: Int32Array;
  readonly nameStart: Int32Array;
  /** Position of each doc in name order (ties keep input order). */
  readonly nameRank: Int32Array;
  /** Doc ids sorted by name. */
  readonly byName: Int32Array;
  /** Lowercased full name → doc ids. */
  readonly fullNames: ReadonlyMap<string, readonly number[]>;
  /** Lowercased local name (or the part after the last `__`) → doc ids. */
  readonly localNames: ReadonlyMap<string, readonly number[]>;
}

/** Lays out postings, name order and lookups over every field of every definition. */
export function buildIndexData(descriptors: readonly ToolDescriptor[]): IndexData {
  beginBuild();
  const termsOf = (doc: ToolDescriptor): FieldTerms => fieldTerms(doc, localNameOf);
  const { docs, copies } = groupDefinitions(descriptors);
  const n = docs.length;
  const cached = docs.map(termsOf);
  // The server field is the one thing copies of a definition do not share: built per index.
  const serverIds = new Map<string, number[]>();
  const serverTerms = docs.map((doc, d) => {
    const out: number[] = [];
    for (const server of serversOf(doc, copies.get(d))) {
      if (server === null) continue;
      let ids = serverIds.get(server);
      if (ids === undefined) serverIds.set(server, ids = textTerms(server));
      out.push(...ids);
    }
    return out;
  });
  const g = dictionarySize();

  // Document frequencies (each doc counted once per term) and field length totals.
  const lastDoc = new Int32Array(g).fill(-1);
  const df = new Int32Array(g);
  const totals = new Float64Array(FIELD_COUNT);
  for (let d = 0; d < n; d++) {
    const { ids, ends } = cached[d] as FieldTerms;
    const servers = serverTerms[d] as number[];
    for (let i = 0, m = ids.length + servers.length; i < m; i++) {
      const t = (i < ids.length ? ids[i] : servers[i - ids.length]) as number;
      if (lastDoc[t] !== d) {
        lastDoc[t] = d;
        df[t] = (df[t] as number) + 1;
      }
    }
    let from = 0;
    for (let f = 0; f < SERVER_FIELD; f++) {
      totals[f] = (totals[f] as number) + (ends[f] as number) - from;
      from = ends[f] as number;
    }
    totals[SERVER_FIELD] = (totals[SERVER_FIELD] as number) + servers.length;
  }

  // This index's terms in term order: a term's position is its id, so prefix lookups and exact
  // lookups are both a binary search over one sorted array.
  const local = new Int32Array(g).fill(-1);
  const vocabulary: string[] = [];
  const order = sortedTermIds();
  for (let i = 0; i < order.length; i++) {
    const t = order[i] as number;
    if ((df[t] as number) === 0) continue;
    local[t] = vocabulary.length;
    vocabulary.push(termOf(t));
  }
  const v = vocabulary.length;
  const start = new Int32Array(v + 1);
  const idf = new Float32Array(v);
  for (let t = 0; t < g; t++) {
    const id = local[t] as number;
    if (id < 0) continue;
    const f = df[t] as number;
    start[id + 1] = f;
    idf[id] = Math.log(1 + (n - f + 0.5) / (f + 0.5));
  }
  for (let id = 0; id < v; id++) start[id + 1] = (start[id + 1] as number) + (start[id] as number);
  const postDocs = new Int32Array(start[v] as number);
  const postWeights = new Float32Array(start[v] as number);
  const cursor = start.slice(0, v);

  // Per doc, the weighted frequency of each term (weight / length normalisation per field),
  // saturated, written straight into its term's postings.
  const avg = new Float64Array(FIELD_COUNT);
  for (let f = 0; f < FIELD_COUNT; f++) {
    avg[f] = n === 0 ? 1 : Math.max((totals[f] as number) / n, 1);
  }
  const tf = new Float64Array(v);
  const touched = new Int32Array(v);
  for (let d = 0; d < n; d++) {
    const { ids, ends } = cached[d] as FieldTerms;
    const servers = serverTerms[d] as number[];
    let count = 0;
    let from = 0;
    for (let f = 0; f <= SERVER_FIELD; f++) {
      const to = f === SERVER_FIELD ? from + servers.length : ends[f] as number;
      const scale = (WEIGHTS[f] as number) /
        (1 - (B[f] as number) + (B[f] as number) * ((to - from) / (avg[f] as number)));
      for (let i = from; i < to; i++) {
        const t = (f === SERVER_FIELD ? servers[i - from] : ids[i]) as number;
        const id = local[t] as number;
        if (tf[id] === 0) touched[count++] = id;
        tf[id] = (tf[id] as number) + scale;
      }
      from = to;
    }
    for (let i = 0; i < count; i++) {
      const id = touched[i] as number;
      const at = cursor[id] as number;
      cursor[id] = at + 1;
      const x = tf[id] as number;
      postDocs[at] = d;
      postWeights[at] = x / (K1 + x);
      tf[id] = 0;
    }
  }

  // A server's own name in its tool names (`linear_createIssue`, `slack_post_message`) says
  // which server, not what the tool does: left out of the names' structure.
  const nameStart = new Int32Array(n + 1);
  const kept: number[] = [];
  for (let d = 0; d < n; d++) {
    const own = new Set(serverTerms[d] as number[]);
    for (const t of (cached[d] as FieldTerms).named) {
      if (t === TITLE_MARK) kept.push(-1);
      else if (!own.has(t) && (local[t] as number) >= 0) kept.push(local[t] as number);
    }
    nameStart[d + 1] = kept.length;
  }
  const names = Int32Array.from(kept);

  const serverLists = new Map<string | null, number[]>();
  docs.forEach((doc, d) => {
    for (const s of serversOf(doc, copies.get(d))) addTo(serverLists, s, d);
  });
  const serverDocs = new Map<string | null, Int32Array>();
  for (const [s, list] of serverLists) serverDocs.set(s, Int32Array.from(list));

  // Names sort natively as strings (code-unit order); the padded position keeps ties stable.
  const keyed = docs.map((doc, d) => `${doc.name}\0${String(d).padStart(10, "0")}`).sort();
  const byName = new Int32Array(n);
  const nameRank = new Int32Array(n);
  keyed.forEach((key, rank) => {
    const d = Number(key.slice(key.lastIndexOf("\0") + 1));
    byName[rank] = d;
    nameRank[d] = rank;
  });

  const fullNames = new Map<string, number[]>();
  const localNames = new Map<string, number[]>();
  docs.forEach((_doc, d) => {
    const { folded, foldedLocal } = cached[d] as FieldTerms;
    addTo(fullNames, folded, d);
    if (foldedLocal !== folded) addTo(localNames, foldedLocal, d);
    // Copies share the local name; only their full names differ.
    for (const copy of copies.get(d)?.slice(1) ?? []) addTo(fullNames, fold(copy.name), d);
  });

  const dfOf = (term: string): number => {
    const t = termId(term);
    return t === undefined || t >= g ? 0 : df[t] as number;
  };
  return {
    docs,
    copies,
    vocabulary,
    start,
    postDocs,
    postWeights,
    idf,
    serverDocs,
    names,
    nameStart,
    acronyms: learnAcronyms(cached.map((c) => c.phrases), dfOf),
    nameRank,
    byName,
    fullNames,
    localNames,
  };
}

function serversOf(
  doc: ToolDescriptor,
  copies: readonly ToolDescriptor[] | undefined,
): Iterable<string | null> {
  if (copies === undefined) return [doc.server];
  return new Set(copies.map((c) => c.server));
}

/** Code-unit order: locale-independent and fast, so rankings are identical on every runtime. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The first position in `sorted` whose string is not below `key`. */
export function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareStrings(sorted[mid] as string, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The id of `term` in a sorted vocabulary, or -1. */
export function termIndex(vocabulary: readonly string[], term: string): number {
  const at = lowerBound(vocabulary, term);
  return vocabulary[at] === term ? at : -1;
}

/** The name a tool has on its server: `localName`, else the part after the last `__`. */
export function localNameOf(doc: ToolDescriptor): string {
  return doc.localName ?? afterPrefix(doc.name);
}

function afterPrefix(name: string): string {
  const cut = name.lastIndexOf("__");
  return cut > 0 && cut + 2 < name.length ? name.slice(cut + 2) : name;
}

// The cached fields and FIELDS must list the same fields in the same order.
if (CACHED_FIELDS.some((f, i) => FIELD_NAMES[i] !== f) || FIELD_NAMES[SERVER_FIELD] !== "server") {
  throw new Error("discovery: FIELDS and CACHED_FIELDS disagree");
}

function addTo<K>(map: Map<K, number[]>, key: K, d: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [d]);
  else list.push(d);
}
