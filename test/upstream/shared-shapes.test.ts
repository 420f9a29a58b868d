/**
 * One object per repeated property schema within a server's list: every tool's definition
 * reads exactly as it was listed (non-ASCII text, `__proto__` and other prototype keys as
 * property names, key order), and only equal shapes are shared.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { shareRepeatedShapes } from "../../src/upstream/shared-shapes.ts";
import type { Tool } from "../../src/shared/protocol.ts";

/** A list as it arrives: parsed from the server's JSON text. */
function listed(): Tool[] {
  const tool = (name: string, idText: string) => ({
    name,
    description: "Réglage — 設定 🚀",
    inputSchema: {
      type: "object",
      properties: JSON.parse(
        `{"__proto__":{"type":"string","description":"not a prototype"},` +
          `"id":{"type":"string","description":${JSON.stringify(idText)}},` +
          `"state":{"enum":["open","closed"],"type":"string"},` +
          `"constructor":{"type":"object","properties":{"__proto__":{"type":"number"}}}}`,
      ),
      required: ["id", "__proto__"],
    },
    outputSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
  });
  return [tool("a", "The ID"), tool("b", "The ID"), tool("c", "Une clé ✓")] as Tool[];
}

describe("shared property schemas", () => {
  it("every definition serialises exactly as listed", () => {
    const before = listed().map((t) => JSON.stringify(t));
    const after = shareRepeatedShapes(listed()).map((t) => JSON.stringify(t));
    assert.deepEqual(after, before);
  });

  it("equal property schemas and required lists are one object; others stay their own", () => {
    const [a, b, c] = shareRepeatedShapes(listed());
    const props = (t: Tool) => t.inputSchema.properties as Record<string, unknown>;
    assert.equal(props(b!).state, props(a!).state);
    assert.equal(props(c!).state, props(a!).state);
    assert.equal(props(b!).id, props(a!).id);
    assert.notEqual(props(c!).id, props(a!).id);
    assert.deepEqual(props(c!).id, { type: "string", description: "Une clé ✓" });
    assert.equal(b!.inputSchema.required, a!.inputSchema.required);
    assert.equal(c!.outputSchema!.properties!.ok, a!.outputSchema!.properties!.ok);
  });

  it("a property named __proto__ stays an own property, the prototype untouched", () => {
    for (const t of shareRepeatedShapes(listed())) {
      const props = t.inputSchema.properties as Record<string, unknown>;
      assert.equal(Object.getPrototypeOf(props), Object.prototype);
      assert.ok(Object.hasOwn(props, "__proto__"));
      assert.deepEqual(Object.getOwnPropertyDescriptor(props, "__proto__")!.value, {
        type: "string",
        description: "not a prototype",
      });
      assert.deepEqual(Object.keys(props), ["__proto__", "id", "state", "constructor"]);
    }
    const [a, b] = shareRepeatedShapes(listed());
    const own = (t: Tool) =>
      Object.getOwnPropertyDescriptor(t.inputSchema.properties, "__proto__")!.value;
    assert.equal(own(b!), own(a!));
  });

  it("schemas that are not objects, or lack properties, pass unchanged", () => {
    const odd = [
      { name: "x", inputSchema: { type: "object" } },
      { name: "y", inputSchema: { type: "object", properties: null, required: "id" } },
      { name: "z", inputSchema: { type: "object", properties: [1, 2] } },
    ] as unknown as Tool[];
    const before = JSON.stringify(odd);
    assert.equal(shareRepeatedShapes(odd), odd);
    assert.equal(JSON.stringify(odd), before);
  });
});
