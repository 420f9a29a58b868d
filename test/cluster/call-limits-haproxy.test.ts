/**
 * The per-token call limit holds across a deployment: three gateway processes sharing one
 * `redis-server` behind HAProxy with the shipped `deploy/haproxy.cfg`. One token runs an
 * `execute` script and sends JSON-RPC batches on sessions the balancer spreads over the
 * instances; every call it gets through — `execute` itself, the script's calls and the batch
 * items — comes out of one bucket, so the deployment admits at least its burst and at most the
 * burst plus what refilled while the test ran (measured, not assumed), not three bursts. Each
 * instance's `/metrics` shows where the calls ran. Skipped with a message when haproxy or
 * redis-server is missing.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { nodeServer } from "../_helpers/gateway.ts";
import { execute } from "../tools/execute/_setup.ts";
import {
  authedHttpClient,
  bearer,
  MCP_HEADERS,
  messagesOf,
  openSession,
} from "../security/_http.ts";
import {
  freePort,
  type GatewayProc,
  missingTools,
  type Proc,
  startGatewayProc,
  startHaproxy,
  startRedis,
} from "./_cluster.ts";

const SKIP = missingTools();
// Bun does not print a skipped suite's reason: say it once here.
if (SKIP) console.warn(`test/cluster/call-limits-haproxy.test.ts skipped: ${SKIP}`);
const token = (name: string) => `${name}-cluster-haproxy-calls-0123456789`;
const BURST = 24;
const PER_MINUTE = 6;
/**
 * Calls the script makes, and calls in each batch: half as many again as the burst, in pieces
 * small enough that sessions on every instance get some of it.
 */
const SCRIPT_CALLS = 6;
const BATCHES = 5;
const BATCH_CALLS = 6;
const REFUSAL = new RegExp(
  `token "shared" is over its call rate limit \\(gateway\\.auth\\.rateLimit: ` +
    `${PER_MINUTE}/min, burst ${BURST}\\)`,
);
const SERIES = 'mcp_gateway_tool_calls_total{server="echo",tool="echo__pid",outcome="ok"}';

/** `n` calls of `echo__pid` as one JSON-RPC batch. */
const pidBatch = (n: number) =>
  JSON.stringify(Array.from({ length: n }, (_, i) => ({
    jsonrpc: "2.0",
    id: 100 + i,
    method: "tools/call",
    params: { name: "echo__pid", arguments: {} },
  })));

