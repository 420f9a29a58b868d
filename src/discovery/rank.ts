/**
 * Result ordering and paging for tool search. Only the first `offset + limit` hits are ever
 * ordered: a bounded heap selects them in O(n log k), so a query word that matches half the
 * catalog does not pay for sorting all of it.
 */
import type { IndexData } from "./build.ts";
import { summarize } from "./summary.ts";
import type { SearchItem, SearchResult, ToolDescriptor } from "./types.ts";

/**
 * The best `k` of `ids`, best first: higher `score[d]` first, then lower `nameRank[d]` (name
 * order), so equal scores always come out in the same order.
 */
export function topRanked(
  ids: Int32Array,
  score: Float64Array,
  nameRank: Int32Array,
  k: number,
): number[] {
  // `a` ranks after `b`.
  const after = (a: number, b: number): boolean => {
    const sa = score[a] as number;
    const sb = score[b] as number;
    return sa < sb || (sa === sb && (nameRank[a] as number) > (nameRank[b] as number));
  };
  const size = Math.min(k, ids.length);
  if (size <= 0) return [];
  // A heap whose root is the worst of the kept hits.
  const heap = new Int32Array(size);
  let used = 0;
  const siftDown = (start: number): void => {
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < used && after(heap[l] as number, heap[worst] as number)) worst = l;
      if (r < used && after(heap[r] as number, heap[worst] as number)) worst = r;
      if (worst === i) return;
      const tmp = heap[i] as number;
      heap[i] = heap[worst] as number;
      heap[worst] = tmp;
      i = worst;
    }
  };
  for (const d of ids) {
    if (used < size) {
      let i = used++;
      heap[i] = d;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!after(heap[i] as number, heap[parent] as number)) break;
        const tmp = heap[i] as number;
        heap[i] = heap[parent] as number;
        heap[parent] = tmp;
        i = parent;
      }
    } else if (after(heap[0] as number, d)) {
      heap[0] = d;
      siftDown(0);
    }
  }
  return Array.from(heap).sort((a, b) => (after(a, b) ? 1 : after(b, a) ? -1 : 0));
}

/**
 * One page of results: `ids` are the docs of this page, `total` counts every match. A definition
 * several servers offer is one item named after its copy on `server` (when filtering), else its
 * first, and lists every server.
 */
export function makePage(
  data: IndexData,
  ids: readonly number[],
  scoreOf: (d: number) => number,
  total: number,
  offset: number,
  server?: string,
): SearchResult {
  const items: SearchItem[] = ids.map((d) => {
    const copies = data.copies.get(d);
    const doc = (server === undefined ? undefined : copies?.find((c) => c.server === server)) ??
      data.docs[d] as ToolDescriptor;
    const item: SearchItem = {
      name: doc.name,
      server: doc.server,
      description: summarize(doc.description),
      score: scoreOf(d),
    };
    if (copies !== undefined) item.servers = [...new Set(copies.map((c) => c.server))];
    return item;
  });
  const end = offset + items.length;
  const result: SearchResult = { items, total, has_more: end < total };
  if (result.has_more) result.next_offset = end;
  return result;
}
