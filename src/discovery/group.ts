/**
 * One entry per definition: the same tool offered by several servers (one per team, a mirror,
 * a second region) has the same local name, title, description and input schema. Searching
 * them as one document keeps each copy from taking a place on the first page, and lets the hit
 * list every server that offers it.
 */
import { sha256Hex } from "../runtime/hash.ts";
import type { ToolDescriptor } from "./types.ts";

/** Definitions in first-seen order, and the descriptors of those offered more than once. */
export interface Grouped {
  readonly docs: ToolDescriptor[];
  /** Doc id → every descriptor of that definition (the representative first); only for copies. */
  readonly copies: Map<number, ToolDescriptor[]>;
}

/** Groups identical definitions; the first descriptor of each represents it. */
export function groupDefinitions(descriptors: readonly ToolDescriptor[]): Grouped {
  const docs: ToolDescriptor[] = [];
  const copies = new Map<number, ToolDescriptor[]>();
  const candidates = new Map<string, number[]>();
  for (const doc of descriptors) {
    // Only a descriptor that says what its name on its server is can be a copy.
    if (doc.localName === undefined) {
      docs.push(doc);
      continue;
    }
    const description = doc.description ?? "";
    const key = keyOf(doc);
    const list = candidates.get(key);
    let found = -1;
    if (list !== undefined) {
      const schema = schemaOf(doc);
      for (const d of list) {
        const other = docs[d] as ToolDescriptor;
        if (
          other.localName === doc.localName && (other.description ?? "") === description &&
          other.title === doc.title &&
          (other.inputSchema === doc.inputSchema || schemaOf(other) === schema)
        ) {
          found = d;
          break;
        }
      }
    }
    if (found >= 0) {
      const group = copies.get(found);
      if (group === undefined) copies.set(found, [docs[found] as ToolDescriptor, doc]);
      else group.push(doc);
      continue;
    }
    const d = docs.length;
    docs.push(doc);
    if (list === undefined) candidates.set(key, [d]);
    else list.push(d);
  }
  return { docs, copies };
}

// Per descriptor, computed once: a short key that equal definitions share (name, description
// length and hash) and the SHA-256 of the schema's JSON — a digest rather than the text, so the
// cache stays small. Kept by descriptor, so a rebuild does not redo them.
const keys = new WeakMap<ToolDescriptor, string>();
const schemas = new WeakMap<ToolDescriptor, string>();

function keyOf(doc: ToolDescriptor): string {
  let key = keys.get(doc);
  if (key === undefined) {
    const description = doc.description ?? "";
    key = `${doc.localName}\0${description.length}\0${hash(description)}`;
    keys.set(doc, key);
  }
  return key;
}

function schemaOf(doc: ToolDescriptor): string {
  let text = schemas.get(doc);
  if (text === undefined) {
    text = sha256Hex(JSON.stringify(doc.inputSchema) ?? "");
    schemas.set(doc, text);
  }
  return text;
}

// FNV-1a over UTF-16 code units.
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
