/**
 * `RunningGateway.fetch` serves a request in process exactly as the HTTP server does — the front
 * door's checks included — and `bench/door.ts`, which measures the request path through it,
 * runs end to end in both eras.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { BUN, ROOT } from "../../bench/procs.ts";
import { startTestGateway, type TestGateway } from "../_helpers/gateway.ts";

describe("serving a request in process", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway("servers: {}\n");
  });
  after(async () => await gw?.stop());

  it("answers as the HTTP server does, through the front door", async () => {
    const serve = gw.running.fetch!;
    const host = new URL(gw.url).host;
    const ok = await serve(new Request(`${gw.url}/healthz`, { headers: { host } }));
    assert.deepEqual([ok.status, await ok.json()], [200, { status: "ok" }]);
    const over = await fetch(`${gw.url}/healthz`);
    assert.equal(over.status, ok.status);
    await over.body?.cancel();
    // The front door's Host check applies in process too.
    const bad = await serve(new Request(`${gw.url}/healthz`, { headers: { host: "a b" } }));
    assert.equal(bad.status, 400);
    await bad.body?.cancel();
  });

  it("is what bench/door.ts measures, in both eras", () => {
    for (const era of ["2025-11-25", "2026-07-28"]) {
      const run = spawnSync(
        BUN,
        [join(ROOT, "bench/door.ts"), "--calls=200", "--reps=2", `--era=${era}`],
        { encoding: "utf8", timeout: 60_000 },
      );
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`^${era}: \\d+\\.\\d µs of CPU per call`));
    }
  });

  it("serves two trees' gateways alternately in one process with --against", () => {
    // This very tree against itself: the method's own reading of no difference.
    const run = spawnSync(
      BUN,
      [join(ROOT, "bench/door.ts"), "--calls=100", "--reps=2", `--against=${ROOT}`],
      { encoding: "utf8", timeout: 60_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout,
      /^2025-11-25: this tree \d+\.\d \(range [\d.–]+\) µs, .+ of CPU per call; this ÷ that per block \d\.\d{3} /,
    );
  });
});
