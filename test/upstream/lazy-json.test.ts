import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { LAZY_LINE_CHARS, parseLine } from "../../src/shared/lazy-json.ts";

const LONG = 'x"y\\z\n\u0007é€'.repeat(LAZY_LINE_CHARS / 8);
const line = (result: unknown, id: unknown = "gw-1") =>
  JSON.stringify({ result, jsonrpc: "2.0", id });

describe("a large line parsed lazily", () => {
  it("leaves its long strings in the line until they are read", () => {
    const msg = parseLine(line({ content: [{ type: "text", text: LONG }] })) as {
      result: { content: Record<string, unknown>[] };
    };
    const block = msg.result.content[0]!;
    assert.equal(block.type, "text");
    assert.equal(typeof Object.getOwnPropertyDescriptor(block, "text")?.get, "function");
    assert.ok(block.text === LONG);
    // Read once, it is a plain value from then on.
    assert.equal(Object.getOwnPropertyDescriptor(block, "text")?.value, LONG);
  });

  it("gives what JSON.parse gives, long strings in arrays, nested, beside keys", () => {
    const cases = [
      { content: [{ type: "text", text: LONG }, { type: "text", text: "short" }], isError: true },
      { structuredContent: { list: [LONG, 1, null, [LONG]], [`k${"k".repeat(70_000)}`]: LONG } },
      [LONG, { a: LONG }],
    ];
    for (const value of cases) {
      const text = line(value);
      const parsed = parseLine(text);
      assert.ok(JSON.stringify(parsed) === text);
      assert.deepEqual(parsed, JSON.parse(text));
    }
  });

  it("is read whole by the SDK client's message schema (a caller without the lean leg)", () => {
    const text = line({ content: [{ type: "text", text: LONG }] });
    const parsed = JSONRPCMessageSchema.parse(parseLine(text));
    assert.deepEqual(parsed, JSONRPCMessageSchema.parse(JSON.parse(text)));
  });

  it("can be written to like a parsed value", () => {
    const msg = parseLine(line({ content: [{ type: "text", text: LONG }] })) as {
      result: { content: { text: string }[] };
    };
    msg.result.content[0]!.text = "upper";
    assert.equal(msg.result.content[0]!.text, "upper");
    assert.equal(JSON.stringify(msg.result), '{"content":[{"type":"text","text":"upper"}]}');
  });

  it("refuses what JSON.parse refuses", () => {
    const good = line({ content: [{ type: "text", text: LONG }] });
    const broken = [
      good.replace("\\n", "\n"), // a raw control character inside a long string
      good.replace("\\n", "\\q"), // an unknown escape
      good.replace("\\u0007", "\\u00g7"), // a short \u escape
      good.slice(0, -1), // the object never closed
      good.replace('"type"', "type"), // a bare key
    ];
    for (const text of broken) assert.throws(() => parseLine(text), SyntaxError);
  });

  it("takes no string an upstream wrote for one of its own", () => {
    const msg = parseLine(line({ a: "\u0000lazy-0", text: LONG })) as { result: { a: string } };
    assert.equal(msg.result.a, "\u0000lazy-0");
  });

  it("parses a short line whole", () => {
    const msg = parseLine(line({ content: [{ type: "text", text: "x".repeat(70_000) }] })) as {
      result: { content: object[] };
    };
    assert.equal(Object.getOwnPropertyDescriptor(msg.result.content[0], "text")?.get, undefined);
  });
});

describe("a large line of many short strings", () => {
  it("is parsed whole, its scan bounded", () => {
    const many = Array.from({ length: 150_000 }, (_, i) => `s${i}`);
    const text = line({ many, content: [{ type: "text", text: LONG }] });
    const msg = parseLine(text) as { result: { content: object[] } };
    assert.equal(Object.getOwnPropertyDescriptor(msg.result.content[0], "text")?.get, undefined);
    assert.ok(JSON.stringify(msg) === text);
  });
});
