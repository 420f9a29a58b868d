/**
 * Gives back the memory start-up left behind. Parsing the config, building catalogs and
 * connecting upstreams leave garbage the collector has not yet reclaimed and heap pages the
 * allocator keeps; a gateway then idles for hours at that size. One full collection and a
 * shrink of the heap once the first start has settled return it (a no-op outside Bun).
 */

declare const Bun: { gc?: (force: boolean) => void; shrink?: () => void } | undefined;

/** One full, synchronous collection, then the heap's free pages returned to the system. */
export function compactHeap(): void {
  if (typeof Bun === "undefined") return;
  Bun.gc?.(true);
  Bun.shrink?.();
}
