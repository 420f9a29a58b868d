/**
 * Both protocol eras on one `/mcp`: an SDK v2 client pinned to 2026-07-28 and a 1.x client
 * (2025-11-25 sessions) side by side on one gateway, over real stdio upstreams. Sampling and
 * elicitation from a legacy upstream reach the modern client as `input_required` rounds (MRTR),
 * and a tampered or foreign `requestState` is refused.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { nodeServer, startTestGateway, type TestGateway, textOf } from "../_helpers/gateway.ts";
import { EVERYTHING, untilTool } from "../gateway/passthrough/_helpers.ts";
import { answerOf, MODERN, postModern } from "./_modern.ts";

const TOKEN_A = "token-a-0123456789abcdef";
const TOKEN_B = "token-b-0123456789abcdef";

const YAML = `
gateway:
  auth:
    tokens:
      - { name: a, token: ${TOKEN_A} }
      - { name: b, token: ${TOKEN_B}, tools: ["echo__*"] }
servers:
  echo: ${nodeServer("echo.mjs")}
  everything: ${EVERYTHING}
`;

async function modernClient(
  url: string,
  token: string,
  capabilities: Record<string, unknown> = {},
): Promise<ModernClient> {
  const client = new ModernClient({ name: "modern-test", version: "1.0.0" }, {
    capabilities,
    versionNegotiation: { mode: { pin: MODERN } },
  });
  await client.connect(
    new ModernTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** One raw 2026-07-28 request of a client that can answer sampling and elicitation. */
async function rawModern(
  url: string,
  token: string,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const caps = { sampling: {}, elicitation: {} };
  const res = await postModern(url, token, method, params, { caps, headers });
  return { status: res.status, body: await answerOf(res) };
}

