/**
 * The gateway's core as `serve` builds it, in front of one stdio bench-echo child, booted in a
 * bench process: `./floor-core.ts` calls through it, and `./floor.ts --resident-core` only keeps
 * it beside its own forwarding (the floor's calls never touch it), so what a gateway's resident
 * heap costs a large call — the collector's and allocator's share — can be told apart from what
 * its call path costs.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bootGateway } from "../src/cli/boot.ts";
import { loadConfig } from "../src/config/mod.ts";
import type { Gateway } from "../src/gateway/mod.ts";
import { setLogLevel } from "../src/shared/log.ts";

const BENCH_ECHO = join(import.meta.dirname!, "../test/fixtures/servers/bench-echo.mjs");

/** Boots the core (the same config shape as the bench's gateway rows); the caller stops it. */
export async function bootBenchCore(): Promise<Gateway> {
  // Its logs would interleave with the bench's progress lines; the gateway rows' go to a file.
  setLogLevel("error");
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-bench-core-"));
  const file = join(dir, "gateway.yaml");
  writeFileSync(
    file,
    `servers:\n  bench: { command: node, args: [${JSON.stringify(BENCH_ECHO)}] }\n`,
  );
  const { gateway } = await bootGateway(await loadConfig(file), false, {
    watchMacros: false,
    startWaitMs: 30_000,
    recordPins: false,
  });
  rmSync(dir, { recursive: true, force: true });
  return gateway;
}
