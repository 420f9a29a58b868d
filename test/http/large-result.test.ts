/**
 * A large result (past the size where the upstream's line is parsed lazily) through a real stdio
 * server, on both eras' fast paths: it arrives whole, with the client's id, as the upstream wrote
 * it — quotes, backslashes, control escapes and non-ASCII text included — and a filter that
 * reads the text still sees (and redacts) it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { MCP_HEADERS, openSession } from "../_helpers/raw-session.ts";
import { answerOf, postModern } from "../protocol/_modern.ts";
import { MODERN_STAMP } from "../../src/session/modern/fast-call.ts";

/** Past the lazy-parse threshold; every JSON escape and a two-byte character in each repeat. */
const BYTES = 3 * 1024 * 1024 + 7;
const PATTERN = 'a"b\\c\n\t\u0001é€/<>{}[],:';
const TEXT = PATTERN.repeat(Math.ceil(BYTES / PATTERN.length)).slice(0, BYTES);
const KEY = "AKIAIOSFODNN7EXAMPLE";

function call2025(url: string, sid: string, id: number | string, name: string, args: object) {
  return fetch(`${url}/mcp`, {
    method: "POST",
    headers: { ...MCP_HEADERS, "mcp-session-id": sid },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args },
    }),
  });
}

describe("a large result", () => {
  let gw: TestGateway;
  let sid: string;
  before(async () => {
    gw = await startTestGateway(
      `servers:\n  big: ${nodeServer("big-result.mjs")}\n` +
        `  screened: ${nodeServer("big-result.mjs", "filters: [secrets]")}\n`,
    );
    sid = await openSession(gw.url);
  });
  after(() => gw?.stop());

  it("reaches a 2025 client byte for byte as the upstream wrote it, with the client's id", async () => {
    const res = await call2025(gw.url, sid, "client-7", "big__big", {
      bytes: BYTES,
      pattern: PATTERN,
    });
    // Written from the upstream's bytes as they came (no text made of the answer first).
    assert.equal(res.headers.get("content-length"), null);
    const body = await res.text();
    const result = JSON.stringify({ content: [{ type: "text", text: TEXT }] });
    assert.ok(
      body === `{"result":${result},"jsonrpc":"2.0","id":"client-7"}`,
      "not byte-identical",
    );
  });

  it("reaches a 2026-07-28 client byte for byte, stamped, with the client's id", async () => {
    const res = await postModern(gw.url, "", "tools/call", {
      name: "big__big",
      arguments: { bytes: BYTES, pattern: PATTERN },
    }, { id: 42 });
    assert.equal(res.headers.get("content-length"), null);
    const body = await res.clone().text();
    const result = JSON.stringify({ content: [{ type: "text", text: TEXT }] });
    assert.ok(
      body ===
        `{"result":${result.slice(0, -1)},${MODERN_STAMP.text}},"jsonrpc":"2.0","id":42}`,
      "not byte-identical",
    );
    const answer = await answerOf(res) as {
      id: unknown;
      result: { content: { text: string }[]; resultType: string };
    };
    assert.equal(answer.id, 42);
    assert.equal(answer.result.resultType, "complete");
    assert.ok(answer.result.content[0]!.text === TEXT, "text changed on the way");
  });

  it("is still read by a filter that screens its text", async () => {
    const res = await call2025(gw.url, sid, 9, "screened__big", {
      bytes: BYTES,
      pattern: `${PATTERN}${KEY} `,
    });
    const text = (await res.json()).result.content[0].text as string;
    assert.ok(!text.includes(KEY), "the key passed the filter");
    assert.ok(text.includes("[redacted:aws-key]"));
  });
});
