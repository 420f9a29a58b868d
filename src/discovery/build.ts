/**
 * Builds the inverted index behind tool search (BM25F): every per-document, per-term quantity that
 * does not depend on the query — weighted, length-normalised and saturated term frequency — is
 * computed here once, so a query only walks the postings of its own terms.
 */
import { fold, tokenize } from "./tokenize.ts";
import type { ToolDescriptor } from "./types.ts";

/** One searchable field: its BM25F weight and length-normalisation strength. */
interface FieldSpec {
  readonly weight: number;
  readonly b: number;
}

// name > keywords > params > description; parameter descriptions count least.
const FIELDS = {
  name: { weight: 3, b: 0.3 },
  keywords: { weight: 2, b: 0.5 },
  params: { weight: 1.5, b: 0.5 },
  description: { weight: 1, b: 0.75 },
  paramDocs: { weight: 0.5, b: 0.75 },
} as const satisfies Record<string, FieldSpec>;

type FieldName = keyof typeof FIELDS;
const FIELD_NAMES = Object.keys(FIELDS) as FieldName[];

/** BM25 term-frequency saturation. */
const K1 = 1.2;

/** The documents that contain one term, with their saturated term weight. */
export interface Posting {
  readonly docs: Int32Array;
  /** `tf / (k1 + tf)` of the weighted, length-normalised frequency, per doc. */
  readonly weights: Float32Array;
  /** Inverse document frequency of the term. */
  readonly idf: number;
}

/** The immutable search structure; see {@link buildIndexData}. */
export interface IndexData {
  readonly docs: readonly ToolDescriptor[];
  readonly descriptions: readonly string[];
  readonly postings: ReadonlyMap<string, Posting>;
  /** Every indexed term, sorted, for prefix lookups. */
  readonly vocabulary: readonly string[];
  /** Server code per doc: 0 = `null`, else 1 + position in `servers`. */
  readonly serverOf: Int32Array;
  readonly serverCodes: ReadonlyMap<string, number>;
  /** Position of each doc in name order (ties keep input order). */
  readonly nameRank: Int32Array;
  /** Doc ids sorted by name. */
  readonly byName: Int32Array;
  /** Lowercased full name → doc ids. */
  readonly fullNames: ReadonlyMap<string, readonly number[]>;
  /** Lowercased name after the last `__` → doc ids (only names that have a server prefix). */
  readonly localNames: ReadonlyMap<string, readonly number[]>;
}

/** Tokenises every field of every descriptor and lays out postings, name order and lookups. */
export function buildIndexData(descriptors: readonly ToolDescriptor[]): IndexData {
  const docs = [...descriptors];
  const n = docs.length;
  const fieldCount = FIELD_NAMES.length;
  const lengths = new Float64Array(n * fieldCount);
  const totals = new Float64Array(fieldCount);
  // Raw counts straight into per-term accumulators (docs arrive in order, so a term's last entry
  // is the current doc): no per-document maps, which dominated build time.
  const acc = new Map<string, { docs: number[]; counts: number[] }>();

  docs.forEach((doc, d) => {
    const fields = fieldTexts(doc);
    FIELD_NAMES.forEach((f, fi) => {
      let len = 0;
      for (const text of fields[f]) {
        for (const t of tokenize(text)) {
          let p = acc.get(t);
          if (p === undefined) acc.set(t, p = { docs: [], counts: [] });
          if (p.docs[p.docs.length - 1] !== d) {
            p.docs.push(d);
            for (let k = 0; k < fieldCount; k++) p.counts.push(0);
          }
          const at = (p.docs.length - 1) * fieldCount + fi;
          p.counts[at] = (p.counts[at] as number) + 1;
          len++;
        }
      }
      lengths[d * fieldCount + fi] = len;
      totals[fi] = (totals[fi] as number) + len;
    });
  });

  // Per (doc, field): weight / length normalisation, so a posting's weight is one dot product.
  const scale = new Float64Array(n * fieldCount);
  FIELD_NAMES.forEach((f, fi) => {
    const { weight, b } = FIELDS[f];
    const avg = n === 0 ? 1 : Math.max((totals[fi] as number) / n, 1);
    for (let d = 0; d < n; d++) {
      const i = d * fieldCount + fi;
      scale[i] = weight / (1 - b + b * ((lengths[i] as number) / avg));
    }
  });

  const postings = new Map<string, Posting>();
  for (const [t, p] of acc) {
    const df = p.docs.length;
    const weights = new Float32Array(df);
    for (let j = 0; j < df; j++) {
      const base = (p.docs[j] as number) * fieldCount;
      let tf = 0;
      for (let k = 0; k < fieldCount; k++) {
        tf += (p.counts[j * fieldCount + k] as number) * (scale[base + k] as number);
      }
      weights[j] = tf / (K1 + tf);
    }
    postings.set(t, {
      docs: Int32Array.from(p.docs),
      weights,
      idf: Math.log(1 + (n - df + 0.5) / (df + 0.5)),
    });
  }
  const vocabulary = [...postings.keys()].sort(compareStrings);

  const serverCodes = new Map<string, number>();
  const serverOf = new Int32Array(n);
  docs.forEach((doc, d) => {
    if (doc.server === null) return;
    let code = serverCodes.get(doc.server);
    if (code === undefined) serverCodes.set(doc.server, code = serverCodes.size + 1);
    serverOf[d] = code;
  });

  const byName = Int32Array.from(docs.keys()).sort((a, b) =>
    compareStrings(docs[a]?.name ?? "", docs[b]?.name ?? "") || a - b
  );
  const nameRank = new Int32Array(n);
  byName.forEach((d, rank) => (nameRank[d] = rank));

  const fullNames = new Map<string, number[]>();
  const localNames = new Map<string, number[]>();
  docs.forEach((doc, d) => {
    const lower = fold(doc.name);
    addTo(fullNames, lower, d);
    const cut = lower.lastIndexOf("__");
    if (cut > 0 && cut + 2 < lower.length) addTo(localNames, lower.slice(cut + 2), d);
  });

  return {
    docs,
    descriptions: docs.map((doc) => doc.description ?? ""),
    postings,
    vocabulary,
    serverOf,
    serverCodes,
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

function fieldTexts(doc: ToolDescriptor): Record<FieldName, string[]> {
  const params: string[] = [];
  const paramDocs: string[] = [];
  const props = (doc.inputSchema as { properties?: unknown }).properties;
  if (typeof props === "object" && props !== null && !Array.isArray(props)) {
    for (const [key, spec] of Object.entries(props)) {
      params.push(key);
      const desc = (spec as { description?: unknown } | null)?.description;
      if (typeof desc === "string") paramDocs.push(desc);
    }
  }
  return {
    name: [doc.name],
    keywords: [...(doc.keywords ?? [])],
    params,
    description: [doc.description ?? ""],
    paramDocs,
  };
}

function addTo(map: Map<string, number[]>, key: string, d: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [d]);
  else list.push(d);
}
