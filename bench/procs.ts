/**
 * The processes a benchmark run starts — the gateway, the HTTP upstream, load clients — and what
 * it reads about them from `/proc` (CPU time, resident memory). Every process started here is
 * remembered and killed by pid when the run ends, however it ends.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, openSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { onCpu } from "./pinning.ts";
import { sleep } from "./stats.ts";

/** Repository root. */
export const ROOT = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
/** The Bun toolchain of the repository (runs the gateway from source and the load clients). */
export const BUN = join(ROOT, "node_modules/.bin/bun");
/** The Deno toolchain of the repository. */
export const DENO = join(ROOT, "node_modules/.bin/deno");
/** The benchmark's upstream fixture. */
export const BENCH_ECHO = join(ROOT, "test/fixtures/servers/bench-echo.mjs");
/**
 * The environment of every Bun server the bench starts — the gateway, the floor and the core: the
 * allocator's purge delay the shipped systemd units and container image set
 * (`MIMALLOC_PURGE_DELAY`, docs/OPERATIONS.md), so the gateway is measured as it is run, and the
 * ratios compare what each process does per call, not a setting any Bun server could have. It
 * halves the floor's own 1 MB call too.
 */
export const SERVER_ENV = { ...process.env, MIMALLOC_PURGE_DELAY: "1000" };

/** The compiled gateway, when built (`MCPGW_BINARY` names another build, e.g. to compare two). */
export const BINARY = process.env.MCPGW_BINARY ?? join(ROOT, "dist/mcp-gateway");

const TICK_MS = 1000 / (Number(spawnSync("getconf", ["CLK_TCK"]).stdout?.toString().trim()) || 100);
const started = new Set<ChildProcess>();

/** Kills every process this run started that is still alive (SIGKILL to its pid only). */
export function killAll(): void {
  for (const child of started) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
  started.clear();
}

/** Spawns and remembers a child process. */
export function track(
  command: string,
  args: readonly string[],
  options: Parameters<typeof spawn>[2] = {},
): ChildProcess {
  const child = spawn(command, args, { cwd: ROOT, ...options });
  started.add(child);
  child.once("exit", () => started.delete(child));
  return child;
}

/** Stops a child: SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * The fields of a `/proc/<pid>/stat` (or `/proc/<pid>/task/<tid>/stat`) line after "(comm)", which
 * may itself hold spaces: index 0 is the state (field 3), 7 minflt (10), 11 utime (14), 12 stime
 * (15) (man 5 proc).
 */
export function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** CPU time (user + system, all threads) a live process has used, in ms; NaN once gone. */
export function cpuMs(pid: number): number {
  try {
    const fields = statFields(readFileSync(`/proc/${pid}/stat`, "utf8"));
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return Number.NaN;
  }
}

/** A `/proc/<pid>/status` memory field (`VmRSS`, `VmHWM`) in bytes; NaN once gone. */
export function memBytes(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
    return match ? Number(match[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** A loopback port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

/** How the gateway process is started: `auto` picks the binary when it is newer than `src/`. */
export type GatewayMode = "auto" | "binary" | "source" | "deno";

/** The argv that starts the gateway, and a label for the report. */
export function gatewayCommand(mode: GatewayMode): { argv: string[]; label: string } {
  const binary = { argv: [BINARY], label: "compiled binary (dist/mcp-gateway)" };
  const source = { argv: [BUN, join(ROOT, "src/main.ts")], label: "bun src/main.ts" };
  if (mode === "binary") return binary;
  if (mode === "source") return source;
  if (mode === "deno") {
    return { argv: [DENO, "run", "-A", join(ROOT, "src/main.ts")], label: "deno run src/main.ts" };
  }
  try {
    return statSync(BINARY).mtimeMs >= newestMtime(join(ROOT, "src")) ? binary : source;
  } catch {
    return source;
  }
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** A gateway process serving HTTP on loopback. */
export interface GatewayProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly url: string;
  /** Spawn → first `tools/list` that shows every expected server, in ms. */
  readonly readyMs: number;
  /** CPU time (user + system) the gateway process itself had used at that moment, in ms. */
  readonly readyCpuMs: number;
  stop(): Promise<void>;
}

/** Options for {@link startGatewayProcess}. */
export interface GatewayStart extends GatewaySpawn {
  mode: GatewayMode;
  /** Tool-name prefixes that must all be listed before the gateway counts as ready. */
  expect: readonly string[];
  timeoutMs?: number;
  /** Starts this program instead of the one `mode` names (to compare two builds in one run). */
  command?: string;
}

/** Starts a gateway and waits (bounded) until a client sees every expected server's tools. */
export async function startGatewayProcess(opts: GatewayStart): Promise<GatewayProcess> {
  const { argv } = opts.command ? { argv: [opts.command] } : gatewayCommand(opts.mode);
  const { child, url, t0 } = await spawnGateway(argv, opts);
  const stop = () => stopChild(child);
  try {
    await waitForTools(`${url}/mcp`, opts.expect, child, t0 + (opts.timeoutMs ?? 30_000));
  } catch (err) {
    await stop();
    throw err;
  }
  const readyMs = performance.now() - t0;
  return { child, pid: child.pid!, url, readyMs, readyCpuMs: cpuMs(child.pid!), stop };
}

/** How {@link spawnGateway} starts a gateway. */
export interface GatewaySpawn {
  configFile: string;
  /** Where its stdout and stderr go. */
  logFile: string;
  /** Added to {@link SERVER_ENV}. */
  env?: Record<string, string>;
  /** The CPU to pin it (and so its upstreams) to; unpinned when absent. */
  cpu?: string | null;
  /** Its working folder (the repository's root when absent). */
  cwd?: string;
}

/**
 * Spawns the gateway `argv` on `configFile`, listening on a free loopback port; `t0` is when it
 * was spawned. Every gateway the bench starts is started here; the caller decides what "ready"
 * means (its tools listed, or `/healthz` answering).
 */
export async function spawnGateway(
  argv: readonly string[],
  opts: GatewaySpawn,
): Promise<{ child: ChildProcess; url: string; t0: number }> {
  const port = await freePort();
  const pinned = onCpu(opts.cpu ?? null, argv);
  const log = openSync(opts.logFile, "a");
  const t0 = performance.now();
  const child = track(
    pinned[0]!,
    [...pinned.slice(1), "--config", opts.configFile, "--listen", `127.0.0.1:${port}`],
    {
      stdio: ["ignore", log, log],
      env: { ...SERVER_ENV, ...opts.env },
      ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
    },
  );
  return { child, url: `http://127.0.0.1:${port}`, t0 };
}

/**
 * Polls `endpoint` (every 5 ms, until `deadline`) for a `tools/list` naming every prefix; throws
 * once `child` has exited or the deadline passed, with the last thing that went wrong. The list
 * is asked for with a plain request, not `client.listTools()`: that one also compiles an
 * output-schema validator (Ajv) for every listed tool in this process, ~40–200 ms of CPU that
 * competes with the gateway for the same two cores and would be counted as its start-up.
 */
export async function waitForTools(
  endpoint: string,
  prefixes: readonly string[],
  child: ChildProcess,
  deadline: number,
): Promise<void> {
  let last = "not listening";
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`exited (${child.exitCode ?? child.signalCode}) before it served: ${last}`);
    }
    const client = new Client({ name: "bench-probe", version: "1.0.0" });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
      const { tools } = await client.request({ method: "tools/list" }, ListToolsResultSchema);
      const missing = prefixes.filter((p) => !tools.some((t) => t.name.startsWith(p)));
      if (missing.length === 0) return;
      last = `no tools yet from ${missing.join(", ")}`;
    } catch (err) {
      last = String(err);
    } finally {
      await client.close().catch(() => {});
    }
    await sleep(5);
  }
  throw new Error(`not ready in time: ${last}`);
}

