import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { jsonParts, LAZY_LINE_CHARS, parseLine, readJson } from "../../src/shared/lazy-json.ts";

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

describe("a lazily parsed value written on in parts", () => {
  const request = (args: unknown) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "echo", arguments: args },
    });
  /** The message a gateway sends on: a new envelope around the client's arguments. */
  const onward = (args: unknown) => ({
    jsonrpc: "2.0",
    id: "gw-1",
    method: "tools/call",
    params: { name: "bench__echo", arguments: args },
  });
  const unread = (holder: object, key: string) =>
    typeof Object.getOwnPropertyDescriptor(holder, key)?.get === "function";

  it("leaves each unread long string as the literal it came in, unread", () => {
    const body = request({ text: LONG, n: 1, list: [LONG, "short"] });
    const args =
      (parseLine(body) as { params: { arguments: { list: string[] } } }).params.arguments;
    const parts = jsonParts(onward(args));
    assert.equal(parts.length, 5, "head, literal, between, literal, tail");
    assert.ok(parts[1] === JSON.stringify(LONG) && parts[3] === JSON.stringify(LONG));
    assert.deepEqual(JSON.parse(parts.join("")), onward(JSON.parse(body).params.arguments));
    assert.ok(unread(args, "text") && unread(args.list, "0"), "a long string was parsed");
  });

  it("keeps the literal's own escapes, which mean the same string", () => {
    const body = request({ text: LONG }).replace('"x\\"y', '"\\u0078\\"y');
    const args = (parseLine(body) as { params: { arguments: object } }).params.arguments;
    const parts = jsonParts(onward(args));
    assert.ok(parts[1]!.startsWith('"\\u0078'), "the literal as it came");
    assert.deepEqual(JSON.parse(parts.join("")), onward(JSON.parse(body).params.arguments));
  });

  it("writes a string that was read, or written to, as JSON.stringify does", () => {
    const read = (parseLine(request({ text: LONG })) as { params: { arguments: { text: string } } })
      .params.arguments;
    assert.ok(read.text === LONG);
    assert.deepEqual(jsonParts(onward(read)), [JSON.stringify(onward({ text: LONG }))]);
    const written = (parseLine(request({ text: LONG })) as {
      params: { arguments: { text: string } };
    }).params.arguments;
    written.text = "replaced";
    assert.deepEqual(jsonParts(onward(written)), [JSON.stringify(onward({ text: "replaced" }))]);
  });

  it("is one part for any other value, and JSON.stringify of a lazy value is unchanged", () => {
    assert.deepEqual(jsonParts({ a: [1, "b"] }), ['{"a":[1,"b"]}']);
    // A value that does not serialise throws as JSON.stringify does, a long string marked or not.
    const args = (parseLine(request({ text: LONG })) as { params: { arguments: object } }).params
      .arguments;
    assert.throws(() => jsonParts({ args, n: 1n }), TypeError);
    assert.deepEqual(jsonParts({ a: 1 }), ['{"a":1}']);
    const body = request({ text: LONG });
    assert.ok(JSON.stringify(parseLine(body)) === body);
  });

  it("never takes over a member named toJSON", () => {
    const body = request({ toJSON: "mine", text: LONG });
    const args = (parseLine(body) as { params: { arguments: Record<string, unknown> } }).params
      .arguments;
    assert.equal(args.toJSON, "mine");
    assert.deepEqual(Object.keys(args), ["toJSON", "text"]);
    assert.deepEqual(
      JSON.parse(jsonParts(onward(args)).join("")),
      JSON.parse(JSON.stringify(
        onward(JSON.parse(body).params.arguments),
      )),
    );
  });

  it("is what a request's body becomes when it is declared that large", async () => {
    const post = (body: string) =>
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        body,
        headers: { "content-length": String(new TextEncoder().encode(body).length) },
      });
    const large = request({ text: LONG });
    const args = ((await readJson(post(large))) as { params: { arguments: object } }).params
      .arguments;
    assert.ok(unread(args, "text"));
    const small = request({ text: "short" });
    assert.deepEqual(await readJson(post(small)), JSON.parse(small));
    await assert.rejects(readJson(post(`${large}}`)), SyntaxError);
  });
});
