/**
 * The per-token call rate of the call gate holds across instances: three gateway processes share
 * one `redis-server` and are called directly (no balancer, so nothing but Redis joins them).
 * Batch items and the calls an `execute` script makes are counted where they run, in the
 * deployment's one bucket: what one instance spent, the others cannot spend again. Skipped with a
 * message when redis-server is missing.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { nodeServer } from "../_helpers/gateway.ts";
import { execute } from "../tools/execute/_setup.ts";
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

describe("a per-token call limit shared by three instances through Redis", {
  skip: SKIP ? `cluster call-limit tests skipped: ${SKIP}` : false,
}, () => {
  let redis: Proc;
  let redisPort: number;
  let gws: GatewayProc[] = [];

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-cluster-calls-"));
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    const file = join(dir, "gateway.yaml");
    const names = ["batch", "script", "stalled"];
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
    gws = await Promise.all([1, 2, 3].map(() => startGatewayProc(file)));
  });

  after(async () => {
    await Promise.all(gws.map((g) => g.stop()));
    await redis?.kill();
  });

  it("batch items: what one instance answered, the others refuse (one round trip a call)", async () => {
    const [a, b, c] = gws;
    const calls0 = await redisCalls(redisPort);
    const first = await batch(a!.url, "batch", 5);
    const between = await redisCalls(redisPort);
    const second = await batch(b!.url, "batch", 5);
    const third = await batch(c!.url, "batch", 5);
    assert.deepEqual([first.ok, second.ok], [5, 5]);
    // 12 in the burst, 10 spent on the other two; one may have come back (1/min).
    assert.ok(third.ok >= BURST - 10 && third.ok <= BURST - 10 + 1, `answered ${third.ok}`);
    for (const m of third.refused) {
      assert.match(m, /call rate limit \(gateway\.auth\.rateLimit: 1\/min, burst 12\)/);
    }
    // Each call is one script run in Redis, beside the requests' own bucket (one a request).
    const requestsOfA = callsBetween(calls0, between, "evalsha", "eval") - 5;
    assert.ok(requestsOfA >= 2 && requestsOfA <= 4, `${requestsOfA} request takes`);
  });

  it("an execute script's calls count on the instance they run on, for the deployment", async () => {
    const [a, b, c] = gws;
    // execute itself is a call too: 1 + 6 of the 12 on the first instance.
    const first = await script(a!.url, "script", 6);
    assert.equal(first.ran, true, first.text);
    assert.equal(first.ok, 6);
    // 5 left: execute and four of its calls (five with a refilled one).
    const second = await script(b!.url, "script", 6);
    assert.equal(second.ran, true, second.text);
    assert.ok(second.ok >= 4 && second.ok <= 5, `the second script made ${second.ok} calls`);
    // Nothing left (one at most refilled): execute refused, or a script whose calls are.
    const third = await script(c!.url, "script", 6);
    assert.ok(third.ok === 0, `the third script made ${third.ok} calls (${third.text})`);
  });

  it("a Redis that stops answering costs a few timeouts, not one a call (fail-open)", async () => {
    // SIGSTOP: the connections stay up, every command times out (gateway.cluster.timeout: 2s).
    process.kill(redis.pid, "SIGSTOP");
    try {
      const t0 = Date.now();
      // Two requests and eight calls (execute and its seven): twenty seconds at one timeout each.
      const r = await script(gws[0]!.url, "stalled", 7);
      const ms = Date.now() - t0;
      assert.equal(r.ran, true, r.text);
      assert.equal(r.ok, 7, "counted in the instance's own buckets meanwhile, not refused");
      assert.ok(ms < 12_000, `took ${ms} ms`);
    } finally {
      process.kill(redis.pid, "SIGCONT");
    }
  });
});
