/**
 * The gateway's footprint with the shipped `gateway.yaml` (three real upstreams): cold start
 * (spawn → first `tools/list` over HTTP that lists every server), idle and loaded RSS, and each
 * upstream's own start-up measured directly, so "≤ 150 ms plus the slowest upstream" can be
 * judged.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { loadConfig, type StdioServerConfig } from "../src/config/mod.ts";
import { type Era, runCell } from "./load.ts";
import { cpuMs, type GatewayMode, memBytes, ROOT, startGatewayProcess } from "./procs.ts";
import { median, sleep } from "./stats.ts";

/** Options for {@link benchFootprint}. */
export interface FootprintOptions {
  reps: number;
  gatewayMode: GatewayMode;
  workDir: string;
  /** How long the idle gateway settles before its RSS is read. */
  settleMs: number;
  /** Length of the loaded phase (8 sessions calling `everything__echo`). */
  loadMs: number;
  /** Start every upstream once, untimed, before timing anything (warms the disk cache). */
  warmup: boolean;
  onStep?: (label: string) => void;
}

/** One upstream's own start-up, measured without the gateway. */
export interface Handshake {
  server: string;
  /** Spawn → `initialize` answered. */
  initializeMs: number;
  /** Spawn → `initialize` and `tools/list` answered (what the gateway needs before it serves). */
  readyMs: number;
}

/** What the footprint part measured. */
export interface FootprintReport {
  servers: string[];
  coldStartMs: number;
  coldStarts: number[];
  /**
   * The gateway's own CPU time (user + system) from spawn to that first full `tools/list`
   * (median): its share of the two cores while the upstreams start beside it.
   */
  coldStartCpuMs: number;
  handshakes: Handshake[];
  slowest: Handshake | null;
  /** Spawn → every upstream ready, all started at once directly (no gateway). */
  allTogetherMs: number;
  /** Spawn → `tools/list` answered by a gateway with no upstreams: its own start-up. */
  emptyGatewayMs: number;
  /** That gateway's CPU time until then (median). */
  emptyGatewayCpuMs: number;
  idleRssBytes: number;
  loadedRssBytes: number;
  peakRssBytes: number;
  loadedCallsPerSec: number;
}

/** The shipped config, with the memory server's file moved into the run's temp folder. */
export const SHIPPED_CONFIG = join(ROOT, "gateway.yaml");

/** Runs cold starts and direct handshakes (interleaved), then one idle + loaded RSS phase. */
export async function benchFootprint(opts: FootprintOptions): Promise<FootprintReport> {
  const env = { MEMORY_FILE_PATH: join(opts.workDir, "memory.jsonl") };
  const config = await loadConfig(SHIPPED_CONFIG, { env: { ...process.env, ...env } });
  const stdio = config.servers.filter((s): s is StdioServerConfig => s.kind === "stdio");
  const servers = config.servers.filter((s) => s.enabled).map((s) => s.name);
  const expect = servers.map((name) => `${name}${config.gateway.separator}`);
  const emptyConfig = join(opts.workDir, "empty.yaml");
  writeFileSync(emptyConfig, "servers: {}\n");
  const start = (configFile = SHIPPED_CONFIG) =>
    startGatewayProcess({
      mode: opts.gatewayMode,
      configFile,
      expect: configFile === SHIPPED_CONFIG ? expect : [],
      env,
      logFile: join(opts.workDir, "footprint-gateway.log"),
    });

  // One untimed round first, so every timed start finds the same warm disk cache.
  if (opts.warmup) { for (const server of stdio) await handshake(server); }
  const times = new Map<string, Handshake[]>();
  const coldStarts: number[] = [];
  const coldCpu: number[] = [];
  const together: number[] = [];
  const empty: number[] = [];
  const emptyCpu: number[] = [];
  for (let rep = 0; rep < opts.reps; rep++) {
    opts.onStep?.(`cold start ${rep + 1}/${opts.reps}`);
    for (const server of stdio) {
      times.set(server.name, [...times.get(server.name) ?? [], await handshake(server)]);
    }
    const t0 = performance.now();
    await Promise.all(stdio.map(handshake));
    together.push(performance.now() - t0);
    const bare = await start(emptyConfig);
    empty.push(bare.readyMs);
    emptyCpu.push(bare.readyCpuMs);
    await bare.stop();
    const gateway = await start();
    coldStarts.push(gateway.readyMs);
    coldCpu.push(gateway.readyCpuMs);
    await gateway.stop();
  }
  const handshakes = [...times.entries()].map(([server, list]) => ({
    server,
    initializeMs: median(list.map((h) => h.initializeMs)),
    readyMs: median(list.map((h) => h.readyMs)),
  }));
  const slowest = handshakes.reduce<Handshake | null>(
    (worst, h) => (worst === null || h.readyMs > worst.readyMs ? h : worst),
    null,
  );

  opts.onStep?.("idle and loaded RSS");
  const gateway = await start();
  try {
    await sleep(opts.settleMs);
    const idleRssBytes = memBytes(gateway.pid, "VmRSS");
    let loadedRssBytes = 0;
    const run = await runCell(
      loadCell(gateway.url, config.gateway.separator, opts.loadMs),
      gateway.pid,
      () => (loadedRssBytes = Math.max(loadedRssBytes, memBytes(gateway.pid, "VmRSS"))),
    );
    return {
      servers,
      coldStartMs: median(coldStarts),
      coldStarts,
      coldStartCpuMs: median(coldCpu),
      handshakes,
      slowest,
      allTogetherMs: median(together),
      emptyGatewayMs: median(empty),
      emptyGatewayCpuMs: median(emptyCpu),
      idleRssBytes,
      loadedRssBytes,
      peakRssBytes: memBytes(gateway.pid, "VmHWM"),
      loadedCallsPerSec: run.errors > 0 ? Number.NaN : run.callsPerSec,
    };
  } finally {
    await gateway.stop();
  }
}

