/**
 * The discovery benchmark in one command: `npm run bench:discovery` (`bun bench/discovery.ts`).
 * It starts the real gateway with `exposure: search` in front of replays of real MCP servers
 * (`bench/discovery/catalog/`), sends every task description of `bench/discovery/queries.json` as
 * a `tool_search`, and measures ranking, latency, tokens per answer, five multi-step tasks done
 * with plain calls and with `execute`, the same servers repeated, and search at 20,000 tools.
 * It prints every goal as MET or MISSED and writes its section of `bench/RESULTS.md`.
 *
 * Flags: `--gateway=auto|binary|source|deno`, `--out=FILE` (`-` to only print), `--tiny` (a few
 * servers and queries: the end-to-end check the tests run), `--misses` (print each query whose
 * correct tool is not in the first 10, with the top three hits).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSearchIndex, type ToolDescriptor } from "../src/discovery/mod.ts";
import {
  BUN,
  cpuMs,
  DENO,
  gatewayCommand,
  type GatewayMode,
  killAll,
  memBytes,
  ROOT,
  startPortPrinter,
} from "./procs.ts";
import { loadNow } from "./machine.ts";
import { median, quantile, sleep } from "./stats.ts";
import { type CapturedServer, loadCatalog } from "./discovery/catalog.ts";
import {
  callTool,
  listAllTools,
  REPLAY_SERVER,
  startGateway,
  type Upstream,
} from "./discovery/gateway.ts";
import { tokens } from "./discovery/measure.ts";
import {
  type BenchQuery,
  loadQueries,
  QUERY_CLASSES,
  runQueries,
  visible,
} from "./discovery/ranking.ts";
import {
  type DiscoveryReport,
  goalLines,
  renderDiscovery,
  replaceSection,
} from "./discovery/report.ts";
import { runTask, TASKS } from "./discovery/tasks.ts";

/** How much to measure: everything, or a slice that runs in seconds. */
export interface DiscoveryOptions {
  size: "full" | "tiny";
  gatewayMode?: GatewayMode;
  progress?: (line: string) => void;
}

const PLANS = {
  full: {
    servers: null as string[] | null,
    perClass: Infinity,
    describes: Infinity,
    tasks: TASKS.length,
    repeatedTools: 5000,
    scaleTools: 20_000,
    scaleQueries: 300,
  },
  tiny: {
    servers: ["github", "slack", "filesystem", "memory"],
    perClass: 3,
    describes: 5,
    tasks: 1,
    repeatedTools: 150,
    scaleTools: 2000,
    scaleQueries: 10,
  },
};

/** Runs the discovery benchmark; kills every process it started, however it ends. */
export async function runDiscovery(opts: DiscoveryOptions): Promise<DiscoveryReport> {
  const plan = PLANS[opts.size];
  const mode = opts.gatewayMode ?? "auto";
  const say = opts.progress ?? ((line: string) => process.stderr.write(`discovery: ${line}\n`));
  const workDir = mkdtempSync(join(tmpdir(), "mcpgw-discovery-"));
  const t0 = performance.now();
  const loadAtStart = loadNow();
  const catalog = loadCatalog().filter((s) => plan.servers?.includes(s.name) ?? true);
  const names = new Set(catalog.map((s) => s.name));
  const queries = QUERY_CLASSES.flatMap((c) =>
    loadQueries()
      .filter((q) => q.class === c && q.correct.some((ref) => names.has(ref.server)))
      .slice(0, plan.perClass)
  );
  const toolCount = catalog.reduce((n, s) => n + s.tools.length, 0);
  const same = (server: string) => server;
  try {
    say(`catalog: ${catalog.length} servers, ${toolCount} tools; ${queries.length} queries`);
    const main = await startGateway({
      mode,
      workDir,
      label: "catalog",
      upstreams: catalog.map((s) => ({ name: s.name, stdio: s.name })),
      allProfile: true,
    });
    let listTokens;
    let ranking;
    let describeTokens: number[];
    const tasks = [];
    try {
      listTokens = {
        all: tokens(await listAllTools(`${main.url}/mcp/all`)),
        search: tokens(await listAllTools(`${main.url}/mcp`)),
      };
      say("ranking");
      ranking = await runQueries(main.client, queries, same, true);
      say("tool_describe");
      describeTokens = [];
      for (const server of catalog) {
        for (const tool of server.tools) {
          if (describeTokens.length >= plan.describes) break;
          const args = { name: `${server.name}__${tool.name}` };
          const described = await callTool(main.client, "tool_describe", args);
          if (described.isError) throw new Error(`tool_describe ${args.name} failed`);
          describeTokens.push(tokens(visible(described)));
        }
      }
      for (const task of TASKS.slice(0, plan.tasks)) {
        if (!task.steps.every((s) => names.has(s.tool.server))) continue;
        say(`task: ${task.name}`);
        tasks.push(await runTask(main.client, task));
      }
    } finally {
      await main.stop();
    }

    // One HTTP replay of every captured server behind the many upstream entries below.
    const http = await startPortPrinter("replay server", BUN, [REPLAY_SERVER, "--http"]);
    try {
      const copies = Math.max(2, Math.round(plan.repeatedTools / toolCount));
      say(`repeated: ${catalog.length} servers × ${copies}`);
      const repeated = await repeatedRun(workDir, mode, http.url, catalog, copies, queries);
      const scaleCopies = Math.max(1, Math.ceil(plan.scaleTools / totalTools()));
      say(`scale: the whole catalog × ${scaleCopies}`);
      const scale = await scaleRun(
        workDir,
        mode,
        http.url,
        scaleCopies,
        queries,
        plan.scaleQueries,
      );
      return {
        size: opts.size,
        date: new Date().toISOString().slice(0, 10),
        commit: spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT }).stdout
          ?.toString().trim() || "unknown",
        gateway: gatewayCommand(mode).label,
        servers: catalog.length,
        tools: toolCount,
        queries: queries.length,
        listTokens,
        ranking,
        searchMs: { median: median(ranking.latenciesMs), p95: quantile(ranking.latenciesMs, 0.95) },
        searchTokens: {
          median: Math.round(median(ranking.answerTokens)),
          max: Math.max(...ranking.answerTokens),
        },
        describeTokens: {
          median: Math.round(median(describeTokens)),
          p90: quantile(describeTokens, 0.9),
          max: Math.max(...describeTokens),
          tools: describeTokens.length,
        },
        tasks,
        repeated: { ...repeated, copies },
        scale,
        misses: ranking.misses,
        loadAtStart,
        seconds: (performance.now() - t0) / 1000,
      };
    } finally {
      await http.stop();
    }
  } finally {
    killAll();
    rmSync(workDir, { recursive: true, force: true });
  }
}

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

