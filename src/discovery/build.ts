/**
 * Builds the inverted index behind tool search (BM25F): every per-document, per-term quantity that
 * does not depend on the query — weighted, length-normalised and saturated term frequency — is
 * computed here once, so a query only walks the postings of its own terms.
 *
 * The layout is flat typed arrays (term ids, one postings array for all terms) rather than a map
 * of small arrays per term: a catalog of tens of thousands of tools builds without a large
 * transient heap, and the built index is a few bytes per (tool, term) pair.
 */
import { groupDefinitions } from "./group.ts";
import { learnAcronyms } from "./acronyms.ts";
import { fold, tokenize } from "./tokenize.ts";
import type { ToolDescriptor } from "./types.ts";

/** One searchable field: its BM25F weight and length-normalisation strength. */
interface FieldSpec {
  readonly weight: number;
  readonly b: number;
}

// name > title, keywords > params > enum values, description > parameter descriptions > server.
// The server's name is a weak field: "github" in a request should favour GitHub's tools, not
// outrank the words that say which of them is meant.
const FIELDS = {
  name: { weight: 3, b: 0.3 },
  title: { weight: 2, b: 0.3 },
  keywords: { weight: 2, b: 0.5 },
  params: { weight: 1.5, b: 0.5 },
  enums: { weight: 1, b: 0.5 },
  description: { weight: 1, b: 0.75 },
  paramDocs: { weight: 0.5, b: 0.75 },
  server: { weight: 0.5, b: 0 },
} as const satisfies Record<string, FieldSpec>;

type FieldName = keyof typeof FIELDS;
const FIELD_NAMES = Object.keys(FIELDS) as FieldName[];
const FIELD_COUNT = FIELD_NAMES.length;

/** BM25 term-frequency saturation. */
const K1 = 1.2;
/** Enum values per parameter that are indexed (a list of 500 country codes is not words). */
const MAX_ENUM_VALUES = 32;

/** The immutable search structure; see {@link buildIndexData}. */
export interface IndexData {
  /** One entry per distinct definition: the first descriptor that offers it. */
  readonly docs: readonly ToolDescriptor[];
  /** Every descriptor of a definition offered more than once, the representative first. */
  readonly copies: ReadonlyMap<number, readonly ToolDescriptor[]>;
  /** Term → term id. */
  readonly termIds: ReadonlyMap<string, number>;
  /** Every indexed term, sorted, for prefix lookups; `sortedIds[i]` is its id. */
  readonly vocabulary: readonly string[];
  readonly sortedIds: Int32Array;
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
  /** Position of each doc in name order (ties keep input order). */
  readonly nameRank: Int32Array;
  /** Doc ids sorted by name. */
  readonly byName: Int32Array;
  /** Lowercased full name → doc ids. */
  readonly fullNames: ReadonlyMap<string, readonly number[]>;
  /** Lowercased local name (or the part after the last `__`) → doc ids. */
  readonly localNames: ReadonlyMap<string, readonly number[]>;
}

