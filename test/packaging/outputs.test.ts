/**
 * Build and benchmark outputs never clobber tracked or native files: a cross build has its own
 * binary name, and a quick benchmark run its own (untracked) report.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, it } from "node:test";
import { benchOutFile } from "../../bench/run.ts";
import { buildOutput } from "../../scripts/build-output.ts";
import { ROOT } from "../_helpers/gateway.ts";

describe("build and benchmark outputs", () => {
  it("a native build writes dist/mcp-gateway", () => {
    assert.deepEqual(buildOutput([]), { out: "dist/mcp-gateway", target: null });
  });

  it("a cross build writes dist/mcp-gateway-<target>, in either flag form", () => {
    assert.equal(buildOutput(["--target=bun-linux-arm64"]).out, "dist/mcp-gateway-linux-arm64");
    assert.equal(
      buildOutput(["--target", "bun-darwin-x64-baseline"]).out,
      "dist/mcp-gateway-darwin-x64-baseline",
    );
  });

  it("a full benchmark run writes bench/RESULTS.md, a quick one bench/results-quick.md", () => {
    assert.equal(benchOutFile([]), join(ROOT, "bench/RESULTS.md"));
    assert.equal(benchOutFile(["--quick"]), join(ROOT, "bench/results-quick.md"));
    assert.equal(benchOutFile(["--quick", "--out=-"]), "-");
  });

  it("the quick report is ignored by git, the reference report is tracked", () => {
    const ignored = (file: string) =>
      spawnSync("git", ["check-ignore", "-q", file], { cwd: ROOT }).status === 0;
    assert.equal(ignored("bench/results-quick.md"), true);
    assert.equal(ignored("bench/RESULTS.md"), false);
  });
});