/** A server process the throughput part measures: its pid, its `/mcp` URL and how to stop it. */
export interface ServerProcess {
  pid: number;
  url: string;
  stop(): Promise<void>;
}

/** A gateway config with the bench-echo fixture as its one server, `bench`. */
export const BENCH_ECHO_CONFIG = `servers:\n  bench: { command: node, args: [${
  JSON.stringify(BENCH_ECHO)
}] }\n`;

/**
 * The server a per-call probe drives (`bench/threads.ts`, `bench/faults.ts`): the floor, or a
 * gateway (started as `mode` says) in front of bench-echo, its config and log in a fresh folder;
 * `url` is its `/mcp` endpoint and `tool` the echo tool's name there.
 */
export async function startEchoTarget(
  target: string,
  opts: { cpu: string | null; mode: GatewayMode; env?: Record<string, string> },
): Promise<ServerProcess & { tool: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-probe-"));
  if (target === "floor") return { ...(await startFloor(opts.cpu, opts.env)), tool: "echo", dir };
  const configFile = join(dir, "gateway.yaml");
  writeFileSync(configFile, BENCH_ECHO_CONFIG);
  const gw = await startGatewayProcess({
    mode: opts.mode,
    configFile,
    expect: ["bench__"],
    logFile: join(dir, "gateway.log"),
    cpu: opts.cpu,
    env: opts.env,
  });
  return { pid: gw.pid, url: `${gw.url}/mcp`, stop: gw.stop, tool: "bench__echo", dir };
}

/** The fixture upstream serving streamable HTTP with the SDK's Node server (on `cpu`, if given). */
export async function startHttpUpstream(cpu: string | null = null): Promise<ServerProcess> {
  return await startPinned("HTTP upstream", onCpu(cpu, ["node", BENCH_ECHO, "--http"]));
}

/**
 * The floor (`bench/floor.ts`): a minimal Bun forwarder in front of its own bench-echo child;
 * `env` is added to its environment.
 */
export async function startFloor(
  cpu: string | null = null,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const argv = [BUN, join(ROOT, "bench/floor.ts"), "--listen", "127.0.0.1:0"];
  return await startPinned("floor", onCpu(cpu, argv), env);
}

/** The floor's HTTP in front of the gateway's core (`bench/floor-core.ts`), from source. */
export async function startFloorCore(cpu: string | null = null): Promise<ServerProcess> {
  const argv = [BUN, join(ROOT, "bench/floor-core.ts"), "--listen", "127.0.0.1:0"];
  return await startPinned("floor-core", onCpu(cpu, argv));
}

function startPinned(
  what: string,
  argv: readonly string[],
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  return startPortPrinter(what, argv[0]!, argv.slice(1), { ...SERVER_ENV, ...env });
}

/** Starts a process that prints `{"port":N}` once it serves `/mcp` on loopback. */
export async function startPortPrinter(
  what: string,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<ServerProcess> {
  const child = track(command, args, { stdio: ["ignore", "pipe", "inherit"], env });
  const line = await new Promise<string>((resolveLine, reject) => {
    let buffer = "";
    const timer = setTimeout(() => reject(new Error(`${what} did not start`)), 15_000);
    child.stdout!.on("data", (chunk) => {
      buffer += String(chunk);
      if (!buffer.includes("\n")) return;
      clearTimeout(timer);
      resolveLine(buffer.slice(0, buffer.indexOf("\n")));
    });
    child.once("exit", () => reject(new Error(`${what} exited at start`)));
  });
  const { port } = JSON.parse(line) as { port: number };
  return { pid: child.pid!, url: `http://127.0.0.1:${port}/mcp`, stop: () => stopChild(child) };
}
