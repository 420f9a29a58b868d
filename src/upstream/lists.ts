/** Reading upstream lists: every page, guarding against servers whose cursors never end. */
import type { UpstreamClient } from "./client.ts";
import { GatewayError } from "../shared/errors.ts";
import type { UpstreamCatalog } from "./upstream.ts";

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

/** Everything an upstream offers, read in full (every page) at connect and on `list_changed`. */
export async function readCatalog(
  client: UpstreamClient,
  server: string,
  timeout: number,
): Promise<UpstreamCatalog> {
  const caps = client.getServerCapabilities() ?? {};
  const what = (kind: string) => `${server}: ${kind}`;
  const opts = { timeout };
  const at = (cursor: string | undefined) => (cursor ? { cursor } : undefined);
  const [tools, prompts, resources, resourceTemplates] = await Promise.all([
    caps.tools
      ? readAllPages(async (c) => {
        const r = await client.listTools(at(c), opts);
        return { items: r.tools, nextCursor: r.nextCursor };
      }, what("tools/list"))
      : [],
    caps.prompts
      ? readAllPages(async (c) => {
        const r = await client.listPrompts(at(c), opts);
        return { items: r.prompts, nextCursor: r.nextCursor };
      }, what("prompts/list"))
      : [],
    caps.resources
      ? readAllPages(async (c) => {
        const r = await client.listResources(at(c), opts);
        return { items: r.resources, nextCursor: r.nextCursor };
      }, what("resources/list"))
      : [],
    caps.resources
      ? readAllPages(async (c) => {
        const r = await client.listResourceTemplates(at(c), opts);
        return { items: r.resourceTemplates, nextCursor: r.nextCursor };
      }, what("resources/templates/list")).catch(() => [])
      : [],
  ]);
  return { tools, prompts, resources, resourceTemplates };
}
