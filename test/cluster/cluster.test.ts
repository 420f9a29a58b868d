/**
 * Three gateway processes sharing one `redis-server` behind HAProxy with the shipped
 * `deploy/haproxy.cfg`, all on loopback: membership, a rate limit shared across instances, an
 * MRTR continuation retried on another instance, 40 clients of both protocol eras calling
 * through the balancer while one instance is killed with SIGKILL, Redis stopped and restarted
 * under load, and one instance drained with SIGTERM under load. Skipped with a message when
 * haproxy or redis-server is missing.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Redis } from "ioredis";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { nodeServer, textOf } from "../_helpers/gateway.ts";
import { EVERYTHING } from "../gateway/passthrough/_helpers.ts";
import {
  alive,
  callsBetween,
  descendants,
  freePort,
  type GatewayProc,
  metric,
  missingTools,
  outlived,
  type Proc,
  processTree,
  rawCall,
  redisCalls,
  startGatewayProc,
  startHaproxy,
  startRedis,
  until,
} from "./_cluster.ts";
import { CALL_TIMEOUT_MS, legacyLoad, type LoadStats, modernLoad } from "./_load.ts";

const SKIP = missingTools();
// Bun does not print a skipped suite's reason: say it once here.
if (SKIP) console.warn(`test/cluster/cluster.test.ts skipped: ${SKIP}`);
const TOKEN = "cluster-0123456789abcdef";
const AUTH = { authorization: `Bearer ${TOKEN}` };
const PER_MINUTE = 30;
/** Calls each load client makes at most; the run also ends after LOAD_MS. */
const LOAD_MS = 9_000;

const SAMPLING = {
  role: "assistant" as const,
  content: { type: "text" as const, text: "sampled" },
  model: "m",
};

