/**
 * The per-token call gate (`gateway.auth.rateLimit`): the rate counts tool calls — each batch
 * item and each call an `execute` script makes — not requests, one token's calls never spend
 * another's budget, and the concurrency cap refuses a call beyond the slots in flight.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { type Entry, execute } from "../tools/execute/_setup.ts";
import {
  authedHttpClient,
  batchOf,
  bearer,
  MCP_HEADERS,
  messagesOf,
  openSession,
} from "./_http.ts";

const token = (name: string) => `${name}-call-limit-token-0123456789`;
const TOKENS = ["batch", "script", "other", "busy", "runner", "free"];

/** A gateway where each of TOKENS may call under `gateway.auth.rateLimit: <rateLimit>`. */
const limitedGateway = (rateLimit: string) =>
  startTestGateway(`
gateway:
  auth:
    tokens: [${TOKENS.map((n) => `{ name: ${n}, token: "${token(n)}" }`).join(", ")}]
    rateLimit: ${rateLimit}
servers:
  echo: ${nodeServer("echo.mjs")}
scripting: { execute: true }
`);

/** The answers of one POST on a fresh session of `who` carrying `n` echo calls as a batch. */
async function batchAnswers(url: string, who: string, n: number) {
  const sid = await openSession(url, bearer(token(who)));
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...bearer(token(who)), "mcp-session-id": sid },
    body: batchOf(n),
  });
  assert.equal(res.status, 200);
  return messagesOf(await res.text()).filter((m) => m.id !== undefined);
}

describe("call rate limits count tool calls, not requests", () => {
  let gw: TestGateway;
  // 5 calls at once, then one a minute: nothing refills during the test.
  before(async () => (gw = await limitedGateway("{ perMinute: 1, burst: 5 }")));
  after(async () => await gw?.stop());

  it("a batch of 8 calls in one request gets 5 answers and 3 rate-limit errors", async () => {
    const answers = await batchAnswers(gw.url, "batch", 8);
    assert.equal(answers.length, 8);
    const refused = answers.filter((m) => m.error);
    assert.equal(answers.filter((m) => m.result).length, 5);
    assert.equal(refused.length, 3);
    for (const m of refused) {
      assert.equal(m.error.code, -32004);
      assert.match(
        m.error.message,
        /call rate limit \(gateway\.auth\.rateLimit: 1\/min, burst 5\)/,
      );
      assert.match(m.error.message, /retry after \d+s/);
      assert.ok(m.error.data.retryAfter >= 1);
    }
  });

  it("calls an execute script makes count too", async () => {
    const client = await authedHttpClient(gw.url, token("script"));
    try {
      // execute itself is call 1; four of the script's eight calls fit in the burst.
      const r = await execute(
        client,
        `local ok, refusal = 0, nil
         for i = 1, 8 do
           local r = tools.call("echo__echo", { text = "x" })
           if r.ok then ok = ok + 1 else refusal = r.error end
         end
         return { ok = ok, refusal = refusal }`,
      );
      assert.equal(r.isError, false, r.text);
      const result = r.structured.result as {
        ok: number;
        refusal: { code: string; message: string };
      };
      assert.equal(result.ok, 4);
      assert.equal(result.refusal.code, "rate_limited");
      assert.match(result.refusal.message, /call rate limit \(gateway\.auth\.rateLimit/);
      const failed = r.structured.calls.filter((c: Entry) => !c.ok);
      assert.equal(failed.length, 4);
      for (const c of failed) assert.equal(c.error, "rate_limited");
    } finally {
      await client.close();
    }
  });

  it("one token's calls do not spend another token's budget", async () => {
    // Runs after "batch" spent its burst: "other" still has all five calls.
    const answers = await batchAnswers(gw.url, "other", 5);
    assert.equal(answers.filter((m) => m.result).length, 5);
  });
});

describe("per-token concurrency cap", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await limitedGateway("{ perMinute: 6000, burst: 1000, concurrency: 2 }");
  });
  after(async () => await gw?.stop());

  const slow = (client: Client, ms: number) =>
    client.callTool({ name: "echo__slow", arguments: { ms } }).then(
      () => "ok",
      (err: Error) => err.message,
    );

  it("refuses a third call in flight naming the limit; the slots come back", async () => {
    const client = await authedHttpClient(gw.url, token("busy"));
    const free = await authedHttpClient(gw.url, token("free"));
    try {
      const first = [slow(client, 1500), slow(client, 1500)];
      await new Promise((r) => setTimeout(r, 300));
      const third = await slow(client, 10);
      assert.match(third, /2 tool calls in flight.*gateway\.auth\.rateLimit\.concurrency = 2/);
      assert.match(third, /retry after 1s/);
      // Another token is not held up by this one's calls.
      assert.equal(await slow(free, 10), "ok");
      assert.deepEqual(await Promise.all(first), ["ok", "ok"]);
      assert.equal(await slow(client, 10), "ok");
    } finally {
      await client.close();
      await free.close();
    }
  });

  it("a script's parallel calls hold slots: two run, the rest are refused", async () => {
    const client = await authedHttpClient(gw.url, token("runner"));
    try {
      const r = await execute(
        client,
        `local ids = {}
         for i = 1, 5 do ids[i] = mcp.call("echo__slow", { ms = 800 }) end
         local ok, refusal = 0, nil
         for i = 1, 5 do
           local r = task.await(ids[i])
           if r.is_error then refusal = r.content else ok = ok + 1 end
         end
         return { ok = ok, refusal = refusal }`,
      );
      assert.equal(r.isError, false, r.text);
      const result = r.structured.result as { ok: number; refusal: string };
      assert.equal(result.ok, 2);
      assert.match(result.refusal, /concurrency = 2/);
      const failed = r.structured.calls.filter((c: Entry) => !c.ok);
      assert.equal(failed.length, 3);
      for (const c of failed) assert.equal(c.error, "rate_limited");
    } finally {
      await client.close();
    }
  });
});
