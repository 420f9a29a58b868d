/**
 * Turns a run's measurements into the Markdown written to `bench/RESULTS.md`: machine facts,
 * the issue's goals (met / not met), then one table per part and how it was measured.
 */
import type { FootprintReport } from "./footprint.ts";
import type { Facts } from "./machine.ts";
import type { ScriptingReport } from "./scripting.ts";
import { fmt, mib, ratio, sizeLabel, table } from "./stats.ts";
import type { CellSummary, ThroughputReport } from "./throughput.ts";

/** `bench/search.ts` timings, or why there are none. */
export type SearchReport =
  | { tools: number; queries: number; buildMs: number; medianMs: number; p99Ms: number }
  | { notBuilt: string };

/** Everything one run measured. */
export interface BenchReport {
  mode: string;
  facts: Facts;
  throughput: ThroughputReport;
  footprint: FootprintReport | null;
  scripting: ScriptingReport | null;
  search: SearchReport | null;
  seconds: number;
  loadAtEnd: string;
}

/** One goal from the issue. `met` is null when it could not be measured. */
export interface Goal {
  goal: string;
  target: string;
  measured: string;
  met: boolean | null;
}

const NA = "n/a (not built)";

/** Judges the issue's goals against a run. */
export function goals(r: BenchReport): Goal[] {
  const cell = (target: CellSummary["target"], sessions: number, payload: number) =>
    r.throughput.cells.find((c) =>
      c.target === target && c.sessions === sessions && c.payloadBytes === payload
    );
  const payloads = [...new Set(r.throughput.cells.map((c) => c.payloadBytes))].sort((a, b) =>
    a - b
  );
  const sessions = [...new Set(r.throughput.cells.map((c) => c.sessions))].sort((a, b) => a - b);
  const small = payloads[0]!;
  const out: Goal[] = [];
  const gateways = ["gateway 2025-11-25", "gateway 2026-07-28"] as const;
  const eraLabel = (t: typeof gateways[number]) => t.slice("gateway ".length);
  // A goal over the gateway holds in both eras: one row, measured for each.
  const bothEras = (
    goal: string,
    target: string,
    value: (c: CellSummary) => string,
    pass: (c: CellSummary) => boolean | null,
    s: number,
    p: number,
  ) => {
    const cells = gateways.flatMap((t) => cell(t, s, p) ?? []);
    if (cells.length === 0) return;
    const verdicts = cells.map(pass);
    out.push({
      goal,
      target,
      measured: cells.map((c) => `${eraLabel(c.target as typeof gateways[number])}: ${value(c)}`)
        .join(" · "),
      met: verdicts.includes(null) ? null : verdicts.every(Boolean),
    });
  };
  const ratioGoal = (s: number, p: number, min: number) =>
    bothEras(
      `throughput through the gateway ÷ direct HTTP, ${s} session(s), ${sizeLabel(p)}`,
      `≥ ${min.toFixed(2)}×`,
      (c) => ratio(c.vsHttp),
      (c) => (Number.isFinite(c.vsHttp) ? c.vsHttp >= min : null),
      s,
      p,
    );
  for (const s of sessions) ratioGoal(s, small, s === 1 ? 1.3 : 1.5);
  for (const p of payloads.slice(1)) for (const s of sessions) ratioGoal(s, p, 1.1);
  // The gateway against the floor (bench/floor.ts) of the same era, same run.
  const floorOf = (c: CellSummary) =>
    cell(
      `floor ${c.target.slice("gateway ".length)}` as CellSummary["target"],
      c.sessions,
      c.payloadBytes,
    );
  for (const s of sessions) {
    const max = s === 1 ? 1.35 : 1.25;
    bothEras(
      `gateway CPU per call ÷ the floor's, ${s} session(s), ${sizeLabel(small)}`,
      `≤ ${max.toFixed(2)}×`,
      (c) =>
        `${fmt(c.gatewayCpuPerCall, 3)} vs ${fmt(floorOf(c)?.gatewayCpuPerCall, 3)} ms (${
          ratio(c.cpuVsFloor)
        }${spreadNote(c.floorSpread.cpu)})`,
      (c) => (Number.isFinite(c.cpuVsFloor) ? c.cpuVsFloor <= max : null),
      s,
      small,
    );
  }
  for (const p of payloads) {
    for (const s of sessions) {
      const min = p === small ? 0.9 : 0.95;
      bothEras(
        `throughput through the gateway ÷ the floor's, ${s} session(s), ${sizeLabel(p)}`,
        `≥ ${min.toFixed(2)}×`,
        (c) =>
          `${fmt(c.callsPerSec, 0)} vs ${fmt(floorOf(c)?.callsPerSec, 0)}/s (${ratio(c.vsFloor)}${
            spreadNote(c.floorSpread.calls)
          })`,
        (c) => (Number.isFinite(c.vsFloor) ? c.vsFloor >= min : null),
        s,
        p,
      );
    }
  }
  for (const s of sessions) {
    const session = cell("gateway 2025-11-25", s, small)?.gatewayCpuPerCall ?? Number.NaN;
    const stateless = cell("gateway 2026-07-28", s, small)?.gatewayCpuPerCall ?? Number.NaN;
    out.push({
      goal: `stateless (2026-07-28) call CPU ≤ session (2025-11-25) call CPU, ${s} client(s), ${
        sizeLabel(small)
      }`,
      target: "≤ 1.00×",
      measured: `${fmt(stateless, 3)} ms vs ${fmt(session, 3)} ms (${ratio(stateless / session)})`,
      met: Number.isFinite(stateless / session) ? stateless <= session : null,
    });
  }
  const idle = r.throughput.idleRssBytes;
  out.push({
    goal: `idle RSS with one upstream (${r.facts.find(([k]) => k === "gateway process")?.[1]})`,
    target: "≤ 60 MiB",
    measured: `${mib(idle)} (the floor: ${mib(r.throughput.floorIdleRssBytes)})`,
    met: Number.isFinite(idle) ? idle <= 60 * 1024 ** 2 : null,
  });
  const f = r.footprint;
  if (f) {
    const budget = 150 + (f.slowest?.readyMs ?? Number.NaN);
    out.push({
      goal: `cold start to first tools/list (slowest upstream: ${f.slowest?.server ?? "?"})`,
      target: `≤ 150 ms + ${fmt(f.slowest?.readyMs, 0)} ms = ${fmt(budget, 0)} ms`,
      measured: `${fmt(f.coldStartMs, 0)} ms (all three upstreams together, directly: ${
        fmt(f.allTogetherMs, 0)
      } ms)`,
      met: Number.isFinite(budget) && Number.isFinite(f.coldStartMs)
        ? f.coldStartMs <= budget
        : null,
    });
  }
  const s = r.scripting;
  if (s) {
    const direct = cell("direct stdio", sessions[0]!, small)?.p50Ms ?? Number.NaN;
    const added = s.roundTripMs - direct;
    const micro = Number.isFinite(s.microRoundTripMs);
    out.push({
      goal: micro
        ? "Lua mcp.call + task.await round trip (bench/lua.ts, in-process bridge)"
        : "Lua mcp.call + task.await round trip, over a direct stdio call",
      target: "≤ 0.20 ms",
      measured: micro
        ? `${fmt(s.microRoundTripMs, 3)} ms`
        : s.notBuilt
        ? NA
        : `${fmt(added, 3)} ms (${fmt(s.roundTripMs, 3)} − ${fmt(direct, 3)})`,
      met: micro
        ? s.microRoundTripMs <= 0.2
        : s.notBuilt || !Number.isFinite(added)
        ? null
        : added <= 0.2,
    });
    const over = s.macroOverheadMs;
    out.push({
      goal: "macro call over the upstream call it wraps (median of back-to-back differences)",
      target: "≤ 0.50 ms",
      measured: s.notBuilt || !Number.isFinite(over)
        ? NA
        : `${fmt(over, 3)} ms (macro file: ${fmt(s.fileMacroOverheadMs, 3)} ms)`,
      met: s.notBuilt || !Number.isFinite(over) ? null : over <= 0.5,
    });
  }
  const q = r.search;
  if (q) {
    out.push({
      goal: "tool_search median at 10,000 tools",
      target: "≤ 2 ms",
      measured: "notBuilt" in q ? NA : `${fmt(q.medianMs, 3)} ms (${q.tools} tools)`,
      met: "notBuilt" in q ? null : q.medianMs <= 2,
    });
  }
  return out;
}

