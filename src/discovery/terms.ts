/**
 * The terms of each tool's searchable fields, kept between index builds: a catalog change (one
 * server restarted, a reload) re-reads only the tools that changed, so rebuilding the index after
 * it costs little time and memory. Terms are ids in one dictionary shared by every index; the
 * cache is keyed by descriptor object, so a caller that keeps its descriptors gets the reuse.
 */
import { phrasesOf } from "./acronyms.ts";
import { summarize } from "./summary.ts";
import { fold, nameWords, tokenize } from "./tokenize.ts";
import type { ToolDescriptor } from "./types.ts";

/** Field order of {@link FieldTerms.ends}; the server field is added per build. */
export const CACHED_FIELDS = [
  "name",
  "title",
  "keywords",
  "params",
  "enums",
  "description",
  "lead",
  "paramDocs",
] as const;

/** What one descriptor contributes to an index, computed once per descriptor. */
export interface FieldTerms {
  /** The term ids of its fields, end to end; `ends[f]` is where field `f` ends. */
  readonly ids: Int32Array;
  readonly ends: Int32Array;
  /** Dictionary generation the ids belong to. */
  readonly generation: number;
  /**
   * Its name's term ids in order, then {@link TITLE_MARK} and its title's: the name's structure
   * (which words, which adjacent) for reranking.
   */
  readonly named: Int32Array;
  /** Its name and title phrases, for learning abbreviations. */
  readonly phrases: readonly string[];
  /** Lowercased full name and local name, for exact-name matches. */
  readonly folded: string;
  readonly foldedLocal: string;
}

/** Separates a name's terms from its title's in {@link FieldTerms.named}. */
export const TITLE_MARK = -1;

/** Enum values per parameter that are indexed (a list of 500 country codes is not words). */
const MAX_ENUM_VALUES = 32;
/** The dictionary starts over past this many terms, so churn cannot grow it without bound. */
const MAX_TERMS = 1_000_000;

const ids = new Map<string, number>();
const words: string[] = [];
let generation = 0;
let cache = new WeakMap<ToolDescriptor, FieldTerms>();
let sorted: Int32Array = new Int32Array();

/** The id of `term`, adding it to the dictionary. */
function idOf(term: string): number {
  let id = ids.get(term);
  if (id === undefined) {
    id = words.length;
    ids.set(term, id);
    words.push(term);
  }
  return id;
}

/** The dictionary's id of `term`, if any tool ever had it. */
export function termId(term: string): number | undefined {
  return ids.get(term);
}

/** The term of an id. */
export function termOf(id: number): string {
  return words[id] as string;
}

/** Number of terms in the dictionary (ids are below it). */
export function dictionarySize(): number {
  return words.length;
}

/** Every term id in term order; re-sorted only when the dictionary grew. */
export function sortedTermIds(): Int32Array {
  if (sorted.length !== words.length) {
    sorted = Int32Array.from(words.keys()).sort((a, b) => {
      const x = words[a] as string;
      const y = words[b] as string;
      return x < y ? -1 : x > y ? 1 : 0;
    });
  }
  return sorted;
}

/** Starts a build: resets the dictionary (and every cached entry) when it grew too large. */
export function beginBuild(): void {
  if (words.length <= MAX_TERMS) return;
  ids.clear();
  words.length = 0;
  sorted = new Int32Array();
  cache = new WeakMap();
  generation++;
}

/** The cached field terms of `doc`, tokenised on first use. */
export function fieldTerms(
  doc: ToolDescriptor,
  localNameOf: (doc: ToolDescriptor) => string,
): FieldTerms {
  const hit = cache.get(doc);
  if (hit !== undefined && hit.generation === generation) return hit;
  const localName = localNameOf(doc);
  const out: number[] = [];
  const ends = new Int32Array(CACHED_FIELDS.length);
  const texts = fieldTexts(doc, localName);
  const named: string[][] = [];
  const nameTerms = new Set(tokenize(localName));
  CACHED_FIELDS.forEach((field, f) => {
    for (const text of texts[field]) {
      let terms = tokenize(text);
      if (f < 2) named.push(terms);
      // A title adds only the words its name lacks: "Read Text File" adds nothing to
      // `read_text_file`, "Read File (Deprecated)" adds "deprecated" to `read_file` — so a tool
      // with a title does not count its name twice.
      if (field === "title") terms = terms.filter((t) => !nameTerms.has(t));
      for (const t of terms) out.push(idOf(t));
    }
    ends[f] = out.length;
  });
  const terms: FieldTerms = {
    ids: Int32Array.from(out),
    ends,
    named: Int32Array.from(
      [localName, ...texts.title].flatMap((text, i) => [
        ...(i > 0 ? [TITLE_MARK] : []),
        ...nameWords(text).map(idOf),
      ]),
    ),
    generation,
    phrases: phrasesOf(named),
    folded: fold(doc.name),
    foldedLocal: fold(localName),
  };
  cache.set(doc, terms);
  return terms;
}

/** The term ids of a short text (a server name), not cached per descriptor. */
export function textTerms(text: string): number[] {
  return tokenize(text).map(idOf);
}

function fieldTexts(
  doc: ToolDescriptor,
  localName: string,
): Record<(typeof CACHED_FIELDS)[number], string[]> {
  const params: string[] = [];
  const paramDocs: string[] = [];
  const enums: string[] = [];
  collectParams(doc.inputSchema, params, paramDocs, enums, 0);
  return {
    name: [localName],
    title: doc.title === undefined ? [] : [doc.title],
    keywords: [...(doc.keywords ?? [])],
    params,
    enums,
    description: [doc.description ?? ""],
    // The first sentence says what the tool is for; the rest is often usage notes and
    // boilerplate a server repeats in every description.
    lead: [summarize(doc.description)],
    paramDocs,
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
