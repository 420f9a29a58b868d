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
 * correct tool is not in the first 10, with the top three hits), `--no-embeddings` (skip the run
 * with a real embedding model fused in; the tiny slice never runs it).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BUN,
  DENO,
  gatewayCommand,
  type GatewayMode,
  killAll,
  ROOT,
  startPortPrinter,
} from "./procs.ts";
import { loadNow } from "./machine.ts";
import { median, quantile } from "./stats.ts";
import { loadCatalog } from "./discovery/catalog.ts";
import { callTool, listAllTools, REPLAY_SERVER, startGateway } from "./discovery/gateway.ts";
import { repeatedRun, repeatedUpstreams, scaleRun, totalTools } from "./discovery/catalogs.ts";
import { tokens } from "./discovery/measure.ts";
import { loadQueries, QUERY_CLASSES, runQueries, visible } from "./discovery/ranking.ts";
import {
  type DiscoveryReport,
  goalLines,
  renderDiscovery,
  replaceSection,
} from "./discovery/report.ts";
import { runTask, TASKS } from "./discovery/tasks.ts";
import { semanticRun } from "./discovery/semantic.ts";

/** How much to measure: everything, or a slice that runs in seconds. */
export interface DiscoveryOptions {
  size: "full" | "tiny";
  gatewayMode?: GatewayMode;
  /** Also rank with a real embedding model fused in (default: on for the full run). */
  embeddings?: boolean;
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
      let semantic;
      if (opts.embeddings ?? opts.size === "full") {
        say("fused with a real embedding model");
        semantic = await semanticRun(workDir, mode, queries, {
          upstreams: catalog.map((s) => ({ name: s.name, stdio: s.name })),
          base: same,
          tools: toolCount,
        }, {
          ...repeatedUpstreams(http.url, catalog, copies),
          tools: toolCount * copies,
          copies,
        });
      }
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
        ...(semantic === undefined ? {} : { semantic }),
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
    ...(args.includes("--no-embeddings") ? { embeddings: false } : {}),
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
