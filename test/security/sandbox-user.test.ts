/**
 * The sandbox under a gateway that is not root (the usual service user), run here as `nobody`
 * through `setpriv` by a test started as root (CI runs as root). bubblewrap then makes a user
 * namespace, in which the box's process limit counts only the box's own processes: a fork bomb
 * stops at `processes:` while the same server unboxed starts them all, and the box still cannot
 * write a kernel setting, make a namespace or outgrow its memory limit.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chownSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { selfCommand } from "../../src/runtime/mod.ts";
import { findBwrap } from "../../src/upstream/mod.ts";
import { fixture, httpClient, textOf, waitFor } from "../_helpers/gateway.ts";
import { type GatewayProcess, startGatewayProcess } from "../_helpers/process.ts";

const NOBODY = 65534;

function setprivAvailable(): boolean {
  try {
    execFileSync("setpriv", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const skip = process.getuid?.() !== 0
  ? "needs root, to start the gateway as another user"
  : !findBwrap()
  ? "bwrap is not installed"
  : !setprivAvailable()
  ? "setpriv (util-linux) is not installed"
  : false;

interface Probe {
  kernel: {
    corePattern: { ok: boolean; error?: string };
    userns: { ok: boolean; error?: string };
    seccomp: string;
  } | null;
  children: { started: number; error?: string } | null;
  memory: { ok: boolean; error?: string } | null;
}

describe("a sandboxed server under a gateway run as a plain user", { skip }, () => {
  let gw: GatewayProcess;
  let client: Client;

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-sandbox-user-"));
    const home = join(dir, "home");
    mkdirSync(home);
    const probe = JSON.stringify(fixture("sandbox-probe.mjs"));
    const config = join(dir, "gateway.yaml");
    writeFileSync(
      config,
      `servers:\n` +
        `  boxed: { command: node, args: [${probe}], ` +
        `sandbox: { processes: 32, memory: 256MiB } }\n` +
        `  open: { command: node, args: [${probe}] }\n`,
    );
    for (const p of [dir, home, config]) chownSync(p, NOBODY, NOBODY);
    const [cmd, ...pre] = selfCommand();
    gw = await startGatewayProcess(
      "setpriv",
      [
        `--reuid=${NOBODY}`,
        `--regid=${NOBODY}`,
        "--clear-groups",
        "--",
        cmd!,
        ...pre,
        "--config",
        config,
        "--listen",
        "127.0.0.1:0",
      ],
      {
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: home, DENO_DIR: join(home, "deno") },
        ready: true,
        timeoutMs: 60_000,
      },
    );
    client = await httpClient(gw.url);
    // Servers that start slower than the gateway's start wait join later.
    await waitFor(
      async () => {
        const names = (await client.listTools()).tools.map((t) => t.name);
        return names.includes("boxed__probe") && names.includes("open__probe");
      },
      30_000,
      "both probe servers",
    );
  });
  after(async () => {
    await client?.close();
    if (gw && gw.child.exitCode === null) {
      const exited = new Promise((r) => gw.child.once("exit", r));
      gw.child.kill("SIGTERM");
      await exited;
    }
  });

  async function probe(server: string, args: Record<string, unknown>): Promise<Probe> {
    const r = await client.callTool({ name: `${server}__probe`, arguments: args });
    assert.equal(r.isError, undefined, textOf(r));
    return JSON.parse(textOf(r)) as Probe;
  }

  it("a fork bomb stops at the box's process limit; unboxed, the same processes start", async () => {
    const open = await probe("open", { children: 48 });
    assert.equal(open.children?.started, 48, JSON.stringify(open.children));
    const boxed = await probe("boxed", { children: 48 });
    assert.ok(boxed.children!.started < 32, JSON.stringify(boxed.children));
    assert.equal(boxed.children?.error, "EAGAIN");
  });

  it("cannot write a kernel setting, make a namespace or outgrow its memory", async () => {
    const { kernel, memory } = await probe("boxed", { kernel: true, memory: 320 });
    assert.equal(kernel?.corePattern.ok, false);
    assert.equal(kernel?.userns.ok, false);
    assert.equal(kernel?.seccomp, "2");
    assert.equal(memory?.ok, false, JSON.stringify(memory));
  });
});
