/**
 * Contained failures: crashes mid-call, restart backoff, hung calls, junk on stdout and stderr
 * floods. Every upstream here is a real misbehaving child process.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  httpClient,
  nodeServer,
  startTestGateway,
  type TestGateway,
  textOf,
  waitFor,
} from "../_helpers/gateway.ts";
import { captureLogs, type LogLine } from "./_ops.ts";

const upstreamLog = (lines: LogLine[], server: string, msg: string) =>
  lines.filter((l) => l.component === `gateway.upstream.${server}` && l.msg === msg);

describe("an upstream that crashes mid-call", () => {
  let gw: TestGateway;
  let client: Client;
  let logs: ReturnType<typeof captureLogs>;
  before(async () => {
    logs = captureLogs("info");
    gw = await startTestGateway(`
servers:
  crashy: ${nodeServer("crash-mid-call.mjs", "restart: { initialDelay: 100ms }")}
  echo: ${nodeServer("echo.mjs")}
`);
    client = await httpClient(gw.url);
  });
  after(async () => {
    await client?.close();
    await gw?.stop();
    logs.restore();
  });

  it("fails the pending call at once instead of waiting for its 60s timeout", async () => {
    const started = Date.now();
    const result = await client.callTool({ name: "crashy__boom", arguments: {} });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /server "crashy" closed the connection during the call/);
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started}ms`);
  });

  it("keeps the other upstreams serving", async () => {
    const result = await client.callTool({ name: "echo__echo", arguments: { still: "here" } });
    assert.deepEqual(JSON.parse(textOf(result)), { still: "here" });
  });

  it("restarts the crashed server, which serves again from a new process", async () => {
    const crashy = gw.running.gateway.pool.get("crashy")!;
    await waitFor(() => crashy.state === "up", 10_000, "crashy to come back");
    assert.ok(crashy.restarts >= 1);
    const result = await client.callTool({ name: "crashy__work", arguments: {} });
    assert.match(textOf(result), /^ok from \d+$/);
  });

  it("logs the crash and the recovery once each", () => {
    assert.equal(upstreamLog(logs.lines, "crashy", "upstream down").length, 1);
    const down = upstreamLog(logs.lines, "crashy", "upstream down")[0]!;
    assert.equal(down.retryInMs, 100);
    assert.match(String(down.error), /exited|closed/);
    // One "up" at start, one after the restart.
    assert.equal(upstreamLog(logs.lines, "crashy", "upstream up").length, 2);
  });
});

describe("restart backoff", () => {
  it("doubles the delay per failure up to maxDelay and gives up after maxRestarts", async () => {
    const logs = captureLogs("info");
    const attempts = join(mkdtempSync(join(tmpdir(), "mcpgw-attempts-")), "attempts");
    const gw = await startTestGateway(`
servers:
  flaky: ${
      nodeServer(
        "exit-at-start.mjs",
        `env: { ATTEMPTS_FILE: ${JSON.stringify(attempts)} }, ` +
          "restart: { initialDelay: 50ms, maxDelay: 200ms, maxRestarts: 4 }",
      )
    }
`);
    try {
      await waitFor(
        () => upstreamLog(logs.lines, "flaky", "upstream down").some((l) => l.gaveUp),
        20_000,
        "the upstream to give up",
      );
      const downs = upstreamLog(logs.lines, "flaky", "upstream down");
      assert.deepEqual(downs.map((l) => l.retryInMs ?? "gave up"), [
        50,
        100,
        200,
        200,
        "gave up",
      ]);
      // Restarts stop for good: wait well past the longest delay and count the starts again.
      await new Promise((r) => setTimeout(r, 800));
      assert.equal(readFileSync(attempts, "utf8").trim().split("\n").length, 5);
      const flaky = gw.running.gateway.pool.get("flaky")!;
      assert.equal(flaky.state, "down");
      assert.match(String(flaky.lastError), /closed|exited/);
    } finally {
      await gw.stop();
      logs.restore();
    }
  });

  it("starts again from the initial delay only after the server stayed up for resetAfter", async () => {
    const logs = captureLogs("info");
    const gw = await startTestGateway(`
servers:
  brief: ${nodeServer("crash-mid-call.mjs", "restart: { initialDelay: 100ms, resetAfter: 60s }")}
  steady: ${nodeServer("crash-mid-call.mjs", "restart: { initialDelay: 100ms, resetAfter: 300ms }")}
`);
    const client = await httpClient(gw.url);
    const pool = gw.running.gateway.pool;
    const crashTwice = async (server: string, upFor: number) => {
      for (let i = 0; i < 2; i++) {
        await waitFor(() => pool.get(server)!.state === "up", 10_000, `${server} up`);
        await new Promise((r) => setTimeout(r, upFor));
        await client.callTool({ name: `${server}__boom`, arguments: {} });
        await waitFor(() => upstreamLog(logs.lines, server, "upstream down").length > i, 10_000);
      }
      return upstreamLog(logs.lines, server, "upstream down").map((l) => l.retryInMs);
    };
    try {
      assert.deepEqual(await crashTwice("brief", 0), [100, 200]);
      assert.deepEqual(await crashTwice("steady", 600), [100, 100]);
    } finally {
      await client.close();
      await gw.stop();
      logs.restore();
    }
  });
});

describe("backoff that forgives", () => {
  it("crashes resetAfter apart restart from the initial delay, however short the run", async () => {
    const logs = captureLogs("info");
    const gw = await startTestGateway(`
servers:
  minute: ${nodeServer("crash-mid-call.mjs", "restart: { initialDelay: 200ms, resetAfter: 1s }")}
`);
    const client = await httpClient(gw.url);
    const pool = gw.running.gateway.pool;
    try {
      // Crashes 1.1 s apart: each run is shorter than resetAfter (the outage is part of the
      // 1.1 s), but the failures themselves are further apart than resetAfter.
      let last = Date.now();
      for (let i = 0; i < 3; i++) {
        await waitFor(() => pool.get("minute")!.state === "up", 10_000, "minute up");
        await new Promise((r) => setTimeout(r, Math.max(0, last + 1_100 - Date.now())));
        last = Date.now();
        await client.callTool({ name: "minute__boom", arguments: {} });
        await waitFor(() => upstreamLog(logs.lines, "minute", "upstream down").length > i, 10_000);
      }
      const delays = upstreamLog(logs.lines, "minute", "upstream down").map((l) => l.retryInMs);
      assert.deepEqual(delays, [200, 200, 200]);
    } finally {
      await client.close();
      await gw.stop();
      logs.restore();
    }
  });
});

describe("upstreams that hang or make noise", () => {
  let gw: TestGateway;
  let client: Client;
  before(async () => {
    gw = await startTestGateway(`
servers:
  hang: ${nodeServer("hang.mjs", "timeout: 1s")}
  junk: ${nodeServer("junk-stdout.mjs")}
  flood: ${nodeServer("stderr-flood.mjs")}
`);
    client = await httpClient(gw.url);
  });
  after(async () => {
    await client?.close();
    await gw?.stop();
  });

  it("ends a hung call at the server's timeout with an error", async () => {
    const started = Date.now();
    const result = await client.callTool({ name: "hang__hang", arguments: {} });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /server "hang" did not answer within 1000ms/);
    assert.ok(Date.now() - started >= 900);
  });

  it("sends the hung server a cancellation for the timed-out request", async () => {
    const seen = await waitFor(
      async () => {
        const r = await client.callTool({ name: "hang__cancellations", arguments: {} });
        const list = JSON.parse(textOf(r)) as { reason: string }[];
        return list.length > 0 ? list : null;
      },
      5000,
      "the cancellation to arrive",
    );
    assert.equal(seen!.length, 1);
    assert.match(seen![0]!.reason, /timed out/i);
    const quick = await client.callTool({ name: "hang__quick", arguments: {} });
    assert.equal(textOf(quick), "quick");
  });

  it("keeps serving a server that writes junk lines to stdout", async () => {
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "junk__noisy"));
    for (let i = 0; i < 3; i++) {
      const r = await client.callTool({ name: "junk__noisy", arguments: { i } });
      assert.equal(textOf(r), `still fine {"i":${i}}`);
    }
    assert.equal(gw.running.gateway.pool.get("junk")!.state, "up");
  });

  it("keeps serving a server that floods stderr", async () => {
    for (let i = 0; i < 3; i++) {
      const r = await client.callTool({ name: "flood__flood", arguments: {} });
      assert.equal(textOf(r), "flooded");
    }
    assert.equal(gw.running.gateway.pool.get("flood")!.state, "up");
  });
});
