/**
 * The peers: other programs that put a stdio MCP server behind streamable HTTP, each started in
 * front of the same bench-echo upstream the gateway serves, so the throughput part can set the
 * gateway's CPU per call and calls/s beside theirs in one run. Each runs under Node (the
 * runtime they are published for) from this repository's exact-version devDependencies, pinned
 * like every server of the run. Configured as a user who wants speed would: mcp-proxy with its
 * streamable HTTP endpoint only; supergateway stateful (stateless, it spawns a server per
 * request) and with its per-message logging off. A peer that is not installed or does not
 * start is reported with the reason instead of failing the run.
 */
import { openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { onCpu } from "./pinning.ts";
import {
  BENCH_ECHO,
  freePort,
  ROOT,
  type ServerProcess,
  stopChild,
  track,
  waitForTools,
} from "./procs.ts";

/** The peers the bench knows, by npm package name. */
export const PEERS = ["mcp-proxy", "supergateway"] as const;
/** One of {@link PEERS}. */
export type PeerName = typeof PEERS[number];

/** A peer as started: its process, or the reason there is none. */
export interface Peer {
  name: PeerName;
  /** Installed version, or "?" when the package is missing. */
  version: string;
  server: ServerProcess | null;
  reason: string | null;
}

/** supergateway listens on every interface and has no option to narrow it: see the preload. */
const LOOPBACK = join(ROOT, "bench/peer-loopback.mjs");

/** Arguments after `node` that start the peer's `bin` on `port`, in front of bench-echo. */
const ARGS: Record<PeerName, (bin: string, port: number) => string[]> = {
  "mcp-proxy": (bin, port) => [
    bin,
    ...["--host", "127.0.0.1", "--port", String(port), "--server", "stream"],
    ...["--", "node", BENCH_ECHO],
  ],
  supergateway: (bin, port) => [
    ...["--import", LOOPBACK, bin],
    // A shell command line: supergateway spawns it through the shell.
    ...["--stdio", `node ${JSON.stringify(BENCH_ECHO)}`],
    ...["--outputTransport", "streamableHttp", "--stateful", "--port", String(port)],
    ...["--logLevel", "none"],
  ],
};

/** Starts one peer pinned to `cpu`; never throws: a peer that cannot run carries its reason. */
export async function startPeer(
  name: PeerName,
  cpu: string | null,
  logFile: string,
  timeoutMs = 60_000,
): Promise<Peer> {
  const pkg = packageOf(name);
  if (!pkg) {
    return { name, version: "?", server: null, reason: `${name} is not installed (npm install)` };
  }
  const port = await freePort();
  const log = openSync(logFile, "a");
  const argv = onCpu(cpu, ["node", ...ARGS[name](pkg.bin, port)]);
  const child = track(argv[0]!, argv.slice(1), { stdio: ["ignore", log, log] });
  const url = `http://127.0.0.1:${port}/mcp`;
  try {
    await waitForTools(url, ["echo"], child, performance.now() + timeoutMs);
  } catch (err) {
    await stopChild(child);
    const tail = readFileSync(logFile, "utf8").trim().split("\n").slice(-3).join(" / ");
    const why = String(err instanceof Error ? err.message : err).split("\n")[0];
    return { name, version: pkg.version, server: null, reason: `did not start: ${why} ${tail}` };
  }
  return {
    name,
    version: pkg.version,
    server: { pid: child.pid!, url, stop: () => stopChild(child) },
    reason: null,
  };
}

/** The installed package's version and the absolute path of its command. */
function packageOf(name: PeerName): { version: string; bin: string } | null {
  const dir = join(ROOT, "node_modules", name);
  try {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      version: string;
      bin: string | Record<string, string>;
    };
    const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin[name];
    return bin ? { version: pkg.version, bin: join(dir, bin) } : null;
  } catch {
    return null;
  }
}
