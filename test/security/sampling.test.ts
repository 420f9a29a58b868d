/**
 * Sampling from a shared upstream goes to the session whose call is in flight there, and to no
 * one when calls of two sessions are: the request is refused, never sent to "the most recent"
 * session. Real clients with two tokens over HTTP, one shared stdio server.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  nodeServer,
  startTestGateway,
  type TestGateway,
  textOf,
  waitFor,
} from "../_helpers/gateway.ts";
import { bearer } from "./_http.ts";

const FULL = "sampling-full-token-0123456789abcdef";
const NARROW = "sampling-narrow-token-0123456789abcdef";

const YAML = `
gateway:
  auth:
    tokens:
      - { name: full, token: "${FULL}" }
      - { name: narrow, token: "${NARROW}", tools: ["shared__sample", "shared__wait"] }
servers:
  shared: ${nodeServer("roots.mjs")}
  isolated: ${nodeServer("roots.mjs", "isolation: session")}
`;

/** A client over HTTP with `token` that answers sampling as `who`, counting requests. */
async function sampler(base: string, token: string, who: string) {
  const client = new Client({ name: `sampler-${who}`, version: "1.0.0" }, {
    capabilities: { sampling: {} },
  });
  const asked = { n: 0 };
  client.setRequestHandler(CreateMessageRequestSchema, () => {
    asked.n++;
    return { role: "assistant", content: { type: "text", text: `by ${who}` }, model: who };
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: bearer(token) },
    }),
  );
  return { client, asked };
}

describe("sampling from a shared upstream with several sessions", () => {
  let gw: TestGateway;
  let a: Awaited<ReturnType<typeof sampler>>;
  let b: Awaited<ReturnType<typeof sampler>>;
  before(async () => {
    gw = await startTestGateway(YAML);
    a = await sampler(gw.url, FULL, "a");
    b = await sampler(gw.url, NARROW, "b");
  });
  after(async () => {
    await a?.client.close();
    await b?.client.close();
    await gw?.stop();
  });

  /** Runs `body` while a `wait` call of `who` is in flight on the shared server. */
  async function whileWaiting(who: Client, body: () => Promise<void>): Promise<void> {
    const stop = new AbortController();
    const waiting = who.callTool({ name: "shared__wait", arguments: { ms: 30_000 } }, undefined, {
      signal: stop.signal,
    });
    try {
      await waitFor(
        () => gw.running.gateway.passthrough.calls.callsOn("shared").length > 0,
        5000,
        "the wait call to be in flight",
      );
      await body();
    } finally {
      stop.abort();
      await waiting.catch(() => {});
    }
  }

  it("refuses sampling while calls of two sessions are in flight on the server", async () => {
    await whileWaiting(a.client, async () => {
      const r = await b.client.callTool({ name: "shared__sample", arguments: {} });
      assert.match(
        textOf(r),
        /^error -32601: .*sampling\/createMessage.*calls of 2 sessions are in flight.*isolation: session/,
      );
    });
    assert.equal(a.asked.n + b.asked.n, 0);
  });

  it("sends sampling to the one session with calls in flight", async () => {
    await whileWaiting(b.client, async () => {
      const r = await b.client.callTool({ name: "shared__sample", arguments: {} });
      assert.match(textOf(r), /"text":"by b"/);
    });
    assert.deepEqual([a.asked.n, b.asked.n], [0, 1]);
    const r = await a.client.callTool({ name: "shared__sample", arguments: {} });
    assert.match(textOf(r), /"text":"by a"/);
    assert.deepEqual([a.asked.n, b.asked.n], [1, 1]);
  });

  it("sends sampling of a session-isolated server to its own session, whatever else runs", async () => {
    await whileWaiting(b.client, async () => {
      const r = await a.client.callTool({ name: "isolated__sample", arguments: {} });
      assert.match(textOf(r), /"text":"by a"/);
    });
    assert.deepEqual([a.asked.n, b.asked.n], [2, 1]);
    await waitFor(() => gw.running.gateway.pool.isolated.count("isolated") === 1, 1000);
  });
});
