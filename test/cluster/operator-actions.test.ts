/**
 * An operator's server actions taken on one instance of a cluster reach the others: two gateway
 * processes on one `redis-server`; a disable on the first takes the server's tools out of the
 * second's list, an instance started afterwards starts with it disabled, an enable on any
 * instance brings it back everywhere, and a restart on one restarts the server on every one.
 * Each instance's audit line says the action came from the cluster. A disable taken while Redis
 * is down reaches the cluster once Redis is back. Skipped with a message when redis-server is
 * missing.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { nodeServer } from "../_helpers/gateway.ts";
import {
  freePort,
  type GatewayProc,
  metric,
  missingTools,
  outlived,
  type Proc,
  processTree,
  startGatewayProc,
  startRedis,
  until,
} from "./_cluster.ts";

const SKIP = missingTools();
if (SKIP) console.warn(`test/cluster/operator-actions.test.ts skipped: ${SKIP}`);
const TOKEN = "operator-0123456789abcdef";
const AUTH = { authorization: `Bearer ${TOKEN}` };

interface ServerRow {
  name: string;
  state: string;
  restarts: number;
  toolsExposed: number;
  override: { enabled: boolean; by: string | null } | null;
}

async function servers(gw: GatewayProc): Promise<Map<string, ServerRow>> {
  const res = await fetch(`${gw.url}/admin/servers`, { headers: AUTH });
  assert.equal(res.status, 200);
  const body = await res.json() as { servers: ServerRow[] };
  return new Map(body.servers.map((s) => [s.name, s]));
}

async function act(gw: GatewayProc, name: string, verb: string): Promise<void> {
  const res = await fetch(`${gw.url}/admin/servers/${name}/${verb}`, {
    method: "POST",
    headers: { ...AUTH, "content-type": "application/json" },
    body: "{}",
  });
  assert.equal(res.status, 200, await res.text());
}

/**
 * Waits until `gw` shows server echo disabled by an override and none of its tools exposed; the
 * override must name the admin token that took the action.
 */
async function untilDisabled(gw: GatewayProc, ms: number, what: string): Promise<void> {
  const row = await until(
    async () => {
      const r = (await servers(gw)).get("echo")!;
      return r.override?.enabled === false && r.toolsExposed === 0 ? r : null;
    },
    ms,
    what,
  );
  assert.equal(row.override!.by, "ops");
}

/** A config for instances of one cluster on `redisPort`; STATE and AUDIT are each instance's. */
function clusterConfig(redisPort: number): string {
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-op-"));
  const file = join(dir, "gateway.yaml");
  writeFileSync(
    file,
    `
gateway:
  state: STATE
  audit: { file: AUDIT }
  auth:
    tokens:
      - { name: ops, token: ${TOKEN}, admin: true }
  cluster:
    redis: redis://127.0.0.1:${redisPort}
    stateKey: operator-test-state-key-0123456789abcdef
    timeout: 300ms
    heartbeat: 500ms
servers:
  echo: ${nodeServer("echo.mjs")}
`,
  );
  return file;
}

/** The instances one test group started, their audit logs and every process they spawned. */
class Instances {
  readonly gws: GatewayProc[] = [];
  readonly audits: string[] = [];
  readonly started: number[] = [];

  /** One instance with a state folder (and audit log) of its own, as separate hosts have. */
  async start(file: string): Promise<GatewayProc> {
    const state = mkdtempSync(join(tmpdir(), "mcpgw-op-state-"));
    const audit = join(state, "audit.jsonl");
    const cfg = join(state, "gateway.yaml");
    writeFileSync(
      cfg,
      readFileSync(file, "utf8")
        .replace("STATE", state)
        .replace("AUDIT", audit),
    );
    const gw = await startGatewayProc(cfg);
    this.gws.push(gw);
    this.audits.push(audit);
    this.started.push(...processTree([gw.pid]));
    return gw;
  }

  /** Stops every instance, then `redis`; no process any of them started may outlive them. */
  async stop(redis: Proc | undefined): Promise<void> {
    await Promise.all(this.gws.map((g) => g.stop()));
    await redis?.kill();
    assert.deepEqual(await outlived(this.started), [], "no process may outlive the test");
  }
}

describe("operator server actions across a cluster", {
  skip: SKIP ? `cluster tests skipped: ${SKIP}` : false,
}, () => {
  let redis: Proc;
  const all = new Instances();
  const { gws, audits, started } = all;
  let file: string;
  const instance = () => all.start(file);

  before(async () => {
    const redisPort = await freePort();
    redis = await startRedis(redisPort);
    started.push(redis.pid);
    file = clusterConfig(redisPort);
    await instance();
    await instance();
  });

  after(() => all.stop(redis));

  it("a disable on one instance takes the server's tools off the other", async () => {
    const [a, b] = gws;
    assert.ok((await servers(b!)).get("echo")!.toolsExposed > 0);
    await act(a!, "echo", "disable");
    await untilDisabled(b!, 5_000, "the second instance to disable echo");
  });

  it("an instance started afterwards starts with the server disabled", async () => {
    const c = await instance();
    await untilDisabled(
      c,
      5_000,
      "the late instance to lay the cluster's override over its config",
    );
  });

  it("an enable on any instance brings it back on every one", async () => {
    await act(gws[2]!, "echo", "enable");
    for (const gw of gws) {
      await until(
        async () => {
          const r = (await servers(gw)).get("echo")!;
          return r.override === null && r.state === "up" && r.toolsExposed > 0 ? r : null;
        },
        10_000,
        `echo back on ${gw.url}`,
      );
    }
  });

  it("a restart on one instance restarts the server on every one, each audited", async () => {
    const before = await Promise.all(
      gws.map(async (g) => (await servers(g)).get("echo")!.restarts),
    );
    await act(gws[0]!, "echo", "restart");
    for (const [i, gw] of gws.entries()) {
      await until(
        async () => {
          const r = (await servers(gw)).get("echo")!;
          return r.restarts > before[i]! && r.state === "up" ? r : null;
        },
        10_000,
        `echo restarted on ${gw.url}`,
      );
    }
    const lines = (i: number) =>
      readFileSync(audits[i]!, "utf8").trim().split("\n").map((l) => JSON.parse(l))
        .filter((r) => r.action === "server.restart");
    await until(() => lines(1).length > 0 && lines(2).length > 0 ? true : null, 5_000, "audit");
    assert.equal(lines(0)[0].via, "api");
    assert.equal(lines(1)[0].via, "cluster");
    assert.equal(lines(1)[0].tokenName, "ops");
    assert.equal(lines(2)[0].via, "cluster");
  });
});

describe("a disable taken while the cluster's Redis is down", {
  skip: SKIP ? `cluster tests skipped: ${SKIP}` : false,
}, () => {
  let redis: Proc | undefined;
  const all = new Instances();
  let redisPort: number;
  let file: string;

  before(async () => {
    redisPort = await freePort();
    file = clusterConfig(redisPort);
  });

  after(() => all.stop(redis));

  it("stands here, and is kept for the cluster once Redis is back", async () => {
    const a = await all.start(file);
    await act(a, "echo", "disable");
    assert.equal((await servers(a)).get("echo")!.toolsExposed, 0);
    redis = await startRedis(redisPort);
    all.started.push(redis.pid);
    await until(
      async () => await metric(a.url, "mcp_gateway_cluster_degraded", AUTH) === 0,
      10_000,
      "the first instance to reach Redis",
    );
    // An instance that starts now reads the disable the first one wrote when Redis came back.
    const late = await all.start(file);
    await untilDisabled(late, 10_000, "the late instance to lay the kept disable over its config");
  });
});
