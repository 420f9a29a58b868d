/**
 * Code mode against round trips: the same N calls to a real upstream (bench-echo over stdio)
 * made (a) inside one `execute` script as an `mcp.call` fan-out awaited with `task.await`,
 * (b) by a client one by one, (c) by a client all at once. Reports median wall time and the
 * bytes that crossed the client's HTTP connection (request bodies + response bodies) per
 * batch. `bun bench/execute.ts [--runs N] [--calls N]` prints the figures; `bench/run.ts` may
 * call {@link benchExecute}.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { BENCH_ECHO_CONFIG, type GatewayMode, killAll, startGatewayProcess } from "./procs.ts";
import { median } from "./stats.ts";

/** Options for {@link benchExecute}. */
export interface ExecuteBenchOptions {
  gatewayMode: GatewayMode;
  workDir: string;
  /** Batches measured per way (after one warm-up batch each). */
  runs: number;
  /** Calls per batch (50 in the issue). */
  calls: number;
}

/** Median wall time (ms) and wire bytes of one batch, per way. */
export interface ExecuteBenchReport {
  calls: number;
  runs: number;
  execute: { ms: number; bytes: number };
  sequential: { ms: number; bytes: number };
  concurrent: { ms: number; bytes: number };
}

/** A fetch that counts request and response body bytes into `counter.bytes`. */
function countingFetch(counter: { bytes: number }): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    if (typeof init?.body === "string") counter.bytes += new TextEncoder().encode(init.body).length;
    const res = await fetch(input, init);
    if (!res.body) return res;
    const counted = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, ctl) {
          counter.bytes += chunk.byteLength;
          ctl.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: res.status, headers: res.headers });
  }) as typeof fetch;
}

async function connect(url: string, counter: { bytes: number }): Promise<Client> {
  const client = new Client({ name: "bench-execute", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { fetch: countingFetch(counter) }),
  );
  return client;
}

/** Runs the three ways against one gateway process. */
export async function benchExecute(opts: ExecuteBenchOptions): Promise<ExecuteBenchReport> {
  const configFile = join(opts.workDir, "execute.yaml");
  writeFileSync(
    configFile,
    BENCH_ECHO_CONFIG +
      `scripting:\n  execute: true\n`,
  );
  const gateway = await startGatewayProcess({
    mode: opts.gatewayMode,
    configFile,
    expect: ["bench__"],
    logFile: join(opts.workDir, "execute-gateway.log"),
    timeoutMs: 30_000,
  });
  const counter = { bytes: 0 };
  const client = await connect(gateway.url, counter);
  const n = opts.calls;
  const script = `local ids = {}
for i = 1, ${n} do ids[i] = mcp.call("bench__echo", { text = "call " .. i }) end
local ok = 0
for i = 1, ${n} do if not task.await(ids[i]).is_error then ok = ok + 1 end end
return ok`;
  const ways: Record<keyof Omit<ExecuteBenchReport, "calls" | "runs">, () => Promise<void>> = {
    execute: async () => {
      const r = await client.callTool({ name: "execute", arguments: { code: script } });
      const done = (r.structuredContent as { result?: unknown } | undefined)?.result;
      if (r.isError || done !== n) throw new Error(`execute failed: ${JSON.stringify(r)}`);
    },
    sequential: async () => {
      for (let i = 1; i <= n; i++) {
        await client.callTool({ name: "bench__echo", arguments: { text: `call ${i}` } });
      }
    },
    concurrent: async () => {
      await Promise.all(
        Array.from(
          { length: n },
          (_, i) => client.callTool({ name: "bench__echo", arguments: { text: `call ${i + 1}` } }),
        ),
      );
    },
  };
  const report: ExecuteBenchReport = {
    calls: n,
    runs: opts.runs,
    execute: { ms: 0, bytes: 0 },
    sequential: { ms: 0, bytes: 0 },
    concurrent: { ms: 0, bytes: 0 },
  };
  try {
    for (const [name, run] of Object.entries(ways) as [keyof typeof ways, () => Promise<void>][]) {
      await run(); // warm-up: workers spawned, connections open
      const ms: number[] = [];
      const bytes: number[] = [];
      for (let i = 0; i < opts.runs; i++) {
        counter.bytes = 0;
        const t0 = performance.now();
        await run();
        ms.push(performance.now() - t0);
        bytes.push(counter.bytes);
      }
      report[name] = { ms: median(ms), bytes: median(bytes) };
    }
  } finally {
    await client.close().catch(() => {});
    await gateway.stop();
  }
  return report;
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

if ((import.meta as ImportMeta & { main?: boolean }).main) {
  const workDir = mkdtempSync(join(tmpdir(), "mcpgw-bench-execute-"));
  try {
    const r = await benchExecute({
      gatewayMode: "source",
      workDir,
      runs: arg("--runs", 10),
      calls: arg("--calls", 50),
    });
    const row = (label: string, v: { ms: number; bytes: number }) =>
      `| ${label} | ${v.ms.toFixed(1)} | ${v.bytes} | ${(v.ms / r.execute.ms).toFixed(2)}× | ${
        (v.bytes / r.execute.bytes).toFixed(1)
      }× |`;
    console.log(`${r.calls} calls per batch, median of ${r.runs} batches\n`);
    console.log("| way | wall ms | wire bytes | time vs execute | bytes vs execute |");
    console.log("|---|---|---|---|---|");
    console.log(row("execute (mcp.call fan-out + task.await)", r.execute));
    console.log(row("client, one by one", r.sequential));
    console.log(row("client, all at once", r.concurrent));
  } finally {
    killAll();
  }
}
