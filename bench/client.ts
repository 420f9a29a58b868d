/**
 * The load generator, run as its own process (`bun bench/client.ts SPEC-JSON`) so the client's
 * CPU never shares a thread with the gateway or the upstream it measures. It connects SDK
 * clients (1.x sessions, or v2 clients pinned to 2026-07-28 for the stateless era), warms up, prints `{"type":"ready"}`, waits for `go` on stdin, runs the measured phase
 * (bounded by a call count and a time limit), and prints one `{"type":"result"}` line.
 */
import { createInterface } from "node:readline";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { LoadResult, LoadSpec } from "./load.ts";
import { quantile } from "./stats.ts";

const spec = JSON.parse(process.argv[2] ?? "{}") as LoadSpec;
const payload = "x".repeat(spec.payloadBytes);
const args = { [spec.argName]: payload };

/** What a call loop needs of a client, whichever SDK line it comes from. */
interface Caller {
  callTool(
    params: { name: string; arguments: Record<string, unknown> },
  ): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * One SDK client per session; stdio has one session per process, so its loops share one. A
 * 2026-07-28 client has no session: each of its loops is one client sending stateless requests.
 */
async function connect(): Promise<Caller[]> {
  const make = () => new Client({ name: "bench-client", version: "1.0.0" });
  if (spec.target.kind === "stdio") {
    const client = make();
    await client.connect(
      new StdioClientTransport({
        command: spec.target.command,
        args: spec.target.args,
        stderr: "ignore",
      }),
    );
    return Array.from({ length: spec.sessions }, () => client);
  }
  const url = new URL(spec.target.url);
  if (spec.target.kind === "sse") {
    return await Promise.all(Array.from({ length: spec.sessions }, async () => {
      const client = make();
      await client.connect(new SSEClientTransport(url));
      return client;
    }));
  }
  if (spec.target.era === "2026-07-28") {
    return await Promise.all(Array.from({ length: spec.sessions }, async () => {
      const client = new ModernClient({ name: "bench-client", version: "1.0.0" }, {
        versionNegotiation: { mode: { pin: "2026-07-28" } },
      });
      await client.connect(new ModernTransport(url));
      return client;
    }));
  }
  return await Promise.all(Array.from({ length: spec.sessions }, async () => {
    const client = make();
    const transport = new StreamableHTTPClientTransport(url);
    await client.connect(transport);
    sessions.push(transport);
    return client;
  }));
}

/** HTTP sessions, ended with DELETE at exit so servers do not keep them until idle expiry. */
const sessions: StreamableHTTPClientTransport[] = [];

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

const clients = await connect();
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
await Promise.all(sessions.map((t) => t.terminateSession().catch(() => {})));
await Promise.all([...new Set(clients)].map((c) => c.close().catch(() => {})));
process.exit(0);