function totalTools(): number {
  return loadCatalog().reduce((n, s) => n + s.tools.length, 0);
}

/** Every server added `copies` times (`<name>-<k>`), as teams adding the same servers would. */
async function repeatedRun(
  workDir: string,
  mode: GatewayMode,
  url: string,
  catalog: readonly CapturedServer[],
  copies: number,
  queries: readonly BenchQuery[],
) {
  const base = new Map<string, string>();
  const upstreams: Upstream[] = [];
  for (let k = 1; k <= copies; k++) {
    for (const s of catalog) {
      const name = `${s.name}-${k}`;
      base.set(name, s.name);
      upstreams.push({ name, url: `${url}/${s.name}` });
    }
  }
  const gw = await startGateway({
    mode,
    workDir,
    label: "repeated",
    upstreams,
    timeoutMs: 120_000,
  });
  try {
    const run = await runQueries(gw.client, queries, (s) => base.get(s) ?? s, false);
    const tools = catalog.reduce((n, s) => n + s.tools.length, 0) * copies;
    return { all: run.all, byClass: run.byClass, byHalf: run.byHalf, tools };
  } finally {
    await gw.stop();
  }
}

/**
 * The whole catalog served `copies` times: search latency at that size, and what the first
 * search after start (the index build) costs in time and resident memory.
 */
async function scaleRun(
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

/** Writes the section into `file` (created when missing), formatted as `deno fmt` would. */
export function writeSection(file: string, report: DiscoveryReport): void {
  const text = existsSync(file) ? readFileSync(file, "utf8") : "";
  writeFileSync(file, replaceSection(text, renderDiscovery(report)));
  spawnSync(DENO, ["fmt", "--quiet", file], { stdio: "ignore" });
}

if ((import.meta as ImportMeta & { main?: boolean }).main) {
  const args = process.argv.slice(2);
  const flag = (name: string) =>
    args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const onSignal = () => {
    killAll();
    process.exit(130);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const report = await runDiscovery({
    size: args.includes("--tiny") ? "tiny" : "full",
    gatewayMode: (flag("gateway") ?? "auto") as GatewayMode,
  });
  for (const line of goalLines(report)) console.log(line);
  if (args.includes("--misses")) {
    for (const m of report.misses) console.log(`miss ${m.id} "${m.query}" → ${m.top.join(", ")}`);
  }
  const out = flag("out") ?? join(ROOT, "bench/RESULTS.md");
  if (out === "-") console.log(renderDiscovery(report));
  else {
    writeSection(out, report);
    process.stderr.write(`discovery: wrote its section of ${out}\n`);
  }
  process.exit(0);
}
