/**
 * The load generator, run as its own process (`bun bench/client.ts SPEC-JSON`) so the client's
 * CPU never shares a thread with the gateway or the upstream it measures. It connects SDK
 * clients (1.x sessions, or v2 clients pinned to 2026-07-28 for the stateless era), warms up, prints `{"type":"ready"}`, waits for `go` on stdin, runs the measured phase
 * (bounded by a call count and a time limit), and prints one `{"type":"result"}` line.
 */
import { createInterface } from "node:readline";
import { type Caller, connectCallers } from "./callers.ts";
import type { LoadResult, LoadSpec } from "./load.ts";
import { quantile } from "./stats.ts";

const spec = JSON.parse(process.argv[2] ?? "{}") as LoadSpec;
const payload = "x".repeat(spec.payloadBytes);
const args = { [spec.argName]: payload };

/** Runs `loops` concurrent call loops until `maxCalls` calls started or `maxMs` passed. */
async function drive(clients: Caller[], maxCalls: number, maxMs: number, latencies?: number[]) {
  const deadline = performance.now() + maxMs;
  let started = 0;
  let errors = 0;
  let firstError: string | null = null;
  await Promise.all(clients.map(async (client) => {
    while (started < maxCalls && performance.now() < deadline) {
      started++;
      const t = performance.now();
      try {
        const result = await client.callTool({ name: spec.tool, arguments: args });
        const text = (result.content as { text?: string }[])[0]?.text ?? "";
        if (result.isError || (spec.verify && text.length !== payload.length)) {
          throw new Error(`unexpected result: ${text.slice(0, 200)}`);
        }
        latencies?.push(performance.now() - t);
      } catch (err) {
        errors++;
        firstError ??= String(err);
      }
    }
  }));
  return { calls: started, errors, firstError };
}

const connected = await connectCallers(spec.target, spec.sessions);
const clients = connected.callers;
let upstreamPid: number | null = null;
if (spec.pidTool) {
  const result = await clients[0]!.callTool({ name: spec.pidTool, arguments: {} });
  upstreamPid = Number((result.content as { text?: string }[])[0]?.text) || null;
}
await drive(clients, spec.warmupCalls, spec.warmupMs);
console.log(JSON.stringify({ type: "ready", upstreamPid }));

const lines = createInterface({ input: process.stdin });
const go = await new Promise<boolean>((resolve) => {
  lines.once("line", (line) => resolve(line.trim() === "go"));
  lines.once("close", () => resolve(false));
});
if (go) {
  const latencies: number[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const run = await drive(clients, spec.maxCalls, spec.maxMs, latencies);
  const elapsedMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const result: LoadResult = {
    type: "result",
    calls: run.calls,
    errors: run.errors,
    firstError: run.firstError,
    elapsedMs,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    clientCpuMs: (cpu.user + cpu.system) / 1000,
  };
  console.log(JSON.stringify(result));
}
lines.close();
await connected.close();
process.exit(0);
