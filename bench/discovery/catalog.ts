/**
 * The captured catalog of real MCP servers: one JSON file per server in `catalog/`, holding the
 * tools exactly as the server listed them, so a benchmark run needs no install and no network.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ListToolsResultSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";

/** Where the captured servers live. */
export const CATALOG_DIR = join(
  import.meta.dirname ?? new URL(".", import.meta.url).pathname,
  "catalog",
);

/** One captured server: its name behind the gateway, the npm package and the tools it listed. */
export interface CapturedServer {
  name: string;
  package: string;
  version: string;
  tools: Tool[];
}

/** Every captured server, sorted by name. */
export function loadCatalog(dir = CATALOG_DIR): CapturedServer[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as CapturedServer);
}

/**
 * Every page of a server's `tools/list` (at most 1,000 pages), asked with a plain request: the
 * client's `listTools()` would also compile a validator for each tool's output schema.
 */
export async function listToolPages(client: Client, timeoutMs = 30_000): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const result = await client.request(
      { method: "tools/list", params: cursor ? { cursor } : {} },
      ListToolsResultSchema,
      { timeout: timeoutMs },
    );
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}