describe("several gateways behind HAProxy sharing Redis", {
  skip: SKIP ? `cluster tests skipped: ${SKIP}` : false,
}, () => {
  let redis: Proc;
  let redisPort: number;
  let gws: GatewayProc[] = [];
  let lb: Proc;
  let lbUrl: string;
  const started: number[] = [];
  let config: (rateLimit: boolean) => void;
  /** Upstreams of the SIGKILLed instance: its supervisor's to stop, the test's here. */
  const orphans: number[] = [];

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-cluster-"));
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    const file = join(dir, "gateway.yaml");
    config = (rateLimit: boolean) =>
      writeFileSync(
        file,
        `
gateway:
  auth:
    tokens:
      - { name: limited, token: ${TOKEN}, admin: true }
${rateLimit ? `    rateLimit: { perMinute: ${PER_MINUTE}, burst: ${PER_MINUTE} }` : ""}
  cluster:
    redis: redis://127.0.0.1:${redisPort}
    stateKey: cluster-test-state-key-0123456789abcdef
    timeout: 300ms
    heartbeat: 500ms
  drainTimeout: 3s
servers:
  echo: ${nodeServer("echo.mjs")}
  everything: ${EVERYTHING}
`,
      );
    config(true);
    gws = await Promise.all([1, 2, 3].map(() => startGatewayProc(file)));
    const lbPort = await freePort();
    lb = await startHaproxy(lbPort, gws);
    lbUrl = `http://127.0.0.1:${lbPort}`;
    started.push(...processTree([redis.pid, lb.pid, ...gws.map((g) => g.pid)]));
  });

  after(async () => {
    await lb?.kill();
    await Promise.all(gws.map((g) => g.stop()));
    await redis?.kill();
    for (const pid of orphans.filter(alive)) process.kill(pid, "SIGKILL");
    // Upstreams of a killed gateway see their stdin close and exit on their own.
    assert.deepEqual(await outlived(started), [], "no process may outlive the test");
  });

  it(`a token limited to ${PER_MINUTE}/min gets that many calls across three instances (±2)`, async () => {
    const calls0 = await redisCalls(redisPort);
    const startedAt = Date.now();
    let ok = 0;
    let limited = 0;
    for (let i = 0; i < 30; i++) {
      const answers = await Promise.all(
        gws.map((gw) => rawCall(gw.url, { name: "echo__echo", arguments: { text: "r" } }, TOKEN)),
      );
      for (const a of answers) a.status === 200 ? ok++ : a.status === 429 ? limited++ : 0;
    }
    const refilled = ((Date.now() - startedAt) / 60_000) * PER_MINUTE;
    assert.equal(ok + limited, 90);
    // One Redis round trip per limited request (the requests' bucket script), and one per call
    // admitted to the core (the call gate's, shared too).
    assert.equal(callsBetween(calls0, await redisCalls(redisPort), "evalsha", "eval"), 90 + ok);
    assert.ok(Math.abs(ok - (PER_MINUTE + refilled)) <= 2, `allowed ${ok}, refill ${refilled}`);
    // The load below must not be limited: every instance reloads the config without the limit.
    config(false);
    for (const gw of gws) {
      process.kill(gw.pid, "SIGHUP");
      await until(() => gw.output.includes('"msg":"config reloaded"'), 10_000, "the reload");
    }
  });

  it("every instance lists all three live instances with their upstreams", async () => {
    for (const gw of gws) {
      const status = await until(
        async () => {
          const s = await (await fetch(`${gw.url}/cluster`, { headers: AUTH })).json() as {
            degraded: boolean;
            instances: { url: string; upstreams: { state: string }[] }[];
          };
          return s.instances.length === 3 ? s : null;
        },
        10_000,
        "three instances",
      );
      assert.equal(status.degraded, false);
      assert.deepEqual(status.instances.map((i) => i.url).sort(), gws.map((g) => g.url).sort());
      assert.ok(status.instances.every((i) => i.upstreams.every((u) => u.state === "up")));
    }
    const page = await (await fetch(`${gws[0]!.url}/`, { headers: AUTH })).text();
    for (const gw of gws) assert.ok(page.includes(gw.url), "the status page lists every instance");
  });

  it("an MRTR continuation sent to another instance completes there", async () => {
    // Everything published on the shared Redis while the continuations are relayed: no
    // credential may be in it (the owner serves by the identity the sender decided).
    const spy = new Redis(`redis://127.0.0.1:${redisPort}`);
    const published: string[] = [];
    spy.on("pmessage", (_pattern: string, _channel: string, message: string) => {
      published.push(message);
    });
    await spy.psubscribe("*");
    const first = await rawCall(gws[0]!.url, {
      name: "everything__trigger-sampling-request",
      arguments: { prompt: "hi", maxTokens: 5 },
    }, TOKEN);
    const r = first.body.result as {
      resultType: string;
      requestState: string;
      inputRequests: object;
    };
    assert.equal(r?.resultType, "input_required", JSON.stringify(first));
    const key = Object.keys(r.inputRequests)[0]!;
    const retry = await rawCall(gws[1]!.url, {
      name: "everything__trigger-sampling-request",
      arguments: { prompt: "hi", maxTokens: 5 },
      inputResponses: { [key]: SAMPLING },
      requestState: r.requestState,
    }, TOKEN);
    const done = retry.body.result as { resultType: string };
    assert.equal(done?.resultType, "complete", JSON.stringify(retry.body));
    assert.match(textOf(done), /sampled/);

    // The SDK client retries by itself through the balancer, which spreads the rounds.
    const client = new ModernClient({ name: "mrtr", version: "1.0.0" }, {
      capabilities: { sampling: {} },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    client.setRequestHandler(
      "sampling/createMessage",
      () => ({ ...SAMPLING, stopReason: "endTurn" }),
    );
    await client.connect(
      new ModernTransport(new URL(`${lbUrl}/mcp`), { requestInit: { headers: AUTH } }),
    );
    try {
      for (let i = 0; i < 3; i++) {
        const r = await client.callTool({
          name: "everything__trigger-sampling-request",
          arguments: { prompt: "hi", maxTokens: 5 },
        });
        assert.match(textOf(r), /sampled/);
      }
    } finally {
      await client.close();
    }
    let forwarded = 0;
    for (const gw of gws) {
      forwarded +=
        (await metric(gw.url, 'mcp_gateway_cluster_relayed_total{side="forwarded"}', AUTH))!;
    }
    assert.ok(forwarded >= 2, `${forwarded} continuations relayed`);
    await spy.quit();
    // A relayed request names the instance it came from; an answer does not.
    const relayed = published.filter((m) => m.includes('"from":'));
    assert.ok(relayed.length >= 2, `${relayed.length} relayed requests seen on Redis`);
    for (const message of published) {
      assert.ok(!message.includes(TOKEN), "a relayed request carries no bearer token");
      assert.ok(!/"authorization"/i.test(message), "nor an Authorization header");
    }
  });

  it("40 clients through HAProxy survive one instance killed with SIGKILL", async () => {
    const victim = gws[2]!;
    // A call parked on the victim, to be continued after it is gone.
    const parked = await rawCall(victim.url, {
      name: "everything__trigger-sampling-request",
      arguments: { prompt: "hi", maxTokens: 5 },
    }, TOKEN);
    const state = (parked.body.result as { requestState: string }).requestState;
    const parkedKey = Object.keys(
      (parked.body.result as { inputRequests: object }).inputRequests,
    )[0]!;

    const calls0 = await redisCalls(redisPort);
    const end = Date.now() + LOAD_MS;
    let killedAt = 0;
    const stats = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => modernLoad(lbUrl, i, end, AUTH)),
      ...Array.from({ length: 20 }, (_, i) => legacyLoad(lbUrl, i, end, AUTH)),
      (async () => {
        await new Promise((r) => setTimeout(r, LOAD_MS / 3));
        // A SIGKILLed gateway cannot stop its upstreams; its supervisor (systemd's cgroup)
        // does. Here the test plays that part, by PID, below.
        orphans.push(...descendants(victim.pid));
        killedAt = Date.now();
        await victim.kill();
        gws = gws.filter((g) => g !== victim);
        return null;
      })(),
    ]);
    const clients = stats.filter((s): s is LoadStats => s !== null);
    const total = clients.reduce((n, s) => n + s.ok, 0);
    let lost = 0;
    for (const s of clients) {
      assert.equal(s.attempts, s.ok + s.failed + s.sessionLost, `${s.name}: counts add up`);
      assert.equal(s.wrong, 0, `${s.name}: every completed answer is correct`);
      assert.ok(s.longestMs < CALL_TIMEOUT_MS, `${s.name}: waited ${s.longestMs} ms`);
      assert.ok(s.ok > 0, `${s.name}: made progress`);
      // Only calls in flight on the killed instance may be lost, around the kill: the one the
      // client was waiting for, and one sent while the dying process still accepted.
      assert.ok(s.failed <= 2, `${s.name}: ${s.failed} failed (${s.errors.join("; ")})`);
      for (const at of s.failedAt) {
        assert.ok(
          at >= killedAt - 1000 && at < killedAt + 3000,
          `${s.name}: failed at ${at - killedAt} ms`,
        );
      }
      assert.ok(s.sessionLost <= 1 && s.reinitialised === s.sessionLost, `${s.name}: re-init`);
      lost += s.failed;
    }
    // Every lost call was on the killed instance (at most two per client, around the kill,
    // checked above): a small share of all calls.
    assert.ok(lost * 20 < total, `${lost} calls lost of ${total}`);
    const reinit = clients.reduce((n, s) => n + s.reinitialised, 0);
    assert.ok(reinit >= 1, "legacy clients pinned to the killed instance re-initialised");
    assert.ok(total > 200, `only ${total} calls completed`);
    // Without a rate limit the plain call path never talks to Redis.
    const calls1 = await redisCalls(redisPort);
    assert.equal(callsBetween(calls0, calls1, "evalsha", "eval", "publish", "get", "exists"), 0);
    if (process.env.CLUSTER_STATS) {
      console.log(JSON.stringify({ completed: total, lost, reinit, ms: LOAD_MS }));
    }

    // The parked call's owner is gone: its retry elsewhere is refused at once, not held.
    const t0 = Date.now();
    const orphan = await rawCall(gws[0]!.url, {
      name: "everything__trigger-sampling-request",
      arguments: { prompt: "hi", maxTokens: 5 },
      inputResponses: { [parkedKey]: SAMPLING },
      requestState: state,
    }, TOKEN);
    assert.ok(Date.now() - t0 < 2_500, `answered after ${Date.now() - t0} ms`);
    assert.match(String((orphan.body.error as { message: string })?.message), /is gone.*again/);
  });

  it("Redis stopped and restarted mid-run: serving goes on, degraded state in /metrics", async () => {
    const end = Date.now() + 6_000;
    const load = Promise.all([
      ...Array.from({ length: 3 }, (_, i) => modernLoad(lbUrl, 100 + i, end, AUTH)),
      ...Array.from({ length: 3 }, (_, i) => legacyLoad(lbUrl, 100 + i, end, AUTH)),
    ]);
    await new Promise((r) => setTimeout(r, 1_000));
    await redis.kill();
    for (const gw of gws) {
      await until(
        async () => (await metric(gw.url, "mcp_gateway_cluster_degraded", AUTH)) === 1,
        3_000,
        "degraded",
      );
    }
    const limitedWhileDown = await rawCall(
      gws[0]!.url,
      { name: "echo__echo", arguments: {} },
      TOKEN,
    );
    assert.ok([200, 429].includes(limitedWhileDown.status), "local limits answer at once");
    redis = await startRedis(redisPort);
    started.push(redis.pid);
    for (const gw of gws) {
      await until(
        async () => (await metric(gw.url, "mcp_gateway_cluster_degraded", AUTH)) === 0,
        5_000,
        "rejoined",
      );
    }
    const clients = await load;
    for (const s of clients) {
      assert.equal(s.failed + s.sessionLost, 0, `${s.name}: ${s.errors.join("; ")}`);
      assert.equal(s.wrong, 0);
      assert.ok(s.ok > 0);
    }
    await until(
      async () => {
        const s = await (await fetch(`${gws[0]!.url}/cluster`, { headers: AUTH })).json() as {
          instances: unknown[];
        };
        return s.instances.length === gws.length;
      },
      5_000,
      "membership after Redis returned",
    );
  });

  it("SIGTERM drains an instance: its call in flight finishes, clients never notice", async () => {
    const draining = gws[1]!;
    const slow = rawCall(draining.url, { name: "echo__slow", arguments: { ms: 1_500 } }, TOKEN);
    const end = Date.now() + 4_000;
    const load = Promise.all([
      ...Array.from({ length: 3 }, (_, i) => modernLoad(lbUrl, 200 + i, end, AUTH)),
      ...Array.from({ length: 3 }, (_, i) => legacyLoad(lbUrl, 200 + i, end, AUTH)),
    ]);
    await new Promise((r) => setTimeout(r, 800));
    process.kill(draining.pid, "SIGTERM");
    const done = await slow;
    assert.match(textOf(done.body.result), /slept/, JSON.stringify(done.body));
    for (const s of await load) {
      assert.equal(s.failed, 0, `${s.name}: ${s.errors.join("; ")}`);
      assert.equal(s.wrong, 0);
      // A 2025 session on the drained instance moves: 404 elsewhere, then a new session.
      assert.ok(s.sessionLost <= 1 && s.reinitialised === s.sessionLost);
    }
    await draining.exited;
    gws = gws.filter((g) => g !== draining);
  });
});
