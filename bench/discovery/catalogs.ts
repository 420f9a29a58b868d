/**
 * The discovery benchmark's larger catalogs: every server added several times (as teams adding
 * the same servers would), and the whole catalog served many times over for search at scale,
 * each behind its own gateway, with the search also timed in this process on the same index.
 */
import { buildSearchIndex, type ToolDescriptor } from "../../src/discovery/mod.ts";
import { cpuMs, type GatewayMode, memBytes } from "../procs.ts";
import { median, quantile, sleep } from "../stats.ts";
import { type CapturedServer, loadCatalog } from "./catalog.ts";
import { callTool, listAllTools, startGateway, type Upstream } from "./gateway.ts";
import { type BenchQuery, runQueries } from "./ranking.ts";

/**
 * The same catalog searched in this process with the gateway's own index: the ranking's time
 * without the HTTP round trip, which on a shared machine is mostly the machine's.
 */
function inProcessSearch(copies: number, queries: readonly BenchQuery[], count: number) {
  const tools: ToolDescriptor[] = [];
  for (let k = 1; k <= copies; k++) {
    for (const server of loadCatalog()) {
      for (const tool of server.tools) {
        tools.push({
          name: `all-${k}__${server.name}_${tool.name}`,
          server: `all-${k}`,
          description: tool.description ?? "",
          inputSchema: tool.inputSchema,
        });
      }
    }
  }
  const index = buildSearchIndex(tools);
  const times: number[] = [];
  for (let i = 0; i < count * 2; i++) {
    const q = queries[i % queries.length]!;
    const start = performance.now();
    index.search(q.query, {});
    if (i >= count) times.push(performance.now() - start);
  }
  return { medianMs: median(times), p95Ms: quantile(times, 0.95) };
}

export function totalTools(): number {
  return loadCatalog().reduce((n, s) => n + s.tools.length, 0);
}

/** Every server added `copies` times (`<name>-<k>`), as teams adding the same servers would. */
export async function repeatedRun(
  workDir: string,
  mode: GatewayMode,
  url: string,
  catalog: readonly CapturedServer[],
  copies: number,
  queries: readonly BenchQuery[],
) {
  const { upstreams, base } = repeatedUpstreams(url, catalog, copies);
  const gw = await startGateway({
    mode,
    workDir,
    label: "repeated",
    upstreams,
    timeoutMs: 120_000,
  });
  try {
    const run = await runQueries(gw.client, queries, base, false);
    const tools = catalog.reduce((n, s) => n + s.tools.length, 0) * copies;
    return { all: run.all, byClass: run.byClass, byHalf: run.byHalf, tools };
  } finally {
    await gw.stop();
  }
}

/** Upstream entries of every server `copies` times, and the server each copy stands for. */
export function repeatedUpstreams(url: string, catalog: readonly CapturedServer[], copies: number) {
  const bases = new Map<string, string>();
  const upstreams: Upstream[] = [];
  for (let k = 1; k <= copies; k++) {
    for (const s of catalog) {
      const name = `${s.name}-${k}`;
      bases.set(name, s.name);
      upstreams.push({ name, url: `${url}/${s.name}` });
    }
  }
  return { upstreams, base: (s: string) => bases.get(s) ?? s };
}

/**
 * The whole catalog served `copies` times: search latency at that size, and what the first
 * search after start (the index build) costs in time and resident memory.
 */
export async function scaleRun(
  workDir: string,
  mode: GatewayMode,
  url: string,
  copies: number,
  queries: readonly BenchQuery[],
  count: number,
) {
  const upstreams: Upstream[] = Array.from({ length: copies }, (_, i) => ({
    name: `all-${i + 1}`,
    url: `${url}/all`,
  }));
  const gw = await startGateway({ mode, workDir, label: "scale", upstreams, timeoutMs: 120_000 });
  try {
    // The request path warmed first (a listing and a proxied call), so the jump below is the
    // search's own: the index built over the catalog.
    await listAllTools(`${gw.url}/mcp`);
    const [server] = loadCatalog();
    await callTool(gw.client, `all-1__${server!.name}_${server!.tools[0]!.name}`, {});
    await sleep(1000);
    const before = memBytes(gw.pid, "VmRSS");
    const t0 = performance.now();
    await callTool(gw.client, "tool_search", { query: "create an issue" });
    const firstSearchMs = performance.now() - t0;
    const rssJumpBytes = memBytes(gw.pid, "VmRSS") - before;
    const times: number[] = [];
    const cpu0 = cpuMs(gw.pid);
    for (let i = 0; i < count; i++) {
      const q = queries[i % queries.length]!;
      const start = performance.now();
      await callTool(gw.client, "tool_search", { query: q.query });
      times.push(performance.now() - start);
    }
    const gatewayCpuMs = (cpuMs(gw.pid) - cpu0) / count;
    return {
      tools: totalTools() * copies,
      roundTripMs: median(times),
      roundTripP95Ms: quantile(times, 0.95),
      gatewayCpuMs,
      ...inProcessSearch(copies, queries, count),
      firstSearchMs,
      rssJumpBytes,
    };
  } finally {
    await gw.stop();
  }
}
