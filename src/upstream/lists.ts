/** Reads every page of an upstream list, guarding against servers whose cursors never end. */
import { GatewayError } from "../shared/errors.ts";

const MAX_PAGES = 10_000;

/**
 * Follows `nextCursor` until it is absent. A repeated cursor or more than {@link MAX_PAGES}
 * pages is an upstream bug: fail loudly instead of looping forever.
 */
export async function readAllPages<T>(
  fetchPage: (
    cursor: string | undefined,
  ) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
  what: string,
): Promise<T[]> {
  const all: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const { items, nextCursor } = await fetchPage(cursor);
    all.push(...items);
    if (nextCursor === undefined || nextCursor === null) return all;
    if (seen.has(nextCursor)) {
      throw new GatewayError(
        "UPSTREAM_ERROR",
        `${what}: the server repeated cursor "${nextCursor}"`,
      );
    }
    seen.add(nextCursor);
    cursor = nextCursor;
  }
  throw new GatewayError("UPSTREAM_ERROR", `${what}: more than ${MAX_PAGES} pages`);
}
