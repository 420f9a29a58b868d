/**
 * The real gateway for the discovery benchmark: a config of replayed servers written to a work
 * folder, the gateway process started on a loopback port (compiled binary when current, else
 * from source), readiness awaited through `/readyz` until every server is up, and an MCP client
 * that reports each answer's size in tokens.
 */
import type { ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { BUN, type GatewayMode, ROOT, startGatewayProcess } from "../procs.ts";
import { sleep } from "../stats.ts";
import { listToolPages } from "./catalog.ts";

/** The stdio replay server. */
export const REPLAY_SERVER = join(ROOT, "bench/discovery/replay-server.ts");

/** One upstream entry: a captured server replayed over stdio, or a path of the HTTP replay. */
export type Upstream =
  | { name: string; stdio: string }
  | { name: string; url: string };

/** Everything a run needs to start one gateway. */
export interface GatewaySpec {
  mode: GatewayMode;
  workDir: string;
  label: string;
  upstreams: readonly Upstream[];
  /** A profile named `all` with `exposure: all` beside the search-mode `/mcp`. */
  allProfile?: boolean;
  timeoutMs?: number;
  /** `discovery.embeddings`: the endpoint and model of the semantic ranking. */
  embeddings?: { url: string; model: string };
}

/** A running gateway with a connected client. */
export interface RunningGateway {
  pid: number;
  url: string;
  client: Client;
  /** Spawn to every upstream up, in ms. */
  readyMs: number;
  stop(): Promise<void>;
}

function configFor(spec: GatewaySpec, stateDir: string): object {
  const servers: Record<string, object> = {};
  for (const u of spec.upstreams) {
    servers[u.name] = "stdio" in u
      ? { command: BUN, args: [REPLAY_SERVER, `--server=${u.stdio}`], protocol: "legacy" }
      : { url: u.url, transport: "streamable-http", protocol: "legacy" };
  }
  return {
    gateway: { separator: "__", exposure: "search", state: stateDir, pin: "off" },
    servers,
    ...(spec.allProfile ? { profiles: { all: { tools: ["*"], exposure: "all" } } } : {}),
    // A model on a shared CPU embeds a batch of tool texts in seconds, not milliseconds.
    ...(spec.embeddings
      ? { discovery: { embeddings: { ...spec.embeddings, timeout: "600s" } } }
      : {}),
  };
}

/**
 * Starts the gateway and waits (bounded) until `/readyz` counts every upstream up: in search
 * mode `tools/list` shows only the meta-tools, whatever has started behind them.
 */
export async function startGateway(spec: GatewaySpec): Promise<RunningGateway> {
  const dir = join(spec.workDir, spec.label);
  mkdirSync(join(dir, "state"), { recursive: true });
  const configFile = join(dir, "gateway.yaml");
  const logFile = join(dir, "gateway.log");
  // JSON is YAML: the config needs no serializer of its own.
  writeFileSync(configFile, JSON.stringify(configFor(spec, join(dir, "state")), null, 2));
  const timeoutMs = spec.timeoutMs ?? 60_000;
  const t0 = performance.now();
  const gateway = await startGatewayProcess({
    mode: spec.mode,
    configFile,
    expect: ["tool_search"],
    logFile,
    timeoutMs,
  });
  try {
    await waitReady(gateway.url, spec.upstreams.length, gateway.child, t0 + timeoutMs);
  } catch (err) {
    await gateway.stop();
    throw new Error(`${spec.label}: ${String(err)} (log: ${logFile})`);
  }
  const readyMs = performance.now() - t0;
  const client = new Client({ name: "bench-discovery", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
  return {
    pid: gateway.pid,
    url: gateway.url,
    client,
    readyMs,
    stop: async () => {
      await client.close().catch(() => {});
      await gateway.stop();
    },
  };
}

async function waitReady(url: string, total: number, child: ChildProcess, deadline: number) {
  let last = "not listening";
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`gateway exited with code ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
      const body = await res.json() as { up?: number; total?: number };
      if (body.up === total && body.total === total) return;
      last = `${body.up}/${body.total} upstreams up`;
    } catch (err) {
      last = String(err);
    }
    await sleep(25);
  }
  throw new Error(`gateway not ready in time: ${last}`);
}

/** A plain `tools/call` (no output-schema validation in the client: the benchmark measures). */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  return await client.request(
    { method: "tools/call", params: { name, arguments: args } },
    CallToolResultSchema,
    { timeout: 60_000 },
  ) as Record<string, unknown>;
}

/** The whole `tools/list` of an endpoint, every page. */
export async function listAllTools(url: string): Promise<Tool[]> {
  const client = new Client({ name: "bench-discovery-list", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    return await listToolPages(client);
  } finally {
    await client.close().catch(() => {});
  }
}
