/**
 * Lua rows, measured end to end through a gateway process's `execute` tool (its scripts run in
 * the gateway's worker pool and call the bench-echo upstream): a trivial script, the per-call
 * cost of `task.await(mcp.call(...))`, a 50-call fan-out, and a macro call (one written in the
 * config, one in a macro file) beside the upstream call it wraps, the calls alternating so the
 * overhead is a median of back-to-back differences. A build without `execute` reports "n/a (not built)" instead of failing. The
 * in-process micro-benchmark `bench/lua.ts` adds its figures as given.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  BENCH_ECHO_CONFIG,
  BUN,
  type GatewayMode,
  ROOT,
  startGatewayProcess,
  track,
} from "./procs.ts";
import { median } from "./stats.ts";

/** Options for {@link benchScripting}. */
export interface ScriptingOptions {
  gatewayMode: GatewayMode;
  workDir: string;
  /** Executions per script kind. */
  runs: number;
  /** Sequential `mcp.call` + `task.await` pairs in the round-trip script. */
  roundTrips: number;
  /** Iterations passed to `bench/lua.ts`. */
  luaIterations: number;
  /** Also run `bench/execute.ts` (code mode against client round trips). */
  codeMode: boolean;
}

/** Medians of the execute-based rows, in ms; `notBuilt` says why there are none. */
export interface ScriptingReport {
  notBuilt: string | null;
  trivialMs: number;
  roundTripMs: number;
  fanOutMs: number;
  /** One upstream call through the gateway, and a macro wrapping that same call (medians). */
  directCallMs: number;
  macroCallMs: number;
  /**
   * What a macro adds over the call it wraps: the median of (macro − direct) over pairs of calls
   * made back to back; `fileMacroOverheadMs` for the same macro in a macro file.
   */
  macroOverheadMs: number;
  fileMacroOverheadMs: number;
  /** Rows from `bench/lua.ts`: label → value (its keys carry the unit, e.g. `…Ms`). */
  micro: [string, string][] | null;
  microNote: string;
  /** `bench/lua.ts`'s `mcp.call` → `task.await` round trip over an in-process bridge, in ms. */
  microRoundTripMs: number;
  /** `bench/execute.ts` (code mode against client round trips), when it exists and runs. */
  codeMode: CodeModeRow[] | null;
  codeModeNote: string;
}

/** One way of making the same batch of calls: median wall time and wire bytes per batch. */
export interface CodeModeRow {
  way: string;
  ms: number;
  bytes: number;
}

const NOT_MEASURED = {
  directCallMs: Number.NaN,
  macroCallMs: Number.NaN,
  macroOverheadMs: Number.NaN,
  fileMacroOverheadMs: Number.NaN,
  trivialMs: Number.NaN,
  roundTripMs: Number.NaN,
  fanOutMs: Number.NaN,
  codeMode: null,
  codeModeNote: "execute is not built",
};

/** Runs the execute rows (if `execute` exists) and `bench/lua.ts` (if that exists). */
export async function benchScripting(opts: ScriptingOptions): Promise<ScriptingReport> {
  const micro = await luaScriptRows(opts.luaIterations);
  const configFile = join(opts.workDir, "scripting.yaml");
  const macroDir = join(opts.workDir, "bench-macros");
  mkdirSync(macroDir, { recursive: true });
  writeFileSync(
    join(macroDir, "wrap.lua"),
    `mcp.tool { name = "file_wrap_echo", description = "Calls bench__echo once",\n` +
      `  params = { text = { type = "string" } },\n` +
      `  run = function(args)\n` +
      `    return task.await(mcp.call("bench__echo", { text = args.text })).content\n` +
      `  end }\n`,
  );
  writeFileSync(
    configFile,
    BENCH_ECHO_CONFIG +
      `scripting:\n  execute: true\n  macros: ${JSON.stringify(macroDir)}\n` +
      `  tools:\n    wrap_echo:\n` +
      `      description: Calls bench__echo once and returns its text\n` +
      `      params: { text: { type: string } }\n` +
      `      lua: 'return task.await(mcp.call("bench__echo", { text = args.text })).content'\n`,
  );
  let gateway;
  try {
    gateway = await startGatewayProcess({
      mode: opts.gatewayMode,
      configFile,
      expect: ["bench__"],
      logFile: join(opts.workDir, "scripting-gateway.log"),
      timeoutMs: 20_000,
    });
  } catch (err) {
    const notBuilt = `the gateway did not start with scripting.execute (${firstLine(err)})`;
    return { notBuilt, ...NOT_MEASURED, ...micro };
  }
  const client = new Client({ name: "bench-lua", version: "1.0.0" });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
    const { tools } = await client.listTools();
    if (!tools.some((t) => t.name === "execute")) {
      return { notBuilt: "no execute tool listed", ...NOT_MEASURED, ...micro };
    }
    const time = async (code: string): Promise<number> => {
      const times: number[] = [];
      for (let i = 0; i < opts.runs; i++) {
        const t0 = performance.now();
        const result = await client.callTool({ name: "execute", arguments: { code } });
        if (result.isError) throw new Error(`execute failed: ${JSON.stringify(result.content)}`);
        times.push(performance.now() - t0);
      }
      return median(times);
    };
    const call = `mcp.call("bench__echo", { text = "x" })`;
    await time("return 1"); // warm the worker pool
    const trivialMs = await time("return 1");
    const loopMs = await time(
      `for i = 1, ${opts.roundTrips} do task.await(${call}) end return ${opts.roundTrips}`,
    );
    const fanOutMs = await time(
      `local ids = {} for i = 1, 50 do ids[i] = ${call} end ` +
        `for i = 1, 50 do task.await(ids[i]) end return 50`,
    );
    // A macro wrapping one upstream call, beside that call made directly through the gateway.
    const sequential = async (name: string): Promise<number> => {
      const times: number[] = [];
      for (let i = 0; i < opts.roundTrips; i++) {
        const t0 = performance.now();
        const r = await client.callTool({ name, arguments: { text: "x" } });
        if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
        times.push(performance.now() - t0);
      }
      return median(times);
    };
    // Direct and macro calls alternate, so a change in machine load hits both alike.
    const once = async (name: string): Promise<number> => {
      const t0 = performance.now();
      const r = await client.callTool({ name, arguments: { text: "x" } });
      if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
      return performance.now() - t0;
    };
    const overhead = async (macro: string) => {
      const direct: number[] = [];
      const wrapped: number[] = [];
      const diffs: number[] = [];
      for (let i = 0; i < opts.roundTrips; i++) {
        const d = await once("bench__echo");
        const m = await once(macro);
        direct.push(d);
        wrapped.push(m);
        diffs.push(m - d);
      }
      return { direct: median(direct), macro: median(wrapped), overhead: median(diffs) };
    };
    await sequential("wrap_echo");
    await sequential("file_wrap_echo");
    const inline = await overhead("wrap_echo");
    const file = await overhead("file_wrap_echo");
    return {
      notBuilt: null,
      directCallMs: inline.direct,
      macroCallMs: inline.macro,
      macroOverheadMs: inline.overhead,
      fileMacroOverheadMs: file.overhead,
      trivialMs,
      roundTripMs: (loopMs - trivialMs) / opts.roundTrips,
      fanOutMs,
      ...micro,
      ...(opts.codeMode
        ? await codeModeRows(opts)
        : { codeMode: null, codeModeNote: "skipped in this plan" }),
    };
  } catch (err) {
    return { notBuilt: `execute did not run: ${firstLine(err)}`, ...NOT_MEASURED, ...micro };
  } finally {
    await client.close().catch(() => {});
    await gateway.stop();
  }
}

