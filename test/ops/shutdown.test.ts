/**
 * The real process: /readyz during start-up, graceful shutdown on SIGTERM (in-flight calls
 * finish, new requests are refused, exit code 0) and no descendant left behind.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { httpClient, nodeServer, textOf, waitFor } from "../_helpers/gateway.ts";
import { alive, descendants, signal, spawnGateway } from "./_ops.ts";

function configFile(yaml: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "mcpgw-ops-")), "gateway.yaml");
  writeFileSync(file, yaml);
  return file;
}

describe("gateway process lifecycle", () => {
  it("answers /readyz 503 until the first start completes, then 200", async () => {
    const gw = await spawnGateway(configFile(`
servers:
  late: ${nodeServer("slow-start.mjs", "env: { SLOW_START_MS: '5000' }")}
`));
    try {
      assert.equal((await fetch(`${gw.url}/healthz`)).status, 200);
      const early = await fetch(`${gw.url}/readyz`);
      assert.equal(early.status, 503);
      assert.deepEqual(await early.json(), { status: "not ready", reason: "starting" });
      await waitFor(
        async () => (await fetch(`${gw.url}/readyz`)).status === 200,
        30_000,
        "/readyz to turn 200",
      );
    } finally {
      await gw.kill();
    }
  });

  it("lets an in-flight call finish on SIGTERM, then exits 0", async () => {
    const gw = await spawnGateway(configFile(`servers:\n  echo: ${nodeServer("echo.mjs")}\n`));
    try {
      const client = await httpClient(gw.url);
      let signalled = false;
      const result = client.callTool(
        { name: "echo__slow", arguments: { ms: 3000, steps: 3 } },
        undefined,
        {
          onprogress: () => {
            if (!signalled) signal(gw, "SIGTERM");
            signalled = true;
          },
        },
      );
      assert.equal(textOf(await result), "slept 3000ms");
      assert.ok(signalled);
      assert.deepEqual(await gw.exited, { code: 0, signal: null });
      assert.ok(gw.logs.some((l) => l.msg === "draining" && l.inFlight === 1));
    } finally {
      await gw.kill();
    }
  });

  it("refuses new requests with 503 while draining", async () => {
    const gw = await spawnGateway(configFile(`servers:\n  echo: ${nodeServer("echo.mjs")}\n`));
    try {
      const client = await httpClient(gw.url);
      let signalled = false;
      const result = client.callTool(
        { name: "echo__slow", arguments: { ms: 4000, steps: 4 } },
        undefined,
        {
          onprogress: () => {
            if (!signalled) signal(gw, "SIGTERM");
            signalled = true;
          },
        },
      );
      await gw.waitForLog((l) => l.msg === "draining");
      const ready = await fetch(`${gw.url}/readyz`);
      assert.equal(ready.status, 503);
      assert.deepEqual(await ready.json(), { status: "not ready", reason: "draining" });
      const fresh = await fetch(`${gw.url}/mcp`, { method: "POST", body: "{}" });
      assert.equal(fresh.status, 503);
      await result;
      assert.equal((await gw.exited).code, 0);
    } finally {
      await gw.kill();
    }
  });

  it("cuts a call still running at drainTimeout and still exits 0", async () => {
    const gw = await spawnGateway(configFile(`
gateway: { drainTimeout: 1s }
servers:
  hang: ${nodeServer("hang.mjs")}
`));
    try {
      const client = await httpClient(gw.url);
      const call = client.callTool({ name: "hang__hang", arguments: {} }).then(
        (r) => ({ ok: !r.isError }),
        () => ({ ok: false }),
      );
      await waitFor(() => descendants(gw.child.pid!).length > 0, 10_000);
      await new Promise((r) => setTimeout(r, 200)); // let the call reach the upstream
      signal(gw, "SIGTERM");
      assert.deepEqual(await gw.exited, { code: 0, signal: null });
      assert.deepEqual(await call, { ok: false });
      assert.ok(
        gw.logs.some((l) => l.msg === "drain cut short; failing the calls still in flight"),
      );
    } finally {
      await gw.kill();
    }
  });

  it("leaves no descendant process alive after SIGTERM", async () => {
    const gw = await spawnGateway(configFile(`
servers:
  tree: ${nodeServer("spawns-grandchild.mjs")}
  echo: ${nodeServer("echo.mjs")}
`));
    try {
      await gw.waitForLog((l) => l.msg === "ready");
      // Two servers and one grandchild (plus any helper the runtime itself runs).
      const before = descendants(gw.child.pid!);
      assert.ok(before.length >= 3, `descendants: ${before}`);
      signal(gw, "SIGTERM");
      assert.equal((await gw.exited).code, 0);
      await waitFor(() => before.every((p) => !alive(p)), 5000, "every descendant to exit");
    } finally {
      await gw.kill();
    }
  });
});
