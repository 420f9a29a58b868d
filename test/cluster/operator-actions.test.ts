/**
 * An operator's server actions taken on one instance of a cluster reach the others: two gateway
 * processes on one `redis-server`; a disable on the first takes the server's tools out of the
 * second's list, an instance started afterwards starts with it disabled, an enable on any
 * instance brings it back everywhere, and a restart on one restarts the server on every one.
 * Each instance's audit line says the action came from the cluster. Skipped with a message when
 * redis-server is missing.
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

describe("operator server actions across a cluster", {
  skip: SKIP ? `cluster tests skipped: ${SKIP}` : false,
}, () => {
  let redis: Proc;
  const gws: GatewayProc[] = [];
  const started: number[] = [];
  let file: string;
  const audits: string[] = [];

  /** One instance with a state folder (and audit log) of its own, as separate hosts have. */
  async function instance(): Promise<GatewayProc> {
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
    gws.push(gw);
    audits.push(audit);
    started.push(...processTree([gw.pid]));
    return gw;
  }

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-op-"));
    const redisPort = await freePort();
    redis = await startRedis(redisPort);
    started.push(redis.pid);
    file = join(dir, "gateway.yaml");
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
    await instance();
    await instance();
  });

  after(async () => {
    await Promise.all(gws.map((g) => g.stop()));
    await redis?.kill();
    assert.deepEqual(await outlived(started), [], "no process may outlive the test");
  });

  it("a disable on one instance takes the server's tools off the other", async () => {
    const [a, b] = gws;
    assert.ok((await servers(b!)).get("echo")!.toolsExposed > 0);
    await act(a!, "echo", "disable");
    const row = await until(
      async () => {
        const r = (await servers(b!)).get("echo")!;
        return r.override?.enabled === false && r.toolsExposed === 0 ? r : null;
      },
      5_000,
      "the second instance to disable echo",
    );
    assert.equal(row.override!.by, "ops");
  });

  it("an instance started afterwards starts with the server disabled", async () => {
    const c = await instance();
    const row = await until(
      async () => {
        const r = (await servers(c)).get("echo")!;
        return r.override?.enabled === false && r.toolsExposed === 0 ? r : null;
      },
      5_000,
      "the late instance to lay the cluster's override over its config",
    );
    assert.equal(row.override!.by, "ops");
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
