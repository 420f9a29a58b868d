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

function upstreamOf(yaml: string, list: Tool[], server = 0): Upstream {
  const config = parseConfig(yaml);
  // The fields the catalog reads of an upstream: its config and its catalog.
  return {
    name: config.servers[server]!.name,
    config: config.servers[server]!,
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

  it("a renamed tool keeps one entry while the collision lasts, its own definition renamed", () => {
    const yaml = "servers:\n  s: { command: node, prefix: false }\n" +
      "  t:\n    command: node\n    prefix: false\n" +
      "    tools: { overrides: { a: { description: Other } } }\n";
    const config = parseConfig(yaml);
    const first = tools();
    const second: Tool[] = [{
      name: "a",
      description: "Tool a of t",
      inputSchema: { type: "object", properties: { q: { type: "string" } } },
      _meta: { note: "kept" },
    }];
    const build = () =>
      buildCatalog(config, [upstreamOf(yaml, first, 0), upstreamOf(yaml, second, 1)], log);
    const one = build();
    const two = build();
    const renamed = one.tools.find((e) => e.server === "t")!;
    assert.notEqual(renamed.name, "a");
    assert.equal(two.tools.find((e) => e.server === "t"), renamed);
    assert.equal(one.toolsByName.get(renamed.name), renamed);
    assert.equal(renamed.upstreamName, "a");
    assert.deepEqual(renamed.tool, {
      name: renamed.name,
      description: "Other",
      inputSchema: second[0]!.inputSchema,
      _meta: { note: "kept" },
    });
    assert.deepEqual(one.renamed, [{
      server: "t",
      tool: "a",
      name: "a",
      as: renamed.name,
      kept: "s/a",
    }]);

    // The other server gone, the tool gets its own name back, its override kept.
    const alone = buildCatalog(config, [upstreamOf(yaml, second, 1)], log);
    assert.equal(alone.tools[0]!.name, "a");
    assert.equal(alone.tools[0]!.tool.description, "Other");
  });

  it("upstream names that are Object.prototype's keys are entries like any other", () => {
    const yaml = "servers:\n  s: { command: node, prefix: false }\n";
    const list: Tool[] = ["__proto__", "constructor", "__proto__"].map((name) => ({
      name,
      description: `the ${name}`,
      inputSchema: { type: "object" },
    }));
    const catalog = buildCatalog(parseConfig(yaml), [upstreamOf(yaml, list)], log);
    assert.deepEqual(catalog.tools.map((e) => e.name), ["__proto__", "constructor"]);
    assert.equal(catalog.toolsByName.get("__proto__")!.tool.description, "the __proto__");
    assert.equal(Object.getPrototypeOf(catalog.tools[0]!.tool), Object.prototype);
  });
});
