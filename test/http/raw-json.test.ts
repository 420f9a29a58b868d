import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  rawBytesOf,
  rawJsonOf,
  rawResultOf,
  rawResultWithBytes,
  withRawJson,
} from "../../src/shared/raw-json.ts";
import { errorAnswer, resultAnswer, resultBody } from "../../src/session/answers.ts";
import { MODERN_STAMP } from "../../src/session/modern/fast-call.ts";

const raw = (line: string) => rawResultOf(line, JSON.parse(line));

describe("raw result text", () => {
  it("is found in a line laid out as the TypeScript SDK writes it", () => {
    const line = JSON.stringify({
      result: { content: [{ type: "text", text: '"}' }] },
      jsonrpc: "2.0",
      id: "gw-7",
    });
    assert.equal(raw(line), '{"content":[{"type":"text","text":"\\"}"}]}');
  });

  it("is found in compact JSON with the result last", () => {
    assert.equal(raw('{"jsonrpc":"2.0","id":3,"result":{"content":[]}}'), '{"content":[]}');
  });

  it("is not guessed for any other layout or extra members", () => {
    assert.equal(raw('{ "result": {"content":[]}, "jsonrpc": "2.0", "id": 1 }'), undefined);
    assert.equal(raw('{"result":{},"jsonrpc":"2.0","id":1,"extra":true}'), undefined);
    assert.equal(raw('{"error":{"code":1,"message":"x"},"jsonrpc":"2.0","id":1}'), undefined);
  });

  it("is spliced into an answer with the client's id, in the SDK's layout", () => {
    const result = withRawJson({ content: [] }, '{"content": [] }');
    assert.equal(rawJsonOf(result), '{"content": [] }');
    assert.equal(resultAnswer("a", result), '{"result":{"content": [] },"jsonrpc":"2.0","id":"a"}');
    assert.equal(
      resultAnswer(2, { content: [] }),
      '{"result":{"content":[]},"jsonrpc":"2.0","id":2}',
    );
    assert.equal(
      errorAnswer(2, { code: -1, message: "m" }),
      '{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"m"}}',
    );
  });
});

describe("a 2026-07-28 answer from raw text", () => {
  const cases: Record<string, unknown>[] = [
    { content: [{ type: "text", text: "hi }" }] },
    { content: [], isError: true },
    { content: [{ type: "text", text: "x" }], structuredContent: { a: [1, { b: "}" }] } },
  ];
  for (const result of cases) {
    it(`appends the stamped members to the text byte for byte: ${JSON.stringify(result)}`, () => {
      const text = JSON.stringify(result);
      const spliced = resultAnswer("r", withRawJson(structuredClone(result), text), MODERN_STAMP);
      const serialised = JSON.stringify({
        result: MODERN_STAMP.apply(result),
        jsonrpc: "2.0",
        id: "r",
      });
      assert.equal(spliced, serialised);
    });
  }

  it("serialises what already carries a stamped member or lacks content", () => {
    const own = { content: [], _meta: { "example.com/x": 1 } };
    const answer = resultAnswer(1, withRawJson(own, JSON.stringify(own)), MODERN_STAMP);
    const result = JSON.parse(answer).result;
    assert.equal(result.resultType, "complete");
    assert.equal(result._meta["example.com/x"], 1);
    assert.ok(result._meta["io.modelcontextprotocol/serverInfo"]);
    const bare = withRawJson({}, "{}");
    assert.deepEqual(JSON.parse(resultAnswer(1, bare, MODERN_STAMP)).result.content, []);
  });

  it("comes with its bytes cut from the line's bytes, where that cut is sure", () => {
    const enc = new TextEncoder();
    const line = JSON.stringify({
      result: { content: [{ type: "text", text: 'é€𝄞\ufeff"}' }] },
      jsonrpc: "2.0",
      id: "gw-1",
    });
    const got = rawResultWithBytes(line, JSON.parse(line), enc.encode(line))!;
    assert.equal(got.text, raw(line));
    assert.deepEqual(got.bytes, enc.encode(got.text));
    const compact = '{"jsonrpc":"2.0","id":2,"result":{"t":"é"}}';
    assert.deepEqual(
      rawResultWithBytes(compact, JSON.parse(compact), enc.encode(compact))!.bytes,
      enc.encode('{"t":"é"}'),
    );
    // Invalid UTF-8 decoded as U+FFFD: the bytes are not the text's, so none are given.
    const mended = '{"result":{"t":"\ufffd"},"jsonrpc":"2.0","id":1}';
    const bad = Uint8Array.of(
      ...enc.encode('{"result":{"t":"'),
      0xff,
      ...enc.encode('"},"jsonrpc":"2.0","id":1}'),
    );
    const cut = rawResultWithBytes(mended, JSON.parse(mended), bad)!;
    assert.equal(cut.text, '{"t":"\ufffd"}');
    assert.equal(cut.bytes, undefined);
    // A non-ASCII id: the offsets would not carry over.
    const wide = '{"result":{},"jsonrpc":"2.0","id":"é"}';
    assert.equal(rawResultWithBytes(wide, JSON.parse(wide), enc.encode(wide))!.bytes, undefined);
  });

  it("is written from its bytes as the same answer the text would make", async () => {
    const text = JSON.stringify({ content: [{ type: "text", text: "é€".repeat(300_000) }] });
    const bytes = new TextEncoder().encode(text);
    const result = withRawJson(JSON.parse(text), text, bytes);
    assert.equal(rawBytesOf(result), bytes);
    const body = resultBody("c-1", result);
    assert.ok(body instanceof ReadableStream);
    const sent = await new Response(body).text();
    assert.ok(sent === resultAnswer("c-1", result), "not the text answer");
    // Without bytes, the text answer itself.
    assert.equal(resultBody(3, withRawJson({}, "{}")), '{"result":{},"jsonrpc":"2.0","id":3}');
  });
});
