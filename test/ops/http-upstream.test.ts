/**
 * An HTTP upstream that goes away: a call that finds its session gone reconnects and is resent;
 * calls fail fast while it is unreachable, and the restart policy brings it back.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  fixture,
  httpClient,
  startTestGateway,
  type TestGateway,
  textOf,
  waitFor,
} from "../_helpers/gateway.ts";

/** Starts the HTTP fixture on `port` (0 = any) and resolves with it and its port. */
function startRemote(port: number): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn("node", [fixture("http-server.mjs")], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /PORT=(\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once("exit", (code) => reject(new Error(`http fixture exited with ${code}`)));
  });
}

async function stopRemote(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
}

describe("an HTTP upstream that goes away", () => {
  let remote: { child: ChildProcess; port: number } | undefined;
  let gw: TestGateway | undefined;
  let client: Client | undefined;
  const setUp = async (restart: string) => {
    remote = await startRemote(0);
    gw = await startTestGateway(`
servers:
  remote:
    url: http://127.0.0.1:${remote.port}/mcp
    transport: streamable-http
    restart: ${restart}
`);
    client = await httpClient(gw.url);
  };
  afterEach(async () => {
    await client?.close();
    await gw?.stop();
    if (remote) await stopRemote(remote.child);
  });

  it("is reconnected by the next call after it restarted, without waiting for a backoff", async () => {
    // A one-minute backoff: only the reconnect on use can make this call succeed.
    await setUp("{ initialDelay: 60s }");
    const firstBoot = textOf(await client!.callTool({ name: "remote__boot", arguments: {} }));
    await stopRemote(remote!.child);
    remote = await startRemote(remote!.port);
    const r = await client!.callTool({ name: "remote__echo", arguments: { back: true } });
    assert.equal(r.isError, undefined, textOf(r));
    assert.deepEqual(JSON.parse(textOf(r)), { back: true });
    const boot = textOf(await client!.callTool({ name: "remote__boot", arguments: {} }));
    assert.notEqual(boot, firstBoot);
    assert.equal(gw!.running.gateway.pool.get("remote")!.restarts, 1);
  });

  it("fails a call at once while it is gone, and comes back by itself when it returns", async () => {
    await setUp("{ initialDelay: 100ms, maxDelay: 500ms }");
    await stopRemote(remote!.child);
    const started = Date.now();
    const r = await client!.callTool({ name: "remote__echo", arguments: { x: 1 } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /server "remote" is down/);
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started}ms`);
    const upstream = gw!.running.gateway.pool.get("remote")!;
    remote = await startRemote(remote!.port);
    await waitFor(() => upstream.state === "up", 15_000, "the upstream to come back");
    const again = await client!.callTool({ name: "remote__echo", arguments: { x: 2 } });
    assert.deepEqual(JSON.parse(textOf(again)), { x: 2 });
  });
});
