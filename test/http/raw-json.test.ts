import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { rawJsonOf, rawResultOf, withRawJson } from "../../src/shared/raw-json.ts";
import { errorAnswer, resultAnswer } from "../../src/session/answers.ts";
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
});
