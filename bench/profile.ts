/**
 * Where the gateway spends its CPU on a proxied call: `bun bench/profile.ts [--payload=BYTES]
 * [--seconds=N] [--sessions=N] [--era=2025-11-25|2026-07-28]` runs the gateway from source under Bun's sampling profiler
 * (`--cpu-prof`), drives it with the benchmark's load client, and prints the samples grouped by
 * the code they belong to (native frames are charged to the nearest JavaScript caller's group)
 * and the hottest frames. The profiler slows the gateway a little; read shares, not times.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { type Era, runCell } from "./load.ts";
import { BENCH_ECHO_CONFIG, BUN, freePort, killAll, ROOT, stopChild, track } from "./procs.ts";
import { sleep, table } from "./stats.ts";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/**
 * A `.cpuprofile` summarised: samples per code group and per hot frame, as shares. `window`
 * keeps samples between two times (ms since the profile started), e.g. the measured phase.
 */
export function summariseProfile(
  profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] },
  window: [number, number] = [0, Number.POSITIVE_INFINITY],
): {
  groups: [string, number][];
  frames: [string, number][];
  inclusive: [string, number][];
} {
  const parent = new Map<number, ProfileNode>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n);
  const groups = new Map<string, number>();
  const frames = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  let at = 0;
  for (const [i, id] of profile.samples.entries()) {
    at += (profile.timeDeltas[i] ?? 0) / 1000;
    if (at < window[0] || at > window[1]) continue;
    const node = byId.get(id);
    if (!node || /^\((idle|root|program)\)$/.test(node.callFrame.functionName)) continue;
    total++;
    let js: ProfileNode | undefined = node;
    while (js && !js.callFrame.url) js = parent.get(js.id);
    const group = js ? groupOf(js.callFrame.url) : "native (no JS caller)";
    groups.set(group, (groups.get(group) ?? 0) + 1);
    const own = node.callFrame.url
      ? `${node.callFrame.functionName || "(anonymous)"} ${shortUrl(node.callFrame.url)}:${
        node.callFrame.lineNumber + 1
      }`
      : `${node.callFrame.functionName || "(native)"} [native, from ${
        js ? `${js.callFrame.functionName || "(anonymous)"} ${shortUrl(js.callFrame.url)}` : "?"
      }]`;
    frames.set(own, (frames.get(own) ?? 0) + 1);
    const seen = new Set<string>();
    for (let n: ProfileNode | undefined = js; n; n = parent.get(n.id)) {
      if (!n.callFrame.url) continue;
      const key = `${n.callFrame.functionName || "(anonymous)"} ${shortUrl(n.callFrame.url)}:${
        n.callFrame.lineNumber + 1
      }`;
      if (!seen.has(key)) inclusive.set(key, (inclusive.get(key) ?? 0) + 1);
      seen.add(key);
    }
  }
  const share = (m: Map<string, number>) =>
    [...m.entries()].map(([k, v]): [string, number] => [k, v / Math.max(1, total)])
      .sort((a, b) => b[1] - a[1]);
  return { groups: share(groups), frames: share(frames), inclusive: share(inclusive) };
}

function shortUrl(url: string): string {
  return url.replace(/^file:\/\//, "").replace(`${ROOT}/`, "").replace(/^node_modules\//, "");
}

/** The library or source folder a script belongs to. */
function groupOf(url: string): string {
  const path = shortUrl(url);
  if (path.startsWith("src/")) return path.split("/").slice(0, 3).join("/");
  const sdk = /^@modelcontextprotocol\/sdk\/dist\/esm\/(.+)$/.exec(path);
  if (sdk) return `sdk ${sdk[1]}`;
  const pkg = /^(@[^/]+\/[^/]+|[^/]+)\//.exec(path);
  return pkg ? `${pkg[1]}` : path;
}

if ((import.meta as ImportMeta & { main?: boolean }).main) {
  const arg = (name: string, fallback: number) =>
    Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
  const era = (process.argv.find((a) => a.startsWith("--era="))?.slice(6) ?? "2025-11-25") as Era;
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-profile-"));
  const config = join(dir, "gateway.yaml");
  writeFileSync(
    config,
    BENCH_ECHO_CONFIG,
  );
  const port = await freePort();
  const gateway = track(BUN, [
    "--cpu-prof",
    `--cpu-prof-dir=${dir}`,
    join(ROOT, "src/main.ts"),
    "--config",
    config,
    "--listen",
    `127.0.0.1:${port}`,
    "--log-level",
    "warn",
  ], { stdio: ["ignore", "ignore", "inherit"] });
  const spawnedAt = performance.now();
  try {
    await sleep(2000);
    const run = await runCell({
      target: { kind: "http", url: `http://127.0.0.1:${port}/mcp`, era },
      tool: "bench__echo",
      argName: "text",
      pidTool: "bench__pid",
      verify: true,
      sessions: arg("sessions", 8),
      payloadBytes: arg("payload", 100),
      warmupCalls: 200,
      warmupMs: 1000,
      maxCalls: 200_000,
      maxMs: arg("seconds", 5) * 1000,
    }, gateway.pid!);
    // The client's shutdown follows its measured phase; trim both ends of the window a little.
    const end = performance.now() - spawnedAt - 100;
    const window: [number, number] = [end - run.elapsedMs + 200, end];
    await stopChild(gateway);
    const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
    if (!file) throw new Error("the gateway wrote no profile");
    const summary = summariseProfile(JSON.parse(readFileSync(join(dir, file), "utf8")), window);
    const pct = (rows: [string, number][]) =>
      rows.slice(0, Number(process.env.PROFILE_ROWS ?? 25)).map((
        [k, v],
      ) => [k, `${(v * 100).toFixed(1)}%`]);
    console.log(
      `${run.calls} calls, ${run.callsPerSec.toFixed(0)}/s, gateway CPU ${
        run.gatewayCpuPerCall.toFixed(3)
      } ms/call (profiler on)\n\n${table(["code", "share of samples"], pct(summary.groups))}\n\n${
        table(["frame", "self"], pct(summary.frames))
      }\n\n${table(["JavaScript frame", "inclusive"], pct(summary.inclusive))}`,
    );
  } finally {
    killAll();
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}