/** The whole Markdown report. */
export function renderMarkdown(r: BenchReport): string {
  const met = (m: boolean | null) => (m === null ? "n/a" : m ? "met" : "**not met**");
  const parts = [
    `# Benchmark results (${r.mode})`,
    "Regenerated by `npm run bench` (`bun bench/run.ts`); do not edit by hand. Other work may " +
    "share this machine while the benchmark runs (see the load averages), so read the ratios, " +
    "which compare paths measured back to back, rather than absolute times.",
    ...busyNote(r),
    "## Machine",
    table(["", ""], [...r.facts, ["load average at end", r.loadAtEnd], [
      "run time",
      `${r.seconds.toFixed(0)} s`,
    ]]),
    "## Goals (issues 9 and 22)",
    table(
      ["goal", "target", "measured", ""],
      goals(r).map((g) => [g.goal, g.target, g.measured, met(g.met)]),
    ),
    "## Throughput and latency (bench-echo upstream; medians over repetitions)",
    table(
      [
        "path",
        "sessions",
        "payload",
        "calls/s",
        "p50 ms",
        "p99 ms",
        "÷ direct HTTP",
        "÷ floor",
        "p50 added vs HTTP (ms)",
        "gateway CPU/call (ms)",
        "CPU ÷ floor",
        "client CPU/call (ms)",
        "upstream CPU/call (ms)",
        "errors",
      ],
      r.throughput.cells.map((c) => [
        c.target,
        String(c.sessions),
        sizeLabel(c.payloadBytes),
        fmt(c.callsPerSec, 0),
        fmt(c.p50Ms),
        fmt(c.p99Ms),
        ratio(c.vsHttp),
        ratio(c.vsFloor),
        c.target === "direct HTTP" ? "–" : fmt(c.addedP50Ms),
        fmt(c.gatewayCpuPerCall, 3),
        ratio(c.cpuVsFloor),
        fmt(c.clientCpuPerCall, 3),
        fmt(c.upstreamCpuPerCall, 3),
        c.errors === 0 ? "0" : `${c.errors} (${c.firstError?.slice(0, 80)})`,
      ]),
    ),
    `Gateway RSS in this part (one upstream): ${mib(r.throughput.idleRssBytes)} idle, ` +
    `${mib(r.throughput.loadedRssBytes)} under 8 sessions of small calls, ` +
    `${mib(r.throughput.peakRssBytes)} peak (VmHWM, the largest payloads included); ` +
    `the floor's idle RSS: ${mib(r.throughput.floorIdleRssBytes)}.`,
    ...footprintPart(r.footprint),
    ...scriptingPart(r.scripting),
    ...searchPart(r.search),
    "## How it is measured",
    METHOD,
  ];
  return `${parts.join("\n\n")}\n`;
}

