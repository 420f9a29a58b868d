/** The gateway's own list paging: opaque cursors over a stable ordering. */
import { GatewayError } from "../shared/errors.ts";

/** Items per page of the gateway's own lists. */
export const DEFAULT_PAGE_SIZE = 1000;

/** Returns one page of `items`, the cursor of the next, if any, and the page's offset. */
export function page<T>(
  items: readonly T[],
  cursor: string | undefined,
  size = DEFAULT_PAGE_SIZE,
): { items: T[]; nextCursor?: string; offset: number } {
  let offset = 0;
  if (cursor !== undefined) {
    const n = Number(atobSafe(cursor));
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new GatewayError("INVALID_ARGUMENTS", `invalid cursor "${cursor.slice(0, 40)}"`);
    }
    offset = n;
  }
  const end = offset + size;
  return end < items.length
    ? { items: items.slice(offset, end), nextCursor: cursorAt(end)!, offset }
    : { items: items.slice(offset), offset };
}

/** The cursor the gateway hands out for the page starting at `offset` (none for the first). */
export function cursorAt(offset: number): string | undefined {
  return offset === 0 ? undefined : btoa(String(offset));
}

function atobSafe(s: string): string {
  try {
    return atob(s);
  } catch {
    return "x";
  }
}
