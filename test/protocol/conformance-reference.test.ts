/**
 * The official MCP conformance suite, for each requirement set, run twice against the
 * conformance project's own reference server (`fixtures/servers/reference.mjs`, over HTTP): once
 * directly, once through the gateway, which reaches that server as a 2026-07-28 upstream. So a
 * 2025 client meets a modern upstream (the 2025-11-25 set) and a modern client meets one (the
 * 2026-07-28 set).
 *
 * Through the gateway, every scenario must pass as many checks as it passes directly, and fail
 * none the direct run does not fail — except the scenarios listed under `reference <set>` in
 * `conformance-expected-failures.yaml`, each with its reason, which must still fall short so the
 * list stays honest.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fixture, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { EXPECTED, RUN_MS, runSet, type ScenarioResult } from "./_conformance.ts";

/** Starts the reference server on a free loopback port; resolves its `/mcp` URL. */
function startReference(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn("node", [fixture("reference.mjs")], {
    env: { ...process.env, PORT: "0" },
    stdio: ["ignore", "pipe", "ignore"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (b: Buffer) => {
      out += b.toString();
      const m = /running on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve({ child, url: `${m[1]}/mcp` });
    });
    child.once("exit", () => reject(new Error(`the reference server exited: ${out}`)));
  });
}

/** Whether a scenario through the gateway does as well as directly. */
function asGood(direct: ScenarioResult | undefined, through: ScenarioResult | undefined): boolean {
  if (!through) return false;
  const failedDirectly = new Set(direct?.failed.map((f) => f.split(":")[0]) ?? []);
  return through.passed >= (direct?.passed ?? 0) &&
    through.failed.every((f) => failedDirectly.has(f.split(":")[0]));
}

describe("the official conformance suite: the reference server directly and through the gateway", () => {
  let reference: ChildProcess | undefined;
  let gw: TestGateway;
  let direct: string;
  const dirs: string[] = [];
  before(async () => {
    const started = await startReference();
    reference = started.child;
    direct = started.url;
    gw = await startTestGateway(`servers:\n  ref: { url: "${direct}", prefix: false }\n`);
  });
  after(async () => {
    await gw?.stop();
    if (reference?.pid) process.kill(reference.pid, "SIGKILL");
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("the gateway reaches the reference server as a 2026-07-28 upstream", async () => {
    const s = await (await fetch(`${gw.url}/status.json`)).json() as {
      upstreams: { name: string; protocol: string | null }[];
    };
    assert.equal(s.upstreams.find((u) => u.name === "ref")?.protocol, "modern");
  });

  for (const requirements of ["2025-11-25", "2026-07-28"]) {
    it(`every ${requirements} scenario does as well through the gateway as directly`, {
      timeout: 2 * RUN_MS + 20_000,
    }, async () => {
      const expected = EXPECTED[`reference ${requirements}`] ?? {};
      const dir = () => {
        const d = mkdtempSync(join(tmpdir(), "mcpgw-conformance-"));
        dirs.push(d);
        return d;
      };
      const before = await runSet(direct, requirements, dir());
      const through = await runSet(`${gw.url}/mcp`, requirements, dir());
      assert.ok(before.results.size >= 30, `direct run: ${before.run.stdout.slice(-2000)}`);

      const short = [...before.results.keys()].filter((name) =>
        !asGood(before.results.get(name), through.results.get(name))
      );
      const describe = (name: string) => {
        const d = before.results.get(name);
        const t = through.results.get(name);
        return `${name}: directly ${d?.passed} passed, through ${t?.passed ?? "no result"}; ` +
          (t?.failed.join("; ") ?? "");
      };
      assert.deepEqual(
        short.filter((name) => !(name in expected)).map(describe),
        [],
        "scenarios doing worse through the gateway, outside the expected list",
      );
      const nowGood = Object.keys(expected).filter((name) => !short.includes(name));
      assert.deepEqual(nowGood, [], "listed but as good as directly: remove them from the list");

      const sum = (r: Map<string, ScenarioResult>) =>
        [...r.values()].reduce((n, s) => n + s.passed, 0);
      const spared = Object.keys(expected).reduce(
        (n, name) => n + (before.results.get(name)?.passed ?? 0),
        0,
      );
      assert.ok(
        sum(through.results) >= sum(before.results) - spared,
        `checks passed: directly ${sum(before.results)}, through ${sum(through.results)}`,
      );
    });
  }
});
