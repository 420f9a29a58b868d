/**
 * The systemd recipe works as written: the unit passes `systemd-analyze verify`, and the example
 * config with the shipped macros, laid out as docs/DEPLOY.md installs them (/etc/mcp-gateway,
 * commands on PATH, data in $STATE_DIRECTORY), passes `check` and serves every upstream and
 * macro. Uses the compiled binary when MCPGW_BINARY names it, else the source entry point.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { selfCommand } from "../../src/runtime/mod.ts";
import { httpClient, ROOT, textOf } from "../_helpers/gateway.ts";
import { startGatewayProcess, stopProcess } from "../_helpers/process.ts";

const UNIT = join(ROOT, "packaging/mcp-gateway.service");
const hasAnalyze = spawnSync("systemd-analyze", ["--version"]).status === 0;

describe("the systemd unit", () => {
  it("declares Type=exec and starts the installed binary on /etc/mcp-gateway", () => {
    const unit = readFileSync(UNIT, "utf8");
    assert.match(unit, /^Type=exec$/m);
    assert.match(
      unit,
      /^ExecStart=\/usr\/local\/bin\/mcp-gateway --config \/etc\/mcp-gateway\/gateway\.yaml$/m,
    );
    assert.match(unit, /^ExecReload=\/bin\/kill -HUP \$MAINPID$/m);
  });

  it("gives the runtime's allocator its purge delay, in this unit and the per-port one", () => {
    for (const file of [UNIT, join(ROOT, "deploy/mcp-gateway@.service")]) {
      assert.match(readFileSync(file, "utf8"), /^Environment=MIMALLOC_PURGE_DELAY=1000$/m, file);
    }
  });

  it("passes systemd-analyze verify", {
    skip: hasAnalyze ? false : "systemd-analyze not installed (Debian package systemd)",
  }, () => {
    // verify insists that ExecStart exists: point it at a stand-in, nothing else changes.
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-unit-"));
    const stand = join(dir, "mcp-gateway");
    writeFileSync(stand, "#!/bin/sh\n", { mode: 0o755 });
    const unit = readFileSync(UNIT, "utf8").replace(
      /^ExecStart=\/usr\/local\/bin\/mcp-gateway/m,
      `ExecStart=${stand}`,
    );
    writeFileSync(join(dir, "mcp-gateway.service"), unit);
    const r = spawnSync("systemd-analyze", ["verify", join(dir, "mcp-gateway.service")], {
      encoding: "utf8",
    });
    assert.equal(r.status, 0, r.stderr);
    const mine = (r.stdout + r.stderr).split("\n").filter((l) => l.includes("mcp-gateway.service"));
    assert.deepEqual(mine, [], "no warnings about the unit");
  });
});

describe("the example config installed as docs/DEPLOY.md says", () => {
  const etc = mkdtempSync(join(tmpdir(), "mcpgw-etc-"));
  const confDir = join(etc, "etc/mcp-gateway");
  const state = join(etc, "var/lib/mcp-gateway");
  const config = join(confDir, "gateway.yaml");
  // The service's PATH finds globally installed servers; node_modules/.bin stands in for it.
  const env = {
    ...process.env,
    PATH: [join(ROOT, "node_modules/.bin"), process.env.PATH].join(delimiter),
    STATE_DIRECTORY: state,
  };
  const [cmd, ...pre] = process.env.MCPGW_BINARY ? [process.env.MCPGW_BINARY] : selfCommand();
  let child: ChildProcess | undefined;
  let client: Client | undefined;
  let url = "";

  before(async () => {
    mkdirSync(join(confDir, "macros"), { recursive: true });
    mkdirSync(state, { recursive: true });
    copyFileSync(join(ROOT, "packaging/gateway.example.yaml"), config);
    for (const f of readdirSync(join(ROOT, "macros")).filter((f) => f.endsWith(".lua"))) {
      copyFileSync(join(ROOT, "macros", f), join(confDir, "macros", f));
    }
    ({ child, url } = await startGatewayProcess(
      cmd!,
      [...pre, "--config", config, "--listen", "127.0.0.1:0"],
      { cwd: confDir, env, ready: true, timeoutMs: 30_000 },
    ));
  });

  after(async () => {
    await client?.close();
    await stopProcess(child);
  });

  it("passes check", () => {
    const r = spawnSync(cmd!, [...pre, "check", "--config", config], {
      cwd: confDir,
      env,
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /ok — 3 server\(s\).*; 3 macro\(s\)/);
  });

  it("serves all three upstreams and the macros", async () => {
    client = await httpClient(url);
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (
      const n of ["everything__echo", "memory__read_graph", "filesystem__list_directory", "greet"]
    ) {
      assert.ok(names.includes(n), `${n} missing from ${names.join(",")}`);
    }
    assert.ok(names.includes("remember") && names.includes("tiny_gallery"), names.join(","));
    const r = await client.callTool({ name: "greet", arguments: { name: "systemd" } });
    assert.equal(textOf(r), "Hello, systemd! ");
  });

  it("keeps writable data in the state directory", async () => {
    const r = await client!.callTool({
      name: "remember",
      arguments: { subject: "unit", fact: "runs as a dynamic user" },
    });
    assert.ok(!r.isError, textOf(r));
    assert.ok(readdirSync(state).includes("memory.jsonl"), readdirSync(state).join(","));
  });
});
