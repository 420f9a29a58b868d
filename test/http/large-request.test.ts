/**
 * A large request (past the size where a body is parsed lazily) through a real stdio server, on
 * both eras' fast paths: the argument's long string goes on to the upstream as the literal the
 * client wrote — quotes, backslashes, control escapes and non-ASCII text included — and comes
 * back the same string; a member named `toJSON` is an argument like any other.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { MCP_HEADERS, openSession } from "../_helpers/raw-session.ts";
import { answerOf, postModern } from "../protocol/_modern.ts";

const BYTES = 3 * 1024 * 1024 + 7;
const PATTERN = 'a"b\\c\n\t\u0001é€/<>{}[],:';
const TEXT = PATTERN.repeat(Math.ceil(BYTES / PATTERN.length)).slice(0, BYTES);

describe("a large request", () => {
  let gw: TestGateway;
  let sid: string;
  before(async () => {
    gw = await startTestGateway(`servers:\n  bench: ${nodeServer("bench-echo.mjs")}\n`);
    sid = await openSession(gw.url);
  });
  after(() => gw?.stop());

  const textOf = (answer: unknown) =>
    (answer as { result: { content: { text: string }[] } }).result.content[0]!.text;

  it("reaches a 2025 session's upstream as the client wrote it, and comes back", async () => {
    for (const args of [{ text: TEXT }, { toJSON: "mine", text: TEXT }]) {
      const res = await fetch(`${gw.url}/mcp`, {
        method: "POST",
        headers: { ...MCP_HEADERS, "mcp-session-id": sid },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: "client-1",
          method: "tools/call",
          params: { name: "bench__echo", arguments: args },
        }),
      });
      assert.equal(res.status, 200);
      const answer = await res.json();
      assert.equal(answer.id, "client-1");
      assert.ok(textOf(answer) === TEXT, "the text changed on the way");
    }
  });

  it("reaches the upstream from a 2026-07-28 request, and comes back", async () => {
    const res = await postModern(gw.url, "", "tools/call", {
      name: "bench__echo",
      arguments: { text: TEXT },
    }, { id: 5 });
    const answer = await answerOf(res) as { id: unknown };
    assert.equal(answer.id, 5);
    assert.ok(textOf(answer) === TEXT, "the text changed on the way");
  });
});
