/**
 * Names that come from outside — an upstream's parameter names, a client's `_meta` keys, a
 * macro's parameter and type names, a client config's server names — never meet an object's
 * prototype: `__proto__` stays a key, and `constructor` or `toString` is not found on
 * `Object.prototype` when absent.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { importClientConfig, importedYaml } from "../../src/config/client/mod.ts";
import { inputGuidance } from "../../src/discovery/mod.ts";
import { enterCall } from "../../src/gateway/call-context.ts";
import { LOCAL_CALLER } from "../../src/gateway/mod.ts";
import { checkArgs, resolveType } from "../../src/tools/macros/mod.ts";

describe("names from outside as object keys", () => {
  it("an upstream's params named __proto__ and constructor keep their guidance", () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string","description":"first"},' +
        '"constructor":{"type":"string","description":"second"}}}',
    ) as object;
    const guidance = inputGuidance(schema)!;
    assert.deepEqual(Object.keys(guidance), ["__proto__", "constructor"]);
    assert.equal(Object.getOwnPropertyDescriptor(guidance, "__proto__")?.value, "first");
    assert.equal(JSON.stringify(guidance), '{"__proto__":"first","constructor":"second"}');
  });

  it("a client's _meta key __proto__ is carried as a key, not made the prototype", () => {
    const meta = JSON.parse('{"__proto__":{"traceparent":"forged"},"x":1}') as Record<
      string,
      unknown
    >;
    const ctx = enterCall(LOCAL_CALLER, { meta });
    assert.equal(ctx.meta?.traceparent, undefined, "nothing inherited from the client's object");
    assert.equal(JSON.stringify(ctx.meta), '{"__proto__":{"traceparent":"forged"},"x":1}');
  });

  it("a macro param named constructor is absent until given; toString is no type", () => {
    const params = [{ name: "constructor", type: "string" as const, required: false }];
    assert.deepEqual(checkArgs("m", params, {}), {});
    assert.deepEqual(checkArgs("m", params, { constructor: "x" }), { constructor: "x" });
    assert.equal(resolveType("toString"), undefined);
    assert.equal(resolveType("array:constructor"), undefined);
  });

  it("a client config's server named constructor imports", () => {
    const imported = importClientConfig(
      { mcpServers: { constructor: { command: "node" }, valueOf: { command: "node" } } },
      "client.json",
    );
    assert.match(importedYaml(imported, "client.json"), /constructor:\n\s+command: node/);
  });
});