/** Runs `fn` with extra environment variables set, then puts the old values back. */
/** The load the footprint puts on a gateway: 8 sessions calling `everything`'s echo for `ms`. */
function loadCell(
  url: string,
  separator: string,
  ms: number,
  era?: Era,
): Parameters<typeof runCell>[0] {
  return {
    target: { kind: "http", url: `${url}/mcp`, era },
    tool: `everything${separator}echo`,
    argName: "message",
    verify: false,
    sessions: 8,
    payloadBytes: 100,
    warmupCalls: 50,
    warmupMs: 500,
    maxCalls: 1_000_000,
    maxMs: ms,
  };
}

/** Spawns one upstream with an SDK client and times its start-up. */
async function handshake(server: StdioServerConfig): Promise<Handshake> {
  const client = new Client({ name: "bench-handshake", version: "1.0.0" });
  const t0 = performance.now();
  try {
    await client.connect(
      new StdioClientTransport({
        command: server.command,
        args: [...server.args],
        env: { ...process.env as Record<string, string>, ...server.env },
        cwd: server.cwd,
        stderr: "ignore",
      }),
    );
    const initializeMs = performance.now() - t0;
    // A plain request: `listTools()` would add this process's Ajv compiles to the server's time.
    await client.request({ method: "tools/list" }, ListToolsResultSchema);
    return { server: server.name, initializeMs, readyMs: performance.now() - t0 };
  } finally {
    await client.close().catch(() => {});
  }
}

/** One build's figures in {@link compareBuilds} (medians over the repetitions). */
export interface BuildFigures {
  command: string;
  coldStartMs: number;
  coldStartCpuMs: number;
  /** CPU time of the gateway's script workers (its children that are not Node) until ready. */
  workersCpuMs: number;
  idleRssBytes: number;
  callsPerSec: number;
  gatewayCpuPerCallMs: number;
  /** RSS after the loaded phase and a settle, as an operator sees it later. */
  afterLoadRssBytes: number;
}

/**
 * Runs several builds of the gateway (`dist/...` binaries) through the same phases, interleaved
 * (A B C, A B C, …) so a busy shared machine disturbs them alike: cold start with the shipped
 * config, idle RSS, a loaded phase (8 sessions calling `everything__echo`), RSS after it.
 */
