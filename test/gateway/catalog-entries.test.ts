/**
 * A rebuild keeps one entry per upstream definition: the same list read once gives the same
 * entry objects at every rebuild (what search terms and prepared lists are cached on), and an
 * entry is made anew when its exposure changes (an override) or the list is read again.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { parseConfig } from "../../src/config/mod.ts";
import { buildCatalog } from "../../src/gateway/catalog.ts";
import { createLogger } from "../../src/shared/log.ts";
import type { Upstream } from "../../src/upstream/mod.ts";

const tools = (): Tool[] => [
  { name: "a", description: "Tool a", inputSchema: { type: "object" } },
  { name: "b", description: "Tool b", inputSchema: { type: "object" } },
];

function upstreamOf(yaml: string, list: Tool[]): Upstream {
  const config = parseConfig(yaml);
  // The fields the catalog reads of an upstream: its config and its catalog.
  return {
    name: "s",
    config: config.servers[0]!,
    catalog: { tools: list, prompts: [], resources: [], resourceTemplates: [] },
  } as unknown as Upstream;
}

describe("catalog entries across rebuilds", () => {
  const log = createLogger("test");
  const plain = "servers:\n  s: { command: node }\n";
  const overridden =
    "servers:\n  s:\n    command: node\n    tools: { overrides: { a: { description: New } } }\n";

  it("the same definitions keep their entries; an override or a re-read list makes new ones", () => {
    const list = tools();
    const config = parseConfig(plain);
    const first = buildCatalog(config, [upstreamOf(plain, list)], log);
    const again = buildCatalog(config, [upstreamOf(plain, list)], log);
    assert.equal(again.tools[0], first.tools[0]);
    assert.equal(again.tools[1], first.tools[1]);

    const changed = buildCatalog(parseConfig(overridden), [upstreamOf(overridden, list)], log);
    assert.notEqual(changed.tools[0], first.tools[0]);
    assert.equal(changed.tools[0]!.tool.description, "New");
    assert.equal(changed.tools[1], first.tools[1]);

    const reread = buildCatalog(config, [upstreamOf(plain, tools())], log);
    assert.notEqual(reread.tools[0], first.tools[0]);
    assert.deepEqual(reread.tools[0], first.tools[0]);
  });
});
