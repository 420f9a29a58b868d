/**
 * The benchmark's CPU pinning (`bench/pinning.ts`): with `taskset` and two allowed CPUs, the
 * server side and the load client get one CPU each, a program started through `onCpu` runs on
 * its CPU only, and so does a child it spawns (the upstream a gateway starts must land on the
 * gateway's CPU). Elsewhere the run is unpinned, and the note says why.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { choosePinning, onCpu, unpinned } from "../bench/pinning.ts";

const allowed = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync("/proc/self/status", "utf8"))
  ?.[1];
const hasTaskset = spawnSync("taskset", ["-c", "0", "true"]).status === 0;
const twoCpus = allowed !== undefined && /[,-]/.test(allowed);

/** `Cpus_allowed_list` of a node child started through `argv`, and of a process it spawns. */
function affinities(argv: readonly string[]): string[] {
  // The grandchild is `grep`, reading its own status.
  const script = `
    const { execFileSync } = require("node:child_process");
    const { readFileSync } = require("node:fs");
    const list = (text) => /^Cpus_allowed_list:\\s*(\\S+)$/m.exec(text)[1];
    const child = execFileSync("grep", ["Cpus_allowed_list", "/proc/self/status"], { encoding: "utf8" });
    process.stdout.write(list(readFileSync("/proc/self/status", "utf8")) + " " + list(child));
  `;
  const run = spawnSync(argv[0]!, [...argv.slice(1), "-e", script], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.trim().split(" ");
}

describe("the benchmark's CPU pinning", () => {
  it("gives the server side and the load client a CPU each, or says why not", () => {
    const pinning = choosePinning();
    if (hasTaskset && twoCpus) {
      assert.ok(pinning.server !== null && pinning.client !== null, pinning.note);
      assert.notEqual(pinning.server, pinning.client);
      assert.match(pinning.note, new RegExp(`CPU ${pinning.server}.*CPU ${pinning.client}`));
    } else {
      assert.deepEqual([pinning.server, pinning.client], [null, null]);
      assert.match(pinning.note, /^unpinned: /);
    }
  });

  it("runs a program and the children it spawns on the CPU it names", {
    skip: hasTaskset && twoCpus ? false : "needs taskset and two CPUs",
  }, () => {
    const { server, client } = choosePinning();
    assert.deepEqual(affinities(onCpu(server, ["node"])), [server, server]);
    assert.deepEqual(affinities(onCpu(client, ["node"])), [client, client]);
    // Unpinned, the program keeps this process's affinity.
    assert.deepEqual(affinities(onCpu(null, ["node"])), [allowed, allowed]);
  });

  it("leaves argv alone when unpinned", () => {
    const none = unpinned("--unpinned");
    assert.equal(none.note, "unpinned: --unpinned");
    assert.deepEqual(onCpu(none.server, ["node", "x.mjs"]), ["node", "x.mjs"]);
    assert.deepEqual(onCpu("1", ["node", "x.mjs"]), ["taskset", "-c", "1", "node", "x.mjs"]);
  });
});
