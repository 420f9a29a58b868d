/**
 * The request path's own CPU, in process: `bun bench/door.ts [--calls=N] [--reps=N]
 * [--era=2025-11-25|2026-07-28]` starts a gateway with no upstreams (`gateway.exposure: search`,
 * so its own `tool_search` exists) and serves `tools/call tool_search` requests through
 * `RunningGateway.fetch` — the front door, lifecycle, security chain, router, the era's door and
 * the core, exactly as the HTTP server hands them over, without a socket, a client process or an
 * upstream pipe. It prints the CPU per call (µs, this process: the request's construction and
 * the answer's read included) as the median of the repetitions and their range.
 *
 * Across processes, one repetition of the same build moves by 20–40% on a shared 2-core machine
 * (`npm run bench`); here, with nothing crossing a process, it moves by about 10%, so a change of
 * a few per cent to the door is visible in two builds run one after the other. It measures the
 * door and the core, not the upstream leg, and not the runtime's HTTP server.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startGateway } from "../src/cli/serve.ts";
import { parseConfig } from "../src/config/mod.ts";
import { setLogLevel } from "../src/shared/log.ts";
import { median } from "./stats.ts";

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const calls = Number(arg("calls", "20000"));
const reps = Number(arg("reps", "5"));
const era = arg("era", "2025-11-25");

setLogLevel("error");
const dir = mkdtempSync(join(tmpdir(), "mcpgw-door-"));
const yaml = "gateway: { exposure: search }\nservers: {}\n";
writeFileSync(join(dir, "gateway.yaml"), yaml);
const running = await startGateway(parseConfig(yaml, { file: join(dir, "gateway.yaml") }), {
  listen: "127.0.0.1:0",
  watch: false,
});
await running.settled;
const serve = running.fetch!;
const url = `http://127.0.0.1:${running.http!.port}/mcp`;
const base: Record<string, string> = {
  host: new URL(url).host,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": era,
};

/** Posts `body` (with its length stated, as clients do) and reads the answer whole. */
function post(body: unknown, headers: Record<string, string>): Promise<Response> {
  const text = JSON.stringify(body);
  return serve(
    new Request(url, {
      method: "POST",
      headers: { ...headers, "content-length": String(text.length) },
      body: text,
    }),
  );
}

const headers = { ...base };
let callOf: (id: number) => unknown;
if (era === "2025-11-25") {
  const opened = await post({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: era, capabilities: {}, clientInfo: { name: "door", version: "1" } },
  }, base);
  await opened.text();
  headers["mcp-session-id"] = opened.headers.get("mcp-session-id")!;
  await (await post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers)).text();
  callOf = (id) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "tool_search", arguments: { query: "x" } },
  });
} else {
  headers["mcp-method"] = "tools/call";
  headers["mcp-name"] = "tool_search";
  callOf = (id) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name: "tool_search",
      arguments: { query: "x" },
      _meta: {
        "io.modelcontextprotocol/protocolVersion": era,
        "io.modelcontextprotocol/clientInfo": { name: "door", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  });
}

async function run(n: number): Promise<void> {
  for (let i = 1; i <= n; i++) {
    const text = await (await post(callOf(i), headers)).text();
    if (i === 1 && !text.includes('"result"')) throw new Error(`not a result: ${text}`);
  }
}

try {
  await run(calls); // warm-up: every function of the path reaches its top tier
  const perCall: number[] = [];
  for (let r = 0; r < reps; r++) {
    const before = process.cpuUsage();
    await run(calls);
    const used = process.cpuUsage(before);
    perCall.push((used.user + used.system) / calls);
  }
  const low = Math.min(...perCall).toFixed(1);
  const high = Math.max(...perCall).toFixed(1);
  console.log(
    `${era}: ${median(perCall).toFixed(1)} µs of CPU per call (${reps} × ${calls} calls, ` +
      `range ${low}–${high})`,
  );
} finally {
  await running.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
