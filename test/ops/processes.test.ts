/**
 * No leaked processes: a stdio server's whole process tree (here a server that spawns a
 * grandchild) is killed on shutdown, on restart after a crash, and when a reload removes it.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  httpClient,
  nodeServer,
  startTestGateway,
  type TestGateway,
  textOf,
  waitFor,
} from "../_helpers/gateway.ts";
import { alive } from "./_ops.ts";

async function pids(client: Client, server = "tree"): Promise<{ pid: number; grandchild: number }> {
  const r = await client.callTool({ name: `${server}__pids`, arguments: {} });
  return JSON.parse(textOf(r));
}

const gone = (p: { pid: number; grandchild: number }) => () =>
  !alive(p.pid) && !alive(p.grandchild);

describe("process trees", () => {
  it("stopping the gateway kills each server and its grandchildren", async () => {
    const gw = await startTestGateway(`servers:\n  tree: ${nodeServer("spawns-grandchild.mjs")}\n`);
    const client = await httpClient(gw.url);
    const p = await pids(client);
    assert.ok(alive(p.pid) && alive(p.grandchild));
    await client.close();
    await gw.stop();
    await waitFor(gone(p), 5000, "the process tree to die");
  });

  it("a crashed server's leftover children are killed and it restarts in a fresh tree", async () => {
    let gw: TestGateway | undefined;
    let client: Client | undefined;
    try {
      gw = await startTestGateway(
        `servers:\n  tree: ${
          nodeServer("spawns-grandchild.mjs", "restart: { initialDelay: 100ms }")
        }\n`,
      );
      client = await httpClient(gw.url);
      const before = await pids(client);
      await client.callTool({ name: "tree__crash", arguments: {} });
      await waitFor(gone(before), 5000, "the crashed tree to die");
      const tree = gw.running.gateway.pool.get("tree")!;
      await waitFor(() => tree.state === "up", 10_000, "the restart");
      const after = await pids(client);
      assert.notEqual(after.pid, before.pid);
      assert.ok(alive(after.pid) && alive(after.grandchild));
    } finally {
      await client?.close();
      await gw?.stop();
    }
  });

  it("a server removed by a reload is stopped with its whole tree", async () => {
    const gw = await startTestGateway(`
servers:
  tree: ${nodeServer("spawns-grandchild.mjs")}
  other: ${nodeServer("spawns-grandchild.mjs")}
`);
    const client = await httpClient(gw.url);
    try {
      const removed = await pids(client, "tree");
      const kept = await pids(client, "other");
      writeFileSync(
        join(gw.dir, "gateway.yaml"),
        `servers:\n  other: ${nodeServer("spawns-grandchild.mjs")}\n`,
      );
      assert.equal(await gw.running.reload(), true);
      await waitFor(gone(removed), 5000, "the removed tree to die");
      assert.deepEqual(await pids(client, "other"), kept);
    } finally {
      await client.close();
      await gw.stop();
    }
  });
});
