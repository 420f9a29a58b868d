/**
 * Parent side of a load cell: starts `bench/client.ts` in its own process, waits until its
 * sessions are connected and warm, samples the CPU of the processes under test, lets the client
 * run its bounded measured phase, and samples again.
 */
import { createInterface } from "node:readline";
import { join } from "node:path";
import { onCpu } from "./pinning.ts";
import { BUN, cpuMs, ROOT, stopChild, track } from "./procs.ts";

/**
 * Which protocol revision an HTTP client speaks: 2025-11-25 sessions (SDK 1.x), or stateless
 * 2026-07-28 requests (an SDK v2 client pinned to it).
 */
export type Era = "2025-11-25" | "2026-07-28";

/** What the load client is told to do. */
export interface LoadSpec {
  target:
    | { kind: "http"; url: string; era?: Era }
    // The 2025 SSE transport: a GET stream at `url`, calls POSTed to the endpoint it names.
    | { kind: "sse"; url: string }
    | { kind: "stdio"; command: string; args: string[] };
  /** Tool to call, and the name of its string argument that carries the payload. */
  tool: string;
  argName: string;
  /** A tool that answers the upstream's pid, so its CPU can be read too. */
  pidTool?: string;
  /** Check that each answer echoes the payload whole. */
  verify: boolean;
  sessions: number;
  payloadBytes: number;
  warmupCalls: number;
  warmupMs: number;
  maxCalls: number;
  maxMs: number;
}

/** What the load client reports. */
export interface LoadResult {
  type: "result";
  calls: number;
  errors: number;
  firstError: string | null;
  elapsedMs: number;
  p50Ms: number;
  p99Ms: number;
  clientCpuMs: number;
}

/** One measured cell. */
export interface CellRun extends LoadResult {
  callsPerSec: number;
  /** CPU per successful call of each watched process, in ms (NaN when unknown). */
  gatewayCpuPerCall: number;
  upstreamCpuPerCall: number;
  clientCpuPerCall: number;
}

/**
 * Runs one cell; `gatewayPid` is the gateway process to account CPU to (or none), `clientCpu` the
 * CPU the load client is pinned to (unpinned when null).
 */
export async function runCell(
  spec: LoadSpec,
  gatewayPid: number | null,
  onLoaded?: () => void,
  clientCpu: string | null = null,
): Promise<CellRun> {
  const argv = onCpu(clientCpu, [BUN, join(ROOT, "bench/client.ts"), JSON.stringify(spec)]);
  const child = track(argv[0]!, argv.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr = (stderr + String(chunk)).slice(-2000)));
  const lines = createInterface({ input: child.stdout! });
  const queue: string[] = [];
  const waiters: ((line: string | null) => void)[] = [];
  lines.on("line", (line) => (waiters.shift() ?? ((l: string | null) => queue.push(l!)))(line));
  lines.on("close", () => waiters.splice(0).forEach((w) => w(null)));
  // The whole cell is bounded: connect + warm-up + measured phase + a generous margin.
  const limit = setTimeout(() => child.kill("SIGKILL"), spec.warmupMs + spec.maxMs + 60_000);
  const next = async (want: string): Promise<Record<string, unknown>> => {
    for (;;) {
      const line = queue.shift() ??
        await new Promise<string | null>((resolve) => waiters.push(resolve));
      if (line === null) throw new Error(`load client ended early: ${stderr.trim()}`);
      if (!line.startsWith("{")) continue;
      const message = JSON.parse(line) as Record<string, unknown>;
      if (message.type === want) return message;
    }
  };
  try {
    const ready = await next("ready");
    const upstreamPid = typeof ready.upstreamPid === "number" ? ready.upstreamPid : null;
    const before = { gw: pidCpu(gatewayPid), up: pidCpu(upstreamPid) };
    child.stdin!.write("go\n");
    const loaded = onLoaded ? setInterval(onLoaded, 100) : undefined;
    const result = await next("result") as unknown as LoadResult;
    clearInterval(loaded);
    const after = { gw: pidCpu(gatewayPid), up: pidCpu(upstreamPid) };
    const ok = Math.max(1, result.calls - result.errors);
    return {
      ...result,
      callsPerSec: (result.calls - result.errors) / (result.elapsedMs / 1000),
      gatewayCpuPerCall: (after.gw - before.gw) / ok,
      upstreamCpuPerCall: (after.up - before.up) / ok,
      clientCpuPerCall: result.clientCpuMs / ok,
    };
  } finally {
    clearTimeout(limit);
    await stopChild(child, 10_000);
  }
}

function pidCpu(pid: number | null): number {
  return pid === null ? Number.NaN : cpuMs(pid);
}
