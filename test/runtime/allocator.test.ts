/**
 * The serving gateway restarts itself once, on Bun, with mimalloc's purge delay set
 * (`src/runtime/allocator.ts`): read from the process's own environment as the kernel holds it,
 * with the same PID the test spawned. What an upstream sees is the operator's environment:
 * neither the gateway's setting nor its mark reaches a child, even one that inherits everything;
 * an operator's own value is kept as given and reaches a child that asks for it.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { PURGE_DELAY_MS, runtimeName, selfCommand, tuneAllocator } from "../../src/runtime/mod.ts";
import { type GatewayProcess, startGatewayProcess, stopProcess } from "../_helpers/process.ts";
import { nodeServer, textOf } from "../_helpers/gateway.ts";

const VARIABLE = "MIMALLOC_PURGE_DELAY";
const MARK = "MCPGW_SET_PURGE_DELAY";
const onBun = runtimeName() === "bun";

/** The environment process `pid` was started (or last re-executed) with. */
function startEnvOf(pid: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")) {
    const eq = entry.indexOf("=");
    if (eq > 0) out[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return out;
}

describe("the allocator's purge delay", () => {
  const started: GatewayProcess[] = [];
  after(async () => {
    for (const gw of started) await stopProcess(gw.child);
  });

  /** Starts the gateway from this checkout with `extra` in its environment (and no setting). */
  async function serve(extra: Record<string, string>): Promise<GatewayProcess> {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-allocator-"));
    const config = join(dir, "gateway.yaml");
    writeFileSync(config, `servers:\n  all: ${nodeServer("env.mjs", "inheritEnv: true")}\n`);
    const env = { ...process.env, ...extra };
    if (!(VARIABLE in extra)) delete env[VARIABLE];
    delete env[MARK];
    const [cmd, ...pre] = selfCommand();
    const gw = await startGatewayProcess(
      cmd!,
      [...pre, "--config", config, "--listen", "127.0.0.1:0", "--log-level", "info"],
      { cwd: dir, env, ready: true },
    );
    started.push(gw);
    return gw;
  }

  async function upstreamEnv(url: string): Promise<Record<string, string>> {
    const client = new Client({ name: "allocator-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    try {
      const r = await client.callTool({ name: "all__env", arguments: {} });
      assert.notEqual(r.isError, true, textOf(r));
      return JSON.parse(textOf(r)) as Record<string, string>;
    } finally {
      await client.close();
    }
  }

  it("is set by the serving process's restart, and no upstream inherits it", async () => {
    const gw = await serve({ MCPGW_ALLOCATOR_TEST: "kept" });
    const own = startEnvOf(gw.child.pid!);
    if (onBun) {
      assert.equal(own[VARIABLE], String(PURGE_DELAY_MS), "the restarted process has the delay");
    } else {
      assert.equal(own[VARIABLE], undefined, "Deno's allocator is another: no restart");
    }
    const child = await upstreamEnv(gw.url);
    assert.equal(child.MCPGW_ALLOCATOR_TEST, "kept", "the rest of the environment passes on");
    assert.equal(child[VARIABLE], undefined);
    assert.equal(child[MARK], undefined);
  });

  it("keeps an operator's own value, which a child that inherits everything sees", async () => {
    const gw = await serve({ [VARIABLE]: "10" });
    const own = startEnvOf(gw.child.pid!);
    assert.equal(own[VARIABLE], "10");
    assert.equal(own[MARK], undefined, "not restarted");
    const child = await upstreamEnv(gw.url);
    assert.equal(child[VARIABLE], "10");
    assert.equal(child[MARK], undefined);
  });

  it("gives the restarted process its environment back without restarting again", () => {
    const env: Record<string, string | undefined> = { [VARIABLE]: "1000", [MARK]: "1", KEEP: "y" };
    tuneAllocator(["/nonexistent/mcp-gateway"], env);
    assert.deepEqual(env, onBun ? { KEEP: "y" } : { [VARIABLE]: "1000", [MARK]: "1", KEEP: "y" });
  });
});