/** Tokenises every field of every definition and lays out postings, name order and lookups. */
export function buildIndexData(descriptors: readonly ToolDescriptor[]): IndexData {
  const { docs, copies } = groupDefinitions(descriptors);
  const n = docs.length;
  const termIds = new Map<string, number>();
  const terms: string[] = [];
  // Pass 1: every field's terms as ids, end to end; `bounds` marks where each (doc, field) ends.
  let tokens = new Int32Array(1 << 16);
  let used = 0;
  const bounds = new Int32Array(n * FIELD_COUNT + 1);
  const totals = new Float64Array(FIELD_COUNT);
  for (let d = 0; d < n; d++) {
    const fields = fieldTexts(docs[d] as ToolDescriptor, copies.get(d));
    for (let fi = 0; fi < FIELD_COUNT; fi++) {
      const before = used;
      for (const text of fields[FIELD_NAMES[fi] as FieldName]) {
        for (const t of tokenize(text)) {
          let id = termIds.get(t);
          if (id === undefined) {
            id = terms.length;
            termIds.set(t, id);
            terms.push(t);
          }
          if (used === tokens.length) {
            const grown = new Int32Array(tokens.length * 2);
            grown.set(tokens);
            tokens = grown;
          }
          tokens[used++] = id;
        }
      }
      bounds[d * FIELD_COUNT + fi + 1] = used;
      totals[fi] = (totals[fi] as number) + (used - before);
    }
  }

  const v = terms.length;
  // Pass 2: document frequencies (each doc counted once per term).
  const lastDoc = new Int32Array(v).fill(-1);
  const df = new Int32Array(v);
  for (let d = 0; d < n; d++) {
    for (
      let i = bounds[d * FIELD_COUNT] as number;
      i < (bounds[(d + 1) * FIELD_COUNT] as number);
      i++
    ) {
      const t = tokens[i] as number;
      if (lastDoc[t] !== d) {
        lastDoc[t] = d;
        df[t] = (df[t] as number) + 1;
      }
    }
  }
  const start = new Int32Array(v + 1);
  for (let t = 0; t < v; t++) start[t + 1] = (start[t] as number) + (df[t] as number);
  const postings = start[v] as number;
  const postDocs = new Int32Array(postings);
  const postWeights = new Float32Array(postings);
  const cursor = start.slice(0, v);

  // Pass 3: per doc, the weighted frequency of each term (weight / length normalisation per
  // field), saturated, written straight into its term's postings.
  const scale = new Float64Array(FIELD_COUNT);
  const avg = FIELD_NAMES.map((_, fi) => (n === 0 ? 1 : Math.max((totals[fi] as number) / n, 1)));
  const tf = new Float64Array(v);
  const touched: number[] = [];
  for (let d = 0; d < n; d++) {
    for (let fi = 0; fi < FIELD_COUNT; fi++) {
      const { weight, b } = FIELDS[FIELD_NAMES[fi] as FieldName];
      const from = bounds[d * FIELD_COUNT + fi] as number;
      const to = bounds[d * FIELD_COUNT + fi + 1] as number;
      scale[fi] = weight / (1 - b + b * ((to - from) / (avg[fi] as number)));
      for (let i = from; i < to; i++) {
        const t = tokens[i] as number;
        if (tf[t] === 0) touched.push(t);
        tf[t] = (tf[t] as number) + (scale[fi] as number);
      }
    }
    for (const t of touched) {
      const at = cursor[t] as number;
      cursor[t] = at + 1;
      const x = tf[t] as number;
      postDocs[at] = d;
      postWeights[at] = x / (K1 + x);
      tf[t] = 0;
    }
    touched.length = 0;
  }
  const idf = new Float32Array(v);
  for (let t = 0; t < v; t++) {
    const f = df[t] as number;
    idf[t] = Math.log(1 + (n - f + 0.5) / (f + 0.5));
  }

  const order = Int32Array.from(terms.keys()).sort((a, b) =>
    compareStrings(terms[a] as string, terms[b] as string)
  );
  const vocabulary = Array.from(order, (t) => terms[t] as string);

  const serverLists = new Map<string | null, number[]>();
  docs.forEach((doc, d) => {
    const servers = new Set((copies.get(d) ?? [doc]).map((c) => c.server));
    for (const s of servers) addTo(serverLists, s, d);
  });
  const serverDocs = new Map<string | null, Int32Array>();
  for (const [s, list] of serverLists) serverDocs.set(s, Int32Array.from(list));

  const byName = Int32Array.from(docs.keys()).sort((a, b) =>
    compareStrings(docs[a]?.name ?? "", docs[b]?.name ?? "") || a - b
  );
  const nameRank = new Int32Array(n);
  byName.forEach((d, rank) => (nameRank[d] = rank));

  const fullNames = new Map<string, number[]>();
  const localNames = new Map<string, number[]>();
  docs.forEach((doc, d) => {
    for (const copy of copies.get(d) ?? [doc]) {
      const lower = fold(copy.name);
      addTo(fullNames, lower, d);
      const local = copy.localName === undefined ? afterPrefix(lower) : fold(copy.localName);
      if (local !== lower) addTo(localNames, local, d);
    }
  });

  return {
    docs,
    copies,
    termIds,
    vocabulary,
    sortedIds: order,
    start,
    postDocs,
    postWeights,
    idf,
    serverDocs,
    acronyms: learnAcronyms(docs, (t) => df[termIds.get(t) ?? -1] ?? 0),
    nameRank,
    byName,
    fullNames,
    localNames,
  };
}

/** Code-unit order: locale-independent and fast, so rankings are identical on every runtime. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The name a tool has on its server: `localName`, else the part after the last `__`. */
export function localNameOf(doc: ToolDescriptor): string {
  return doc.localName ?? afterPrefix(doc.name);
}

function afterPrefix(name: string): string {
  const cut = name.lastIndexOf("__");
  return cut > 0 && cut + 2 < name.length ? name.slice(cut + 2) : name;
}

function fieldTexts(
  doc: ToolDescriptor,
  copies: readonly ToolDescriptor[] | undefined,
): Record<FieldName, string[]> {
  const params: string[] = [];
  const paramDocs: string[] = [];
  const enums: string[] = [];
  collectParams(doc.inputSchema, params, paramDocs, enums, 0);
  const servers = new Set<string>();
  for (const c of copies ?? [doc]) if (c.server !== null) servers.add(c.server);
  return {
    name: [localNameOf(doc)],
    // A title that only restates the name would count the name twice for tools that have one.
    title: doc.title === undefined || sameWords(doc.title, localNameOf(doc)) ? [] : [doc.title],
    keywords: [...(doc.keywords ?? [])],
    params,
    enums,
    description: [doc.description ?? ""],
    paramDocs,
    server: [...servers],
  };
}

// Top-level parameters and those of one nested object (or array of objects): enough to find
// `filter.state` without walking a hostile schema to any depth.
function collectParams(
  schema: unknown,
  params: string[],
  paramDocs: string[],
  enums: string[],
  depth: number,
): void {
  const props = (schema as { properties?: unknown } | null)?.properties;
  if (typeof props !== "object" || props === null || Array.isArray(props)) return;
  for (const [key, spec] of Object.entries(props)) {
    params.push(key);
    if (typeof spec !== "object" || spec === null) continue;
    const s = spec as { description?: unknown; enum?: unknown; items?: unknown };
    if (typeof s.description === "string") paramDocs.push(s.description);
    const values = Array.isArray(s.enum)
      ? s.enum
      : Array.isArray((s.items as { enum?: unknown } | undefined)?.enum)
      ? (s.items as { enum: unknown[] }).enum
      : [];
    for (const value of values.slice(0, MAX_ENUM_VALUES)) {
      if (typeof value === "string") enums.push(value);
    }
    if (depth === 0) {
      collectParams(s, params, paramDocs, enums, 1);
      collectParams(s.items, params, paramDocs, enums, 1);
    }
  }
}

function sameWords(a: string, b: string): boolean {
  const squash = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
  return squash(a) === squash(b);
}

function addTo<K>(map: Map<K, number[]>, key: K, d: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [d]);
  else list.push(d);
}