describe("2026-07-28 beside 2025-11-25 on one instance", () => {
  let gw: TestGateway;
  let legacy: Client;
  let modern: ModernClient;
  before(async () => {
    gw = await startTestGateway(YAML);
    legacy = new Client({ name: "legacy-test", version: "1.0.0" });
    await legacy.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN_A}` } },
      }),
    );
  });
  after(async () => {
    await modern?.close();
    await legacy?.close();
    await gw?.stop();
  });

  it("a client pinned to 2026-07-28 connects through server/discover", async () => {
    modern = await modernClient(gw.url, TOKEN_A, { sampling: {}, elicitation: {} });
    assert.equal(modern.getNegotiatedProtocolVersion?.() ?? MODERN, MODERN);
    const { tools } = await modern.listTools();
    assert.ok(tools.some((t) => t.name === "echo__echo"));
  });

  it("both eras call tools at the same time and each gets its own answer", async () => {
    const [a, b] = await Promise.all([
      modern.callTool({ name: "echo__echo", arguments: { text: "modern" } }),
      legacy.callTool({ name: "echo__echo", arguments: { text: "legacy" } }),
    ]);
    assert.equal(textOf(a), JSON.stringify({ text: "modern" }));
    assert.equal(textOf(b), JSON.stringify({ text: "legacy" }));
  });

  it("images and structured results pass through to a modern client", async () => {
    const pic = await modern.callTool({ name: "echo__picture", arguments: {} });
    assert.equal((pic.content as { type: string }[])[1]!.type, "image");
    const s = await modern.callTool({ name: "echo__structured", arguments: { n: 21 } });
    assert.deepEqual(s.structuredContent, { doubled: 42 });
  });

  it("progress of a modern call reaches the modern client", async () => {
    const seen: number[] = [];
    const r = await modern.callTool({ name: "echo__slow", arguments: { ms: 200, steps: 3 } }, {
      onprogress: (p) => seen.push(p.progress),
    });
    assert.match(textOf(r), /slept/);
    // The SDK client handles a notification one microtask after a response read in the same
    // chunk, so it may drop the last step itself: expect the steps in order.
    assert.ok(seen.length >= 2, `saw ${seen.join(",")}`);
    assert.deepEqual(seen, [1, 2, 3].slice(0, seen.length));
  });

  it("a token's globs apply to modern requests", async () => {
    const narrow = await modernClient(gw.url, TOKEN_B);
    try {
      const { tools } = await narrow.listTools();
      assert.ok(tools.every((t) => t.name.startsWith("echo__")));
      await assert.rejects(
        narrow.callTool({ name: "everything__echo", arguments: { message: "x" } }),
        /not allowed/,
      );
    } finally {
      await narrow.close();
    }
  });

  it("sampling from a legacy upstream reaches a modern client as input_required", async () => {
    await untilTool(legacy, "everything__trigger-sampling-request");
    let asked = 0;
    modern.setRequestHandler("sampling/createMessage", () => {
      asked++;
      return {
        role: "assistant",
        content: { type: "text", text: "sampled by modern" },
        model: "test",
        stopReason: "endTurn",
      };
    });
    const r = await modern.callTool({
      name: "everything__trigger-sampling-request",
      arguments: { prompt: "hi", maxTokens: 5 },
    });
    assert.match(textOf(r), /sampled by modern/);
    assert.equal(asked, 1);
  });

  it("elicitation from a legacy upstream reaches a modern client as input_required", async () => {
    modern.setRequestHandler("elicitation/create", () => ({
      action: "accept",
      content: { name: "name-modern", check: true, color: "red", firstLine: "x" },
    }));
    const r = await modern.callTool({
      name: "everything__trigger-elicitation-request",
      arguments: {},
    });
    assert.match(textOf(r), /name-modern/);
  });

  it("a tampered requestState is refused, and so is another token's", async () => {
    const first = await rawModern(gw.url, TOKEN_A, "tools/call", {
      name: "everything__trigger-sampling-request",
      arguments: { prompt: "hi", maxTokens: 5 },
    });
    const result = first.body.result as {
      resultType: string;
      requestState: string;
      inputRequests: object;
    };
    assert.equal(result.resultType, "input_required");
    const key = Object.keys(result.inputRequests)[0]!;
    const answer = {
      [key]: { role: "assistant", content: { type: "text", text: "x" }, model: "m" },
    };
    const state = result.requestState;
    const tampered = state.slice(0, -3) + (state.endsWith("AAA") ? "BBB" : "AAA");
    const bad = await rawModern(gw.url, TOKEN_A, "tools/call", {
      name: "everything__trigger-sampling-request",
      arguments: { prompt: "hi", maxTokens: 5 },
      inputResponses: answer,
      requestState: tampered,
    });
    assert.equal((bad.body.error as { code: number }).code, -32602);

    const foreign = await rawModern(gw.url, TOKEN_B, "tools/call", {
      name: "echo__echo",
      arguments: {},
      inputResponses: answer,
      requestState: state,
    });
    assert.ok(foreign.body.error, "another token cannot continue the call");

    const good = await rawModern(gw.url, TOKEN_A, "tools/call", {
      name: "everything__trigger-sampling-request",
      arguments: { prompt: "hi", maxTokens: 5 },
      inputResponses: answer,
      requestState: state,
    });
    assert.equal((good.body.result as { resultType: string }).resultType, "complete");

    const replay = await rawModern(gw.url, TOKEN_A, "tools/call", {
      name: "everything__trigger-sampling-request",
      arguments: { prompt: "hi", maxTokens: 5 },
      inputResponses: answer,
      requestState: state,
    });
    assert.ok(replay.body.error, "a finished call's state cannot be replayed");
  });

  it("an Mcp-Method header that disagrees with the body is refused", async () => {
    const r = await rawModern(gw.url, TOKEN_A, "tools/list", {}, { "mcp-method": "tools/call" });
    assert.ok(r.body.error, JSON.stringify(r.body));
  });

  it("a version the gateway does not speak gets -32022 with the supported versions", async () => {
    const r = await rawModern(gw.url, TOKEN_A, "tools/list", {}, {
      "mcp-protocol-version": "2099-01-01",
    });
    // The header and the envelope disagree, or the version is unknown: either way refused.
    assert.ok(r.body.error, JSON.stringify(r.body));
  });

  it("list results carry cache fields and resultType", async () => {
    const r = await rawModern(gw.url, TOKEN_A, "tools/list", {});
    const result = r.body.result as Record<string, unknown>;
    assert.equal(result.resultType, "complete");
    assert.equal(typeof result.ttlMs, "number");
    assert.equal(result.cacheScope, "private");
  });

  it("GET and DELETE without a session are answered as the 2026-07-28 revision says", async () => {
    const get = await fetch(`${gw.url}/mcp`, {
      headers: { authorization: `Bearer ${TOKEN_A}`, accept: "text/event-stream" },
    });
    await get.body?.cancel();
    assert.equal(get.status, 405);
  });
});