/** `benchExecute()` from `bench/execute.ts` (written alongside; guarded, so safe to import). */
async function codeModeRows(
  opts: ScriptingOptions,
): Promise<Pick<ScriptingReport, "codeMode" | "codeModeNote">> {
  const file = join(ROOT, "bench/execute.ts");
  if (!existsSync(file)) return { codeMode: null, codeModeNote: "bench/execute.ts does not exist" };
  try {
    // A computed specifier: the module is optional, and a missing export is reported, not fatal.
    const mod = await import(file) as { benchExecute?: (o: object) => Promise<unknown> };
    if (typeof mod.benchExecute !== "function") throw new Error("no benchExecute() export");
    const r = await mod.benchExecute({
      gatewayMode: opts.gatewayMode,
      workDir: opts.workDir,
      runs: opts.runs,
      calls: 50,
    }) as Record<string, { ms: number; bytes: number }>;
    const way = (label: string, v: { ms: number; bytes: number } | undefined): CodeModeRow => ({
      way: label,
      ms: Number(v?.ms),
      bytes: Number(v?.bytes),
    });
    return {
      codeMode: [
        way("execute: 50 × mcp.call, then task.await each", r.execute),
        way("client: 50 calls one by one", r.sequential),
        way("client: 50 calls at once", r.concurrent),
      ],
      codeModeNote: "from bench/execute.ts benchExecute()",
    };
  } catch (err) {
    return { codeMode: null, codeModeNote: `bench/execute.ts failed: ${firstLine(err)}` };
  }
}

type MicroRows = Pick<ScriptingReport, "micro" | "microNote" | "microRoundTripMs">;

/**
 * `bench/lua.ts` run as its own process (`bun bench/lua.ts ITERATIONS`): it is a script that
 * prints one JSON object and exits, so importing it would end this process too.
 */
async function luaScriptRows(iterations: number): Promise<MicroRows> {
  const file = join(ROOT, "bench/lua.ts");
  const none = (microNote: string): MicroRows => ({
    micro: null,
    microNote,
    microRoundTripMs: Number.NaN,
  });
  if (!existsSync(file)) return none("bench/lua.ts does not exist yet");
  const child = track(BUN, [file, String(iterations)], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout!.on("data", (chunk) => (out += String(chunk)));
  child.stderr!.on("data", (chunk) => (err = (err + String(chunk)).slice(-1000)));
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const code = await new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
  clearTimeout(timer);
  try {
    if (code !== 0) throw new Error(`exit ${code}: ${err.trim() || out.trim()}`);
    const parsed = JSON.parse(out.slice(out.indexOf("{"), out.lastIndexOf("}") + 1)) as Record<
      string,
      unknown
    >;
    const roundTrip = Number(parsed.mcpCallAwaitRoundTripMedianMs);
    return {
      micro: flatten(parsed),
      microNote: `from \`bun bench/lua.ts ${iterations}\``,
      microRoundTripMs: Number.isFinite(roundTrip) ? roundTrip : Number.NaN,
    };
  } catch (e) {
    return none(`bench/lua.ts failed: ${firstLine(e)}`);
  }
}

/** Numbers (and strings) of a plain result object, as label/value rows; nested keys dotted. */
function flatten(value: unknown, prefix = ""): [string, string][] {
  if (typeof value === "number") return [[prefix || "value", String(value)]];
  if (typeof value === "string") return [[prefix || "value", value]];
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) => flatten(v, prefix ? `${prefix}.${k}` : k));
}

function firstLine(err: unknown): string {
  return String(err instanceof Error ? err.message : err).split("\n")[0]!.slice(0, 160);
}
