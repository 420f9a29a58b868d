/**
 * A 2026-07-28 upstream that leaves `resultType` out of its `tools/call` results (and adds a
 * field of its own): its calls succeed through the gateway for a 2025 session and a 2026-07-28
 * client alike, the result read as `complete`, the unknown field passed through, and the lapse
 * logged once for the server however many calls show it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { setLogLevel, setLogSink } from "../../src/shared/log.ts";
import { nodeServer, startTestGateway, type TestGateway, textOf } from "../_helpers/gateway.ts";
import { answerOf, postModern } from "../protocol/_modern.ts";

const TOKEN = "token-lenient-0123456789";

describe("a 2026-07-28 upstream that omits resultType", () => {
  let gw: TestGateway;
  let client: Client;
  const lines: string[] = [];
  let restoreSink: () => void;
  before(async () => {
    restoreSink = setLogSink((line) => lines.push(line));
    setLogLevel("warn");
    gw = await startTestGateway(`
gateway:
  auth: { tokens: [{ name: a, token: ${TOKEN} }] }
servers:
  loose: ${nodeServer("modern.mjs", "protocol: modern, env: { OMIT_RESULT_TYPE: '1' }")}
`);
    client = new Client({ name: "legacy", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
  });
  after(async () => {
    await client?.close();
    await gw?.stop();
    setLogLevel("silent");
    restoreSink?.();
  });

  it("answers a 2025 session's calls, with the upstream's own fields", async () => {
    for (let i = 0; i < 3; i++) {
      const result = await client.callTool({ name: "loose__echo", arguments: { text: `x${i}` } });
      assert.equal(result.isError, undefined, textOf(result));
      assert.equal(textOf(result), JSON.stringify({ text: `x${i}` }));
      assert.deepEqual((result as Record<string, unknown>).vendor, { kept: true });
    }
  });

  it("answers a 2026-07-28 client's call as complete", async () => {
    const res = await postModern(gw.url, TOKEN, "tools/call", {
      name: "loose__echo",
      arguments: { text: "modern" },
    });
    const answer = await answerOf(res);
    const result = answer.result as Record<string, unknown>;
    assert.ok(result, JSON.stringify(answer));
    assert.equal(result.resultType, "complete");
    assert.equal(textOf(result), JSON.stringify({ text: "modern" }));
    assert.deepEqual(result.vendor, { kept: true });
  });

  it("logs the lapse once for the server", () => {
    const said = lines.filter((l) => l.includes("without resultType"));
    assert.equal(said.length, 1, said.join("\n"));
    assert.match(said[0]!, /loose/);
  });
});
