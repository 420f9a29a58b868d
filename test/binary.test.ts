/**
 * The compiled binary, end to end: copied into an empty folder (no node_modules beside it), it
 * serves a real upstream over streamable HTTP. Runs when MCPGW_BINARY names the build (the test
 * command sets it after building); fails if that file is missing.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { fixture, httpClient, textOf } from "./_helpers/gateway.ts";
import { startBinaryInEmptyDir, stopProcess } from "./_helpers/process.ts";

const BINARY = process.env.MCPGW_BINARY;

describe("the compiled binary", {
  skip: BINARY ? false : "MCPGW_BINARY not set (npm test sets it)",
}, () => {
  let dir: string;
  let exe: string;
  let child: ChildProcess | undefined;
  let client: Client | undefined;
  let url = "";

  before(async () => {
    assert.ok(existsSync(BINARY!), `binary not found at ${BINARY}`);
    ({ child, url, dir, exe } = await startBinaryInEmptyDir(
      BINARY!,
      "mcpgw-bin-",
      `servers:\n  echo: { command: node, args: [${JSON.stringify(fixture("echo.mjs"))}] }\n`,
    ));
  });

  after(async () => {
    await client?.close();
    await stopProcess(child);
  });

  it("prints its version from an empty folder", () => {
    const r = spawnSync(exe, ["--version"], { cwd: dir, encoding: "utf8" });
    assert.equal(r.status, 0);
    assert.match(r.stdout, /^mcp-gateway \d+\.\d+\.\d+/);
  });

  it("runs a Lua script in its embedded, sandboxed worker", () => {
    writeFileSync(
      join(dir, "probe.lua"),
      `local r = task.await(mcp.call("echo__echo", { n = 7 }))\n` +
        `return { echoed = r.content, version = _VERSION, io = io == nil }`,
    );
    const r = spawnSync(exe, ["run", "probe.lua", "--log-level", "silent"], {
      cwd: dir,
      encoding: "utf8",
    });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { echoed: '{"n":7}', version: "Lua 5.4", io: true });
  });

  it("serves a real upstream's tools over streamable HTTP", async () => {
    client = await httpClient(url);
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("echo__echo"), names.join(","));
    const r = await client.callTool({ name: "echo__echo", arguments: { from: "binary" } });
    assert.deepEqual(JSON.parse(textOf(r)), { from: "binary" });
  });

  it("exits 0 on SIGTERM", async () => {
    await client?.close();
    client = undefined;
    const exited = new Promise<number | null>((r) => child!.once("exit", (code) => r(code)));
    process.kill(child!.pid!, "SIGTERM"); // Deno's ChildProcess.kill is not a plain kill(2)
    assert.equal(await exited, 0);
  });
});
