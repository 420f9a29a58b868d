/**
 * Cluster benchmark (`bun bench/cluster.ts`): 2026-07-28 `tools/call`s per second through the
 * shipped HAProxy config with 1, 2 and 3 gateway instances sharing Redis, beside calls sent
 * straight to one instance, and the Redis round trips per call with and without a rate limit
 * (read from Redis's `INFO commandstats`). Needs `haproxy` and `redis-server` on PATH. Every
 * process it starts is stopped by PID at the end.
 *
 * On a 2-core machine the client, the balancer, the gateways and their upstreams share the same
 * two cores, so more instances cannot add throughput here; the figures show the balancer's and
 * the cluster layer's cost, not scale-out.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  callsBetween,
  freePort,
  type GatewayProc,
  missingTools,
  type Proc,
  rawCall,
  redisCalls,
  startGatewayProc,
  startHaproxy,
  startRedis,
} from "../test/cluster/_cluster.ts";
import { nodeServer } from "../test/_helpers/gateway.ts";

const TOKEN = "bench-0123456789abcdef";
const CLIENTS = 8;
const CELL_MS = 3_000;

async function rate(url: string): Promise<{ perS: number; calls: number }> {
  const end = Date.now() + CELL_MS;
  let calls = 0;
  await Promise.all(Array.from({ length: CLIENTS }, async (_, i) => {
    for (let n = 0; Date.now() < end; n++) {
      const r = await rawCall(url, { name: "echo__echo", arguments: { text: `${i}-${n}` } }, TOKEN);
      if (r.status !== 200 || !r.body.result) throw new Error(JSON.stringify(r.body));
      calls++;
    }
  }));
  return { perS: Math.round(calls / (CELL_MS / 1000)), calls };
}

async function main(): Promise<void> {
  const missing = missingTools();
  if (missing) {
    console.error(`bench/cluster: ${missing}`);
    process.exit(2);
  }
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-cluster-bench-"));
  const redisPort = await freePort();
  const procs: Proc[] = [];
  try {
    const redis = await startRedis(redisPort);
    procs.push(redis);
    const file = join(dir, "gateway.yaml");
    const config = (limited: boolean) =>
      writeFileSync(
        file,
        `gateway:
  auth:
    tokens: [{ name: bench, token: ${TOKEN} }]
${limited ? "    rateLimit: { perMinute: 1000000, burst: 1000000 }" : ""}
  cluster:
    redis: redis://127.0.0.1:${redisPort}
    stateKey: bench-state-key-0123456789abcdef0123
servers:
  echo: ${nodeServer("bench-echo.mjs")}
`,
      );
    config(false);
    const gws: GatewayProc[] = [];
    for (let i = 0; i < 3; i++) {
      const gw = await startGatewayProc(file);
      gws.push(gw);
      procs.push(gw);
    }
    const dead = await freePort();
    const rows: string[] = [];
    const direct = await rate(gws[0]!.url);
    rows.push(`| bypassed (straight to one instance) | ${direct.perS} |`);
    for (const n of [1, 2, 3]) {
      const lbPort = await freePort();
      const members = gws.slice(0, n);
      const targets = [0, 1, 2].map((i) =>
        members[i] ?? ({ port: dead } as unknown as GatewayProc)
      );
      const lb = await startHaproxy(lbPort, targets);
      await new Promise((r) => setTimeout(r, 1_500)); // absent instances marked down
      const r = await rate(`http://127.0.0.1:${lbPort}`);
      rows.push(`| HAProxy, ${n} instance${n > 1 ? "s" : ""} | ${r.perS} |`);
      await lb.kill();
    }
    const before = await redisCalls(redisPort);
    const plain = await rate(gws[0]!.url);
    const mid = await redisCalls(redisPort);
    config(true);
    for (const gw of gws) process.kill(gw.pid, "SIGHUP");
    await new Promise((r) => setTimeout(r, 1_000));
    const mid2 = await redisCalls(redisPort);
    const limited = await rate(gws[0]!.url);
    const after = await redisCalls(redisPort);
    const per = (calls: number, n: number) => (calls / n).toFixed(3);
    const cmds = ["evalsha", "eval", "publish", "get", "exists", "mget", "scan"];
    console.log(`# Cluster benchmark (${CLIENTS} concurrent 2026-07-28 clients, ${CELL_MS} ms)\n`);
    console.log("| path | calls/s |\n|---|---|");
    for (const row of rows) console.log(row);
    console.log("\n| call path | Redis round trips per call |\n|---|---|");
    console.log(`| no rate limit | ${per(callsBetween(before, mid, ...cmds), plain.calls)} |`);
    console.log(
      `| with a rate limit | ${per(callsBetween(mid2, after, ...cmds), limited.calls)} |`,
    );
  } finally {
    for (const p of procs.reverse()) await (p as GatewayProc).stop?.() ?? p.kill();
  }
}

await main();
