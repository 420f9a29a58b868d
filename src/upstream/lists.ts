/** Reading upstream lists: every page, guarding against servers whose cursors never end. */
import type { AnySchema } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import {
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ListToolsResultSchema,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type ServerCapabilities,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { UpstreamCaller } from "./caller.ts";
import { NO_CONTEXT } from "../shared/call-context.ts";
import { schemaCheck } from "./result-check.ts";
import { GatewayError } from "../shared/errors.ts";
import type { UpstreamCatalog } from "./types.ts";
import { shareRepeatedShapes } from "./shared-shapes.ts";

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
  caller: UpstreamCaller,
  caps: ServerCapabilities,
  server: string,
  timeoutMs: number,
): Promise<UpstreamCatalog> {
  const what = (kind: string) => `${server}: ${kind}`;
  const page = <T>(method: string, schema: AnySchema, key: string) =>
    readAllPages<T>(async (cursor) => {
      const r = await caller.call(method, cursor ? { cursor } : undefined, NO_CONTEXT, {
        timeoutMs,
        check: schemaCheck(schema),
      }) as Record<string, unknown>;
      return { items: r[key] as T[], nextCursor: r.nextCursor as string | undefined };
    }, what(method));
  const [tools, prompts, resources, resourceTemplates] = await Promise.all([
    caps.tools ? page<Tool>("tools/list", ListToolsResultSchema, "tools") : [],
    caps.prompts ? page<Prompt>("prompts/list", ListPromptsResultSchema, "prompts") : [],
    caps.resources ? page<Resource>("resources/list", ListResourcesResultSchema, "resources") : [],
    caps.resources
      ? page<ResourceTemplate>(
        "resources/templates/list",
        ListResourceTemplatesResultSchema,
        "resourceTemplates",
      ).catch(() => [])
      : [],
  ]);
  return { tools: shareRepeatedShapes(tools), prompts, resources, resourceTemplates };
}
