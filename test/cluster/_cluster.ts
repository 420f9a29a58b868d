/**
 * Helpers for the cluster tests: free loopback ports, a throw-away `redis-server`, gateway
 * processes (the compiled binary when MCPGW_BINARY is set, else the source on this runtime),
 * HAProxy with the shipped `deploy/haproxy.cfg`, and raw 2026-07-28 requests.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { Redis } from "ioredis";
import { join } from "node:path";
import { selfCommand } from "../../src/runtime/mod.ts";
import { ROOT } from "../_helpers/gateway.ts";
import { alive, descendants } from "../ops/_ops.ts";

/** Why the cluster tests cannot run here, or false when they can. */
export function missingTools(): string | false {
  const missing = ["haproxy", "redis-server"].filter((tool) =>
    spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0
  );
  return missing.length > 0
    ? `${missing.join(" and ")} not on PATH (apt-get install ${missing.join(" ")})`
    : false;
}

/** A free TCP port on 127.0.0.1 (bound, read, released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** A child process and its output. */
export interface Proc {
  readonly child: ChildProcess;
  readonly pid: number;
  output: string;
  readonly exited: Promise<void>;
  /** SIGKILL by PID, then wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM by PID; SIGKILL when it has not exited after `ms`. */
  stop(ms?: number): Promise<void>;
}

function track(child: ChildProcess): Proc {
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const proc: Proc = {
    child,
    pid: child.pid!,
    output: "",
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, "SIGKILL");
      await exited;
    },
    async stop(ms = 5_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(child.pid!, "SIGTERM");
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(true), ms)));
      if (await Promise.race([exited.then(() => false), late])) await proc.kill();
      clearTimeout(timer);
    },
  };
  child.stdout?.on("data", (d: Buffer) => (proc.output += d.toString("utf8")));
  child.stderr?.on("data", (d: Buffer) => (proc.output += d.toString("utf8")));
  return proc;
}

/** Polls `fn` until it is truthy; throws after `ms`. */
export async function until<T>(
  fn: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  ms: number,
  what: string,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as T;
    } catch { /* not yet */ }
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts `redis-server` on `port` without persistence and waits until it answers PING. */
export async function startRedis(port: number): Promise<Proc> {
  const proc = track(spawn("redis-server", [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
  ], { stdio: ["ignore", "pipe", "pipe"] }));
  await until(() => proc.output.includes("Ready to accept connections"), 10_000, "redis");
  return proc;
}

/** A gateway process listening on a port of its own choosing. */
export interface GatewayProc extends Proc {
  readonly url: string;
  readonly port: number;
}

/** Starts one gateway on 127.0.0.1:0 and waits for it to be ready. */
export async function startGatewayProc(configFile: string): Promise<GatewayProc> {
  const [cmd, ...pre] = process.env.MCPGW_BINARY ? [process.env.MCPGW_BINARY] : selfCommand();
  const proc = track(spawn(cmd!, [
    ...pre,
    "--config",
    configFile,
    "--listen",
    "127.0.0.1:0",
    "--log-level",
    "info",
  ], { stdio: ["ignore", "ignore", "pipe"] }));
  const line = await until(
    () => proc.output.split("\n").find((l) => l.includes('"msg":"listening"')) ?? "",
    30_000,
    "the gateway's listening line",
  ).catch((err) => {
    void proc.kill();
    throw new Error(`${(err as Error).message}\n${proc.output}`);
  });
  const url = String(JSON.parse(line).url).replace(/\/mcp$/, "");
  await until(async () => (await fetch(`${url}/readyz`)).status === 200, 30_000, "readyz");
  return Object.assign(proc, { url, port: Number(new URL(url).port) });
}

/** Starts HAProxy with the shipped config in front of `gateways`. */
export async function startHaproxy(
  lbPort: number,
  gateways: readonly GatewayProc[],
): Promise<Proc> {
  const env: Record<string, string> = {
    ...process.env as Record<string, string>,
    MCPGW_LB_BIND: `127.0.0.1:${lbPort}`,
    MCPGW_LB_STATS: `127.0.0.1:${await freePort()}`,
  };
  gateways.forEach((g, i) => (env[`MCPGW_GW${i + 1}`] = `127.0.0.1:${g.port}`));
  const proc = track(
    spawn("haproxy", ["-db", "-f", join(ROOT, "deploy/haproxy.cfg")], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  await until(async () => (await fetch(`http://127.0.0.1:${lbPort}/readyz`)).ok, 10_000, "haproxy")
    .catch((err) => {
      throw new Error(`${(err as Error).message}\n${proc.output}`);
    });
  return proc;
}

/** Every live process started under `pids` (themselves and their descendants). */
export function processTree(pids: readonly number[]): number[] {
  return pids.flatMap((pid) => [pid, ...descendants(pid)]).filter(alive);
}

export { alive, descendants };

/**
 * The processes of `started` still alive 5 s from now (each then killed with SIGKILL by its
 * PID): a test asserts the list is empty.
 */
export async function outlived(started: readonly number[]): Promise<number[]> {
  const left = await until(
    () => started.filter(alive).length === 0 ? [] : null,
    5_000,
    "every started process to exit",
  ).catch(() => started.filter(alive));
  for (const pid of left) process.kill(pid, "SIGKILL");
  return left;
}

/** One raw 2026-07-28 `tools/call`; answers the parsed JSON-RPC body. */
export async function rawCall(
  url: string,
  params: Record<string, unknown>,
  token: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": String(params.name),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": { sampling: {}, elicitation: {} },
        },
      },
    }),
  });
  const text = await res.text();
  const json = text.startsWith("{")
    ? text
    : text.split("\n").find((l) => l.startsWith("data: "))?.slice(6) ?? "{}";
  return { status: res.status, body: JSON.parse(json) };
}

/** Reads one gauge or counter from a gateway's `/metrics`. */
export async function metric(
  url: string,
  name: string,
  headers: Record<string, string>,
): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`, { headers })).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(" ")[1]) : undefined;
}

/** How many times Redis ran each command so far (`INFO commandstats`): the round trips. */
export async function redisCalls(port: number): Promise<Record<string, number>> {
  const redis = new Redis({ port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await redis.connect();
    const out: Record<string, number> = {};
    for (const m of (await redis.info("commandstats")).matchAll(/cmdstat_(\w+):calls=(\d+)/g)) {
      out[m[1]!] = Number(m[2]);
    }
    return out;
  } finally {
    redis.disconnect();
  }
}

/** Calls of `commands` between two {@link redisCalls} snapshots. */
export function callsBetween(
  before: Record<string, number>,
  after: Record<string, number>,
  ...commands: string[]
): number {
  return commands.reduce((n, c) => n + (after[c] ?? 0) - (before[c] ?? 0), 0);
}