/** A warning when other processes kept the machine busy (1-minute load above half the cores). */
function busyNote(r: BenchReport): string[] {
  const fact = (key: string) => r.facts.find(([k]) => k === key)?.[1] ?? "";
  const cores = Number(fact("cores")) || 1;
  const start = Number.parseFloat(fact("load average at start (1/5/15 min)"));
  const end = Number.parseFloat(r.loadAtEnd);
  const busiest = Math.max(start || 0, end || 0);
  if (busiest <= cores / 2) return [];
  return [
    `**This run shared the machine:** the 1-minute load average reached ${
      busiest.toFixed(1)
    } on ${cores} cores (other processes competed for the ` +
    "CPU), so absolute numbers are depressed and the ratios noisier than on an idle machine.",
  ];
}

function footprintPart(f: FootprintReport | null): string[] {
  if (!f) return [];
  return [
    `## Footprint and cold start (shipped gateway.yaml: ${f.servers.join(", ")})`,
    table(["measure", "value"], [
      [
        "gateway cold start: spawn → first tools/list listing every server (median)",
        `${fmt(f.coldStartMs, 0)} ms (runs: ${f.coldStarts.map((v) => fmt(v, 0)).join(", ")})`,
      ],
      ["gateway with no upstreams: spawn → tools/list", `${fmt(f.emptyGatewayMs, 0)} ms`],
      ...f.handshakes.map((h): [string, string] => [
        `upstream ${h.server} alone: spawn → initialize / → tools/list`,
        `${fmt(h.initializeMs, 0)} ms / ${fmt(h.readyMs, 0)} ms`,
      ]),
      [
        "all three upstreams started together, directly → all listed",
        `${fmt(f.allTogetherMs, 0)} ms`,
      ],
      ["gateway RSS idle", mib(f.idleRssBytes)],
      ["gateway RSS under load (8 sessions calling everything__echo)", mib(f.loadedRssBytes)],
      ["gateway peak RSS (VmHWM)", mib(f.peakRssBytes)],
      ["calls/s during the loaded phase", fmt(f.loadedCallsPerSec, 0)],
    ]),
  ];
}

function scriptingPart(s: ScriptingReport | null): string[] {
  if (!s) return [];
  const v = (ms: number) => (s.notBuilt ? NA : `${fmt(ms, 3)} ms`);
  return [
    "## Lua scripting (through the gateway's execute tool)",
    table(["measure", "median"], [
      ["execute of a trivial script (`return 1`), end to end", v(s.trivialMs)],
      ["one mcp.call + task.await round trip inside a script", v(s.roundTripMs)],
      ["execute with a 50-call fan-out, end to end", v(s.fanOutMs)],
      ["one upstream call through the gateway (client round trip)", v(s.directCallMs)],
      ["a macro wrapping that same call (client round trip)", v(s.macroCallMs)],
      ["what the macro adds (median of back-to-back differences)", v(s.macroOverheadMs)],
      ["the same macro in a macro file: what it adds", v(s.fileMacroOverheadMs)],
      ...(s.micro ?? []).map(([k, val]): [string, string] => [`bench/lua.ts ${k}`, val]),
    ]),
    ...(s.codeMode
      ? [
        "Code mode against client round trips (same 50 calls; medians per batch):",
        table(
          ["way", "wall ms", "wire bytes"],
          s.codeMode.map((w) => [w.way, fmt(w.ms, 1), fmt(w.bytes, 0)]),
        ),
      ]
      : []),
    [
      s.notBuilt ? `Execute rows: ${s.notBuilt}.` : "",
      s.codeMode ? "" : `Code-mode rows: ${s.codeModeNote}.`,
      `Micro-benchmark rows: ${s.micro ? s.microNote : `TODO — ${s.microNote}`}.`,
    ].filter(Boolean).join(" "),
  ];
}

