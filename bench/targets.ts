/**
 * The ways the throughput part reaches its one upstream (the bench-echo fixture), the server
 * processes behind them, and what a load cell is told for each: which URL or command, which
 * tool, which era, and which process's CPU it is charged to.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Era, LoadSpec } from "./load.ts";
import { type Peer, type PeerName, PEERS, startPeer } from "./peers.ts";
import { onCpu, type Pinning } from "./pinning.ts";
import {
  BENCH_ECHO,
  BENCH_ECHO_CONFIG,
  type GatewayMode,
  type GatewayProcess,
  type ServerProcess,
  startFloor,
  startFloorCore,
  startGatewayProcess,
  startHttpUpstream,
} from "./procs.ts";

/** Every way to reach the upstream, in the order the report lists them. */
export const TARGETS = [
  "direct HTTP",
  "direct stdio",
  "floor 2025-11-25",
  "floor 2026-07-28",
  "core 2025-11-25",
  "core 2026-07-28",
  "gateway 2025-11-25",
  "gateway 2026-07-28",
  "gateway /sse 2025-11-25",
  "mcp-proxy 2025-11-25",
  "supergateway 2025-11-25",
] as const;
/** One of {@link TARGETS}. */
export type Target = typeof TARGETS[number];

/** The paths of the session × payload matrix. */
export const MATRIX_TARGETS: readonly Target[] = TARGETS.slice(0, 9);
/**
 * The 2025 SSE transport's door (`/sse` and `/message`): in the matrix for large results only,
 * where its own goal is (the small calls' goals are `/mcp`'s).
 */
export const SSE_TARGET: Target = "gateway /sse 2025-11-25";
/** The paths measured with many concurrent clients: the floor and the gateway, both eras. */
export const CROWD_TARGETS: readonly Target[] = [
  "floor 2025-11-25",
  "floor 2026-07-28",
  "gateway 2025-11-25",
  "gateway 2026-07-28",
];
/** The peers' paths, and the gateway path each is compared with (same era, same cell). */
export const PEER_TARGETS: readonly Target[] = ["mcp-proxy 2025-11-25", "supergateway 2025-11-25"];

/** The protocol era a target speaks; undefined for the direct paths. */
export function eraOf(target: Target): Era | undefined {
  if (target.endsWith(" 2025-11-25")) return "2025-11-25";
  if (target.endsWith(" 2026-07-28")) return "2026-07-28";
  return undefined;
}

/** The peer a target goes through, if it is a peer's. */
export function peerOf(target: Target): PeerName | undefined {
  return PEERS.find((p) => target.startsWith(`${p} `));
}

/** The server processes of a throughput run. */
export interface Servers {
  pinning: Pinning;
  http: ServerProcess;
  floor: ServerProcess;
  core: ServerProcess;
  gateway: GatewayProcess;
  /** The peers asked for, each started or with the reason it is not. */
  peers: Peer[];
}

/** Starts every server pinned to `pinning.server`; stops what it started if one fails. */
export async function startServers(opts: {
  pinning: Pinning;
  gatewayMode: GatewayMode;
  workDir: string;
  peers: boolean;
}): Promise<Servers> {
  const cpu = opts.pinning.server;
  const started: { stop(): Promise<void> }[] = [];
  const keep = <T extends { stop(): Promise<void> }>(p: T) => (started.push(p), p);
  try {
    const configFile = join(opts.workDir, "throughput.yaml");
    writeFileSync(
      configFile,
      BENCH_ECHO_CONFIG,
    );
    const http = keep(await startHttpUpstream(cpu));
    const floor = keep(await startFloor(cpu));
    const core = keep(await startFloorCore(cpu));
    const gateway = keep(
      await startGatewayProcess({
        mode: opts.gatewayMode,
        configFile,
        expect: ["bench__"],
        logFile: join(opts.workDir, "throughput-gateway.log"),
        cpu,
      }),
    );
    // Side by side: each start is mostly a Node process loading its modules.
    const peers = await Promise.all(
      (opts.peers ? PEERS : []).map((name) =>
        startPeer(name, cpu, join(opts.workDir, `peer-${name}.log`))
      ),
    );
    for (const peer of peers) if (peer.server) keep(peer.server);
    return { pinning: opts.pinning, http, floor, core, gateway, peers };
  } catch (err) {
    for (const p of started.reverse()) await p.stop();
    throw err;
  }
}

/** Stops every server of the run, the gateway first. */
export async function stopServers(s: Servers): Promise<void> {
  for (const peer of s.peers) await peer.server?.stop();
  await s.gateway.stop();
  await s.core.stop();
  await s.floor.stop();
  await s.http.stop();
}

/** What the load client does for `target`, given the cell's size (`base`). */
export function specOf(
  target: Target,
  base: Omit<LoadSpec, "target" | "tool" | "argName" | "pidTool">,
  s: Servers,
): LoadSpec {
  const era = eraOf(target);
  const peer = peerOf(target);
  const direct = { tool: "echo", argName: "text", pidTool: "pid" };
  if (target === "direct HTTP") {
    return { ...base, ...direct, target: { kind: "http", url: s.http.url } };
  }
  if (target === "direct stdio") {
    const [command, ...args] = onCpu(s.pinning.server, ["node", BENCH_ECHO]);
    return { ...base, ...direct, target: { kind: "stdio", command: command!, args } };
  }
  if (target.startsWith("floor")) {
    return { ...base, ...direct, target: { kind: "http", url: s.floor.url, era } };
  }
  if (peer) {
    const url = s.peers.find((p) => p.name === peer)?.server?.url ?? "";
    // supergateway gives each session a server process of its own: one pid is not the upstream.
    const pidTool = peer === "supergateway" && base.sessions > 1 ? undefined : "pid";
    return { ...base, ...direct, pidTool, target: { kind: "http", url, era } };
  }
  const gateway = { ...base, tool: "bench__echo", argName: "text", pidTool: "bench__pid" };
  if (target === SSE_TARGET) {
    return { ...gateway, target: { kind: "sse", url: `${s.gateway.url}/sse` } };
  }
  const url = target.startsWith("core") ? s.core.url : `${s.gateway.url}/mcp`;
  return { ...gateway, target: { kind: "http", url, era } };
}

/** The process a target's CPU per call is read from (none for the direct paths). */
export function watchedPid(target: Target, s: Servers): number | null {
  const peer = peerOf(target);
  if (peer) return s.peers.find((p) => p.name === peer)?.server?.pid ?? null;
  if (target.startsWith("floor")) return s.floor.pid;
  if (target.startsWith("core")) return s.core.pid;
  if (target.startsWith("gateway")) return s.gateway.pid;
  return null;
}
