/**
 * One entry per definition: the same tool offered by several servers (one per team, a mirror,
 * a second region) has the same local name, title, description and input schema. Searching
 * them as one document keeps each copy from taking a place on the first page, and lets the hit
 * list every server that offers it.
 */
import type { ToolDescriptor } from "./types.ts";

/** Definitions in first-seen order, and the descriptors of those offered more than once. */
export interface Grouped {
  readonly docs: ToolDescriptor[];
  /** Doc id → every descriptor of that definition (the representative first); only for copies. */
  readonly copies: Map<number, ToolDescriptor[]>;
}

/**
 * Groups identical definitions; the first descriptor of each represents it. `keyOf` gives a
 * short key (name, description length and hash) that equal definitions share; equality is then
 * checked on the real fields, so the key only has to find candidates.
 */
export function groupDefinitions(
  descriptors: readonly ToolDescriptor[],
  keyOf: (doc: ToolDescriptor) => string,
): Grouped {
  const docs: ToolDescriptor[] = [];
  const copies = new Map<number, ToolDescriptor[]>();
  const candidates = new Map<string, number[]>();
  const schemaText = new Map<number, string>();
  const textOf = (d: number, doc: ToolDescriptor): string => {
    let text = schemaText.get(d);
    if (text === undefined) schemaText.set(d, text = JSON.stringify(doc.inputSchema) ?? "");
    return text;
  };
  for (const doc of descriptors) {
    const description = doc.description ?? "";
    const key = keyOf(doc);
    const list = candidates.get(key);
    let found = -1;
    if (doc.localName !== undefined && list !== undefined) {
      const schema = JSON.stringify(doc.inputSchema) ?? "";
      for (const d of list) {
        const other = docs[d] as ToolDescriptor;
        if (
          other.localName === doc.localName && (other.description ?? "") === description &&
          other.title === doc.title && textOf(d, other) === schema
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
