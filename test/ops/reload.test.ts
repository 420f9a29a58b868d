/**
 * Hot reload: an edit of the config file (or SIGHUP) is applied as a diff while sessions stay
 * open; an invalid edit is rejected and the running config keeps serving.
 */
import assert from "node:assert/strict";
import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  httpClient,
  nodeServer,
  startTestGateway,
  type TestGateway,
  textOf,
  waitFor,
} from "../_helpers/gateway.ts";
import { captureLogs, signal, spawnGateway } from "./_ops.ts";

const ONE = `servers:\n  first: ${nodeServer("echo.mjs")}\n`;
const TWO = `${ONE}  second: ${nodeServer("echo.mjs", "env: { ECHO_NAME: second }")}\n`;

describe("reload on a config file edit", () => {
  let gw: TestGateway;
  let client: Client;
  let listChanged = 0;
  let logs: ReturnType<typeof captureLogs>;
  before(async () => {
    logs = captureLogs("info");
    gw = await startTestGateway(ONE);
    client = await httpClient(gw.url);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++);
  });
  after(async () => {
    await client?.close();
    await gw?.stop();
    logs.restore();
  });

  it("tells an open session about an added server, whose tools it can then call", async () => {
    const pidBefore = textOf(await client.callTool({ name: "first__pid", arguments: {} }));
    writeFileSync(join(gw.dir, "gateway.yaml"), TWO);
    await waitFor(() => listChanged > 0, 15_000, "notifications/tools/list_changed");
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "second__echo"));
    const r = await client.callTool({ name: "second__echo", arguments: { via: "same session" } });
    assert.deepEqual(JSON.parse(textOf(r)), { via: "same session" });
    // The unchanged server kept running: same process.
    assert.equal(textOf(await client.callTool({ name: "first__pid", arguments: {} })), pidBefore);
  });

  it("rejects an invalid edit, logs why, and keeps serving the running config", async () => {
    const bad = `${ONE}  second: ${
      nodeServer("echo.mjs", "env: { ECHO_NAME: second }, timeout: 3x")
    }\n`;
    writeFileSync(join(gw.dir, "gateway.yaml"), bad);
    const rejected = await waitFor(
      () => logs.lines.find((l) => l.msg === "config reload rejected; keeping the running config"),
      15_000,
      "the rejection to be logged",
    );
    assert.match(String(rejected!.error), /servers\.second\.timeout/);
    const r = await client.callTool({ name: "second__echo", arguments: { still: 1 } });
    assert.deepEqual(JSON.parse(textOf(r)), { still: 1 });
    assert.deepEqual(gw.running.gateway.pool.all().map((u) => u.state), ["up", "up"]);
  });
});

describe("reload on SIGHUP", () => {
  it("re-reads the config file and applies it", async () => {
    // The config is a symlink to a file in another folder: the folder watch never sees edits
    // of the target, so only SIGHUP can pick this one up.
    const target = join(mkdtempSync(join(tmpdir(), "mcpgw-target-")), "real.yaml");
    writeFileSync(target, ONE);
    const file = join(mkdtempSync(join(tmpdir(), "mcpgw-link-")), "gateway.yaml");
    symlinkSync(target, file);
    const gw = await spawnGateway(file);
    try {
      await gw.waitForLog((l) => l.msg === "ready");
      writeFileSync(target, TWO);
      signal(gw, "SIGHUP");
      const line = await gw.waitForLog((l) =>
        l.msg === "config reloaded" && l.trigger === "SIGHUP"
      );
      assert.deepEqual(line.added, ["second"]);
      const client = await httpClient(gw.url);
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === "second__echo"));
      await client.close();
    } finally {
      await gw.kill();
    }
  });
});
