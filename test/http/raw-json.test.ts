import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { rawJsonOf, rawResultOf, withRawJson } from "../../src/shared/raw-json.ts";
import { errorAnswer, resultAnswer } from "../../src/http/answers.ts";

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
