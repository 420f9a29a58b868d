/**
 * No child outlives the gateway, whatever state it is in when SIGTERM comes: a silent server in
 * the middle of its second handshake, one waiting out its restart backoff while a drain holds
 * the gateway open, beside servers that crash at start, hang calls and write junk. Every
 * fixture records its pid in a file, so a process started a moment before the signal is seen
 * too; each scenario runs a few times because the original leak depended on timing.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { httpClient, nodeServer, waitFor } from "../_helpers/gateway.ts";
import {
  alive,
  type GatewayProcess,
  groupMembers,
  recordedPids,
  signal,
  spawnGateway,
  withEnv,
} from "./_ops.ts";

const ROUNDS = 3;
/** The compiled binary when the test command built one, else this runtime on the source. */
const COMMAND = process.env.MCPGW_BINARY ? [process.env.MCPGW_BINARY] : undefined;

function setup(silent: string, hanging = ""): { config: string; pids: string } {
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-cleanup-"));
  const pids = join(dir, "pids");
  const env = (tag: string) => `env: { PIDS_FILE: ${JSON.stringify(pids)}, FIXTURE_TAG: ${tag} }`;
  const config = join(dir, "gateway.yaml");
  writeFileSync(
    config,
    `
gateway: { drainTimeout: 1s }
servers:
  silent: ${nodeServer("no-handshake.mjs", `${env("silent")}, ${silent}`)}
  crashing: ${
      nodeServer("exit-at-start.mjs", `${env("crashing")}, restart: { initialDelay: 100ms }`)
    }
  hanging: ${nodeServer("hang.mjs", `${env("hanging")}${hanging}`)}
  garbage: ${nodeServer("junk-stdout.mjs", env("garbage"))}
`,
  );
  return { config, pids };
}

/**
 * Every fixture process of this run still alive: recorded in the pids file, in the process
 * group of one that was, or carrying the file's name in its environment (a child that was
 * still starting when the gateway exited has not written its pid yet).
 */
function survivors(pids: string): number[] {
  const recorded = recordedPids(pids).map((p) => p.pid);
  return [
    ...new Set([
      ...recorded.filter(alive),
      ...groupMembers(recorded),
      ...withEnv("PIDS_FILE", pids),
    ]),
  ];
}

/** Waits for exit, then asserts nothing survived (and kills survivors so the test leaks none). */
async function assertAllGone(gw: GatewayProcess, pids: string): Promise<void> {
  assert.deepEqual(await gw.exited, { code: 0, signal: null });
  // Bounded grace for the kernel to deliver the last SIGKILLs; a leak stays alive for good.
  await waitFor(() => survivors(pids).length === 0, 1500).catch(() => {});
  const left = survivors(pids);
  for (const pid of left) {
    try {
      process.kill(pid, "SIGKILL");
    } catch { /* gone */ }
  }
  assert.deepEqual(left, [], `processes left behind: ${JSON.stringify(recordedPids(pids))}`);
}

const downs = (gw: GatewayProcess, server: string) =>
  gw.logs.filter((l) => l.component === `gateway.upstream.${server}` && l.msg === "upstream down");

describe("no child survives SIGTERM", () => {
  it("kills a silent server caught in its second handshake", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { config, pids } = setup(
        "connectTimeout: 800ms, restart: { initialDelay: 100ms, maxDelay: 100ms }",
      );
      const gw = await spawnGateway(config, COMMAND);
      try {
        await waitFor(
          () => recordedPids(pids).filter((p) => p.tag === "silent").length >= 2,
          20_000,
          "the silent server's second start",
        );
        signal(gw, "SIGTERM");
        await assertAllGone(gw, pids);
      } finally {
        await gw.kill();
      }
    }
  });

  it("starts nothing new from a backoff timer once shutdown began, and kills the rest", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      // The drain holds the gateway open for 1s (a hung call) while the silent server's
      // 400ms backoff runs out: a timer that still fired would start a child mid-shutdown.
      const { config, pids } = setup(
        "connectTimeout: 1500ms, restart: { initialDelay: 400ms, maxDelay: 400ms }",
        ", timeout: 30s",
      );
      const gw = await spawnGateway(config, COMMAND);
      try {
        await gw.waitForLog((l) => l.msg === "ready");
        const client = await httpClient(gw.url);
        const call = client.callTool({ name: "hanging__hang", arguments: {} }).catch(() => null);
        await new Promise((r) => setTimeout(r, 200)); // let the call reach the upstream
        const seen = downs(gw, "silent").length;
        await waitFor(() => downs(gw, "silent").length > seen, 20_000, "silent to go down");
        const before = recordedPids(pids).filter((p) => p.tag === "silent").length;
        signal(gw, "SIGTERM");
        await assertAllGone(gw, pids);
        await call;
        await client.close().catch(() => {});
        const after = recordedPids(pids).filter((p) => p.tag === "silent").length;
        assert.equal(after, before, "a silent server was started after SIGTERM");
        assert.ok(
          gw.logs.some((l) => l.msg === "drain cut short; failing the calls still in flight"),
        );
      } finally {
        await gw.kill();
      }
    }
  });
});