describe("a per-token call limit across three instances behind HAProxy", {
  skip: SKIP ? `cluster call-limit tests skipped: ${SKIP}` : false,
}, () => {
  let redis: Proc;
  let gws: GatewayProc[] = [];
  let lb: Proc;
  let lbUrl: string;

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-cluster-haproxy-calls-"));
    const redisPort = await freePort();
    redis = await startRedis(redisPort);
    const file = join(dir, "gateway.yaml");
    // A Redis round trip is given 5 s: the limit holds per instance only while Redis is late.
    writeFileSync(
      file,
      `
gateway:
  auth:
    tokens:
      - { name: shared, token: "${token("shared")}" }
      - { name: ops, token: "${token("ops")}", admin: true }
    rateLimit: { perMinute: ${PER_MINUTE}, burst: ${BURST} }
  cluster:
    redis: redis://127.0.0.1:${redisPort}
    stateKey: cluster-haproxy-calls-state-key-0123456789abcdef
    timeout: 5s
    heartbeat: 1s
servers:
  echo: ${nodeServer("echo.mjs")}
scripting: { execute: true }
`,
    );
    gws = await Promise.all([1, 2, 3].map(() => startGatewayProc(file)));
    const lbPort = await freePort();
    lb = await startHaproxy(lbPort, gws);
    lbUrl = `http://127.0.0.1:${lbPort}`;
  });

  after(async () => {
    await lb?.kill();
    await Promise.all(gws.map((g) => g.stop()));
    await redis?.kill();
  });

  /** Calls of `echo__pid` each instance ran, read from its own `/metrics`. */
  const ranOn = () =>
    Promise.all(gws.map(async (g) => {
      const text = await (await fetch(`${g.url}/metrics`, { headers: bearer(token("ops")) }))
        .text();
      const line = text.split("\n").find((l) => l.startsWith(`${SERIES} `));
      return line ? Number(line.slice(SERIES.length + 1)) : 0;
    }));

  /** One script of {@link SCRIPT_CALLS} calls through the balancer: how many got through. */
  async function script(): Promise<{ ran: boolean; ok: number; refusals: string[] }> {
    const client = await authedHttpClient(lbUrl, token("shared"));
    try {
      const r = await execute(
        client,
        `local ok, refusals = 0, {}
         for i = 1, ${SCRIPT_CALLS} do
           local r = tools.call("echo__pid", {})
           if r.ok then ok = ok + 1 else refusals[#refusals + 1] = r.error.message end
         end
         return { ok = ok, refusals = refusals }`,
      );
      if (r.isError) return { ran: false, ok: 0, refusals: [r.text] };
      const result = r.structured.result as { ok: number; refusals: string[] | object };
      // An empty Lua table comes back as an object.
      const refusals = Array.isArray(result.refusals) ? result.refusals : [];
      return { ran: true, ok: result.ok, refusals };
    } finally {
      await client.close();
    }
  }

  /** One batch of {@link BATCH_CALLS} calls on a new session through the balancer. */
  async function batch(): Promise<{ ok: number; refusals: string[] }> {
    const auth = bearer(token("shared"));
    const sid = await openSession(lbUrl, auth);
    const res = await fetch(`${lbUrl}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, ...auth, "mcp-session-id": sid },
      body: pidBatch(BATCH_CALLS),
    });
    assert.equal(res.status, 200);
    const items = messagesOf(await res.text()).filter((m) => m.id !== undefined);
    assert.equal(items.length, BATCH_CALLS);
    return {
      ok: items.filter((m) => m.result).length,
      refusals: items.filter((m) => m.error).map((m) => String(m.error.message)),
    };
  }

  it("script calls and batch items spend one bucket: burst ≤ admitted ≤ burst + refill", {
    timeout: 120_000,
  }, async () => {
    const t0 = Date.now();
    const first = await script();
    const batches = [];
    for (let i = 0; i < BATCHES; i++) batches.push(await batch());
    const elapsedMs = Date.now() - t0;

    assert.equal(first.ran, true, first.refusals.join("\n"));
    const items = batches.reduce((n, b) => n + b.ok, 0);
    // `execute` itself is a call too.
    const admitted = 1 + first.ok + items;
    const refill = Math.floor(elapsedMs * PER_MINUTE / 60_000);
    const attempted = 1 + SCRIPT_CALLS + BATCHES * BATCH_CALLS;
    assert.ok(attempted > BURST + refill, "the test asks for more than the bucket holds");
    assert.ok(
      admitted >= BURST && admitted <= BURST + refill,
      `admitted ${admitted} of ${attempted} calls in ${elapsedMs} ms (burst ${BURST}, refill ${refill})`,
    );
    const refusals = [...first.refusals, ...batches.flatMap((b) => b.refusals)];
    assert.equal(refusals.length, attempted - admitted);
    for (const m of refusals) assert.match(m, REFUSAL);

    // Where they ran: each instance counted its own, together exactly the admitted ones, and
    // the balancer spread the sessions, so more than one instance spent the one bucket.
    const perInstance = await ranOn();
    assert.equal(perInstance.reduce((a, b) => a + b, 0), first.ok + items, `${perInstance}`);
    assert.ok(perInstance.filter((n) => n > 0).length >= 2, `calls ran on ${perInstance}`);
    console.log(
      `call-limits-haproxy: admitted ${admitted}/${attempted} in ${elapsedMs} ms, ` +
        `per instance ${perInstance.join("/")}`,
    );
  });
});
