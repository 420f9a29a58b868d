/**
 * The per-token call rate of the call gate holds across instances: two gateway processes share
 * one `redis-server` and are called directly (no balancer, so nothing but Redis joins them).
 * Batch items and the calls an `execute` script makes are counted where they run, in the
 * deployment's one bucket: what one instance spent, the other cannot spend again. Skipped with a
 * message when redis-server is missing.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { nodeServer } from "../_helpers/gateway.ts";
import { execute } from "../execute/_setup.ts";
import {
  authedHttpClient,
  batchOf,
  bearer,
  MCP_HEADERS,
  messagesOf,
  openSession,
} from "../security/_http.ts";
import {
  callsBetween,
  freePort,
  type GatewayProc,
  type Proc,
  redisCalls,
  startGatewayProc,
  startRedis,
} from "./_cluster.ts";

const SKIP = spawnSync("sh", ["-c", "command -v redis-server"]).status !== 0
  ? "redis-server not on PATH (apt-get install redis-server)"
  : false;
if (SKIP) console.warn(`test/cluster/call-limits.test.ts skipped: ${SKIP}`);
const token = (name: string) => `${name}-cluster-calls-0123456789`;
/** Twelve calls at once, then one a minute: at most one comes back during the test. */
const BURST = 12;

/** Answered and refused items of a batch sent to `url` in a new session of `name`. */
async function batch(url: string, name: string, n: number) {
  const auth = bearer(token(name));
  const sid = await openSession(url, auth);
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...auth, "mcp-session-id": sid },
    body: batchOf(n),
  });
  assert.equal(res.status, 200);
  const messages = messagesOf(await res.text());
  const items = messages.filter((m) => m.id !== undefined);
  assert.equal(items.length, n);
  return {
    ok: items.filter((m) => m.result).length,
    refused: items.filter((m) => m.error).map((m) => m.error!.message),
  };
}

/** How many of `n` calls an `execute` script on `url` got through, and whether it ran at all. */
async function script(url: string, name: string, n: number) {
  const client = await authedHttpClient(url, token(name));
  try {
    const r = await execute(
      client,
      `local ok = 0
       for i = 1, ${n} do
         if tools.call("echo__echo", { text = "x" }).ok then ok = ok + 1 end
       end
       return ok`,
    );
    return r.isError ? { ran: false, ok: 0, text: r.text } : {
      ran: true,
      ok: r.structured.result as number,
      text: r.text,
    };
  } catch (err) {
    // `execute` itself refused by the gate: a JSON-RPC error, not a result.
    return { ran: false, ok: 0, text: (err as Error).message };
  } finally {
    await client.close();
  }
}

describe("a per-token call limit shared by two instances through Redis", {
  skip: SKIP ? `cluster call-limit tests skipped: ${SKIP}` : false,
}, () => {
  let redis: Proc;
  let redisPort: number;
  let a: GatewayProc;
  let b: GatewayProc;

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-cluster-calls-"));
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    const file = join(dir, "gateway.yaml");
    const names = ["batch", "script"];
    writeFileSync(
      file,
      `
gateway:
  auth:
    tokens: [${names.map((n) => `{ name: ${n}, token: "${token(n)}" }`).join(", ")}]
    rateLimit: { perMinute: 1, burst: ${BURST} }
  cluster:
    redis: redis://127.0.0.1:${redisPort}
    stateKey: cluster-calls-test-state-key-0123456789abcdef
    timeout: 2s
    heartbeat: 1s
servers:
  echo: ${nodeServer("echo.mjs")}
scripting: { execute: true }
`,
    );
    [a, b] = await Promise.all([startGatewayProc(file), startGatewayProc(file)]);
  });

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.kill();
  });

  it("batch items: what one instance answered, the other refuses (one round trip a call)", async () => {
    const calls0 = await redisCalls(redisPort);
    const first = await batch(a.url, "batch", 8);
    assert.equal(first.ok, 8);
    const between = await redisCalls(redisPort);
    const second = await batch(b.url, "batch", 8);
    // 12 in the burst, 8 spent on the other instance; one may have come back (1/min).
    assert.ok(second.ok >= BURST - 8 && second.ok <= BURST - 8 + 1, `answered ${second.ok}`);
    for (const m of second.refused) {
      assert.match(m, /call rate limit \(gateway\.auth\.rateLimit: 1\/min, burst 12\)/);
    }
    // Each call is one script run in Redis, beside the requests' own bucket (one a request).
    const scripts = (x: Record<string, number>, y: Record<string, number>) =>
      callsBetween(x, y, "evalsha", "eval");
    const requestsOfA = scripts(calls0, between) - 8;
    assert.ok(requestsOfA >= 2 && requestsOfA <= 4, `${requestsOfA} request takes`);
  });

  it("an execute script's calls count on the instance they run on, for the deployment", async () => {
    // execute itself is a call too: 1 + 8 of the 12.
    const first = await script(a.url, "script", 8);
    assert.equal(first.ran, true, first.text);
    assert.equal(first.ok, 8);
    const second = await script(b.url, "script", 8);
    // 3 left: execute and two of its calls (three with a refilled one), or none at all.
    assert.ok(second.ok <= 3, `the second script made ${second.ok} calls (${second.text})`);
    if (second.ran) assert.ok(second.ok >= 2, `the second script made ${second.ok} calls`);
  });
});