function searchPart(q: SearchReport | null): string[] {
  if (!q) return [];
  return [
    "## tool_search (bench/search.ts, in process)",
    "notBuilt" in q ? `TODO — ${NA}: ${q.notBuilt}.` : table(
      ["tools", "queries", "index build", "median", "p99"],
      [[
        String(q.tools),
        String(q.queries),
        `${fmt(q.buildMs, 1)} ms`,
        `${fmt(q.medianMs, 3)} ms`,
        `${fmt(q.p99Ms, 3)} ms`,
      ]],
    ),
  ];
}

const METHOD =
  `- **Paths.** One upstream, \`test/fixtures/servers/bench-echo.mjs\` (the SDK's low-level
  \`Server\`), reached directly over its own streamable HTTP server (the SDK's Node
  \`StreamableHTTPServerTransport\` on \`node:http\`, one session per client), directly over stdio,
  through the floor (\`bench/floor.ts\`: \`Bun.serve\` and one stdio bench-echo child, the
  JSON-RPC id rewritten and nothing else — \`initialize\` and \`server/discover\` answered, an
  \`Mcp-Session-Id\` for 2025-11-25 sessions, \`resultType\` stamped for 2026-07-28 — what any
  gateway on this runtime must at least spend), through the core (\`bench/floor-core.ts\`: the
  floor's HTTP handling in front of the gateway's own core — \`Gateway.callTool\` with its gate,
  call journal and upstream leg — and none of its door: no front door, security chain, router,
  session or fast path; the gateway's CPU over the core's is the door's share) and through the
  gateway (client → HTTP \`/mcp\` → gateway → stdio → upstream), these three in both protocol
  eras: 2025-11-25 sessions (SDK 1.x clients) and stateless 2026-07-28 requests (SDK v2 clients
  pinned to that revision; each request carries its own \`_meta\` envelope). The direct HTTP
  upstream answers with SSE streams; the gateway answers with JSON unless a notification comes
  first.
- **Clients** are SDK \`Client\`s in a separate Bun process (\`bench/client.ts\`), never in the
  gateway's or the harness's thread. At 8 sessions the HTTP paths open 8 sessions (8 stateless
  clients for 2026-07-28); stdio has one
  session per process, so direct stdio runs 8 concurrent call loops over one connection — as the
  gateway itself does upstream.
- **Cells** warm up, then run until a call count or a time limit, whichever comes first. The
  paths of a cell run back to back, rotating order each repetition; the tables show medians over
  repetitions, and ratios are medians of per-repetition ratios; a goal against the floor also shows
  the lowest and highest of those (\`reps 1.45–2.32×\`): how far one repetition moves here.
- **CPU per call** is utime+stime from \`/proc/<pid>/stat\` of the gateway or the floor (and of the upstream,
  whose pid its \`pid\` tool reports) across the measured phase, divided by successful calls; the
  client's is \`process.cpuUsage()\`. At 10 ms clock ticks it is exact to about ±1% in full runs.
- **Cold start** is spawn → a fresh SDK client's \`tools/list\` (polled every 5 ms) listing every
  configured server; the upstream baselines are spawn → \`initialize\` / → \`tools/list\` with an SDK
  stdio client, one at a time and all three together (on 2 cores three Node start-ups compete).
- **RSS** is \`VmRSS\` from \`/proc/<pid>/status\` after 1 s idle, sampled every 100 ms under load,
  and \`VmHWM\` for the peak. The Lua round trip goal is judged on the per-call cost inside a script
  minus a direct stdio call's p50 (the part the scripting layer adds), unless \`bench/lua.ts\`
  reports its in-process round trip, which then decides.`;

/** `; reps 1.45–2.32×`: the per-repetition ratios' range, when there was more than one. */
function spreadNote(range: readonly number[]): string {
  const [low, high] = range;
  if (low === undefined || high === undefined || low === high) return "";
  return `; reps ${low.toFixed(2)}–${ratio(high)}`;
}