export async function compareBuilds(
  commands: readonly string[],
  opts: { reps: number; workDir: string; settleMs: number; loadMs: number; era?: Era },
): Promise<BuildFigures[]> {
  const env = { MEMORY_FILE_PATH: join(opts.workDir, "memory.jsonl") };
  const config = await loadConfig(SHIPPED_CONFIG, { env: { ...process.env, ...env } });
  const sep = config.gateway.separator;
  const expect = config.servers.filter((s) => s.enabled).map((s) => `${s.name}${sep}`);
  const runs = new Map<string, Omit<BuildFigures, "command">[]>();
  for (let rep = 0; rep < opts.reps; rep++) {
    for (const command of commands) {
      const gateway = await startGatewayProcess({
        mode: "binary",
        command,
        configFile: SHIPPED_CONFIG,
        expect,
        env,
        logFile: join(opts.workDir, "compare-gateway.log"),
      });
      try {
        const workersCpuMs = childrenCpuMs(gateway.pid, (comm) => comm !== "node");
        await sleep(opts.settleMs);
        const idleRssBytes = memBytes(gateway.pid, "VmRSS");
        const run = await runCell(loadCell(gateway.url, sep, opts.loadMs, opts.era), gateway.pid);
        await sleep(opts.settleMs);
        runs.set(command, [...runs.get(command) ?? [], {
          coldStartMs: gateway.readyMs,
          coldStartCpuMs: gateway.readyCpuMs,
          workersCpuMs,
          idleRssBytes,
          callsPerSec: run.errors > 0 ? Number.NaN : run.callsPerSec,
          gatewayCpuPerCallMs: run.gatewayCpuPerCall,
          afterLoadRssBytes: memBytes(gateway.pid, "VmRSS"),
        }]);
      } finally {
        await gateway.stop();
      }
    }
  }
  return commands.map((command) => {
    const list = runs.get(command) ?? [];
    const m = (key: keyof Omit<BuildFigures, "command">) => median(list.map((r) => r[key]));
    return {
      command,
      coldStartMs: m("coldStartMs"),
      coldStartCpuMs: m("coldStartCpuMs"),
      workersCpuMs: m("workersCpuMs"),
      idleRssBytes: m("idleRssBytes"),
      callsPerSec: m("callsPerSec"),
      gatewayCpuPerCallMs: m("gatewayCpuPerCallMs"),
      afterLoadRssBytes: m("afterLoadRssBytes"),
    };
  });
}

/** CPU time (ms) of a process's direct children whose command name passes `keep`. */
function childrenCpuMs(pid: number, keep: (comm: string) => boolean): number {
  let total = 0;
  for (const child of childPids(pid)) {
    if (keep(readText(`/proc/${child}/comm`).trim())) total += cpuMs(child);
  }
  return total;
}

function childPids(pid: number): number[] {
  return readText(`/proc/${pid}/task/${pid}/children`).trim().split(/\s+/).filter(Boolean)
    .map(Number);
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

if ((import.meta as ImportMeta & { main?: boolean }).main) {
  // `bun bench/footprint.ts [--reps=N] [--gateway=binary|source|deno] [--load-ms=N]`: this part
  // alone. `--compare=dist/a,dist/b [--era=2026-07-28]` runs those builds side by side instead
  // (see compareBuilds); the loaded phase speaks the era named (2025-11-25 by default).
  const arg = (name: string) =>
    process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir, loadavg } = await import("node:os");
  const { killAll } = await import("./procs.ts");
  const workDir = mkdtempSync(join(tmpdir(), "mcpgw-footprint-"));
  const load = () => loadavg().map((n) => n.toFixed(2)).join(" / ");
  const loadBefore = load();
  try {
    const builds = arg("compare")?.split(",");
    if (builds) {
      const figures = await compareBuilds(builds, {
        reps: Number(arg("reps") ?? 3),
        workDir,
        settleMs: 1000,
        loadMs: Number(arg("load-ms") ?? 3000),
        era: arg("era") as Era | undefined,
      });
      console.log(JSON.stringify({ figures, loadBefore, loadAfter: load() }, null, 2));
    } else {
      const report = await benchFootprint({
        reps: Number(arg("reps") ?? 3),
        gatewayMode: (arg("gateway") ?? "binary") as GatewayMode,
        workDir,
        settleMs: 1000,
        loadMs: Number(arg("load-ms") ?? 3000),
        warmup: true,
        onStep: (s) => process.stderr.write(`footprint: ${s}\n`),
      });
      console.log(JSON.stringify({ ...report, loadBefore, loadAfter: load() }, null, 2));
    }
  } finally {
    killAll();
    rmSync(workDir, { recursive: true, force: true });
  }
  process.exit(0);
}
