/**
 * Binding is exclusive: a second gateway started on a port another gateway listens on exits 1
 * naming the address and the process that holds it, and every request keeps reaching the first.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { selfCommand } from "../../src/runtime/mod.ts";
import { type GatewayProcess, startGatewayProcess, stopProcess } from "../_helpers/process.ts";

describe("a port already in use", () => {
  let first: GatewayProcess;
  let dir: string;
  const [cmd, ...pre] = selfCommand();
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "mcpgw-port-"));
    writeFileSync(join(dir, "gateway.yaml"), "servers: {}\n");
    first = await startGatewayProcess(cmd!, [...pre, "--listen", "127.0.0.1:0"], { cwd: dir });
  });
  after(() => stopProcess(first?.child));

  it("makes a second gateway exit 1 naming the address and the holder", async () => {
    const address = new URL(first.url).host;
    const second = spawnSync(cmd!, [...pre, "--listen", address], {
      cwd: dir,
      encoding: "utf8",
      timeout: 20_000,
    });
    assert.equal(second.status, 1, second.stderr);
    assert.match(
      second.stderr,
      new RegExp(`cannot listen: ${address.replace(".", "\\.")} is already in use`),
    );
    assert.match(second.stderr, new RegExp(`held by pid ${first.child.pid}\\b`));
    assert.doesNotMatch(second.stderr, /"msg":"listening"/);
    // Every request still reaches the first gateway (no second socket shares the port).
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${first.url}/healthz`);
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
  });
});
