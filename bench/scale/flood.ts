/**
 * A client that stops reading: one 2025 session opens its GET stream over a raw socket and stops
 * reading it, while an upstream (`log-flood.mjs`) sends `floodBytes` of log messages to every
 * session. The gateway may hold `gateway.limits.streamBuffer` for that stream (it drops the oldest
 * log messages past it); what its peak RSS grows by over the flood is the figure, beside the
 * bound the goal allows (the buffer per stuck stream and 10 MiB). Each session's replay store
 * keeps up to the same buffer of log messages for a resume, so it counts too.
 */
import { spawn } from "node:child_process";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { ROOT, SERVER_ENV } from "../procs.ts";
import { mib, sleep } from "../stats.ts";
import type { ScalePlan } from "./run.ts";
import {
  openSession,
  POST_HEADERS,
  type ScaleGateway,
  settledRss,
  startScaleGateway,
} from "./gateway.ts";

const FLOOD = join(ROOT, "test/fixtures/servers/log-flood.mjs");
const MiB = 1024 * 1024;
/** The stuck stream's buffer: the gateway's `gateway.limits.streamBuffer`, as configured here. */
const STREAM_BUFFER = 2 * MiB;
/** One log message of the flood. */
const MESSAGE_BYTES = 64 * 1024;

/** What the flood part measured. */
export interface FloodReport {
  /** Peak RSS growth over the flood, bytes. */
  growth: number;
  /** The same of a bare runtime process that only reads and parses the flood's lines. */
  floor: number | null;
  /** What the goal allows: the buffer of the one stuck stream, and 10 MiB. */
  bound: number;
  markdown: string;
}

export async function benchFlood(
  argv: readonly string[],
  plan: ScalePlan,
  say: (line: string) => void,
): Promise<FloodReport> {
  const gw = await startScaleGateway(
    argv,
    `gateway:\n  limits: { streamBuffer: ${STREAM_BUFFER / MiB}MiB }\nservers:\n` +
      `  flood: { command: node, args: [${JSON.stringify(FLOOD)}] }\n`,
  );
  let stuck: Socket | undefined;
  try {
    const stuckSid = await openSession(gw.url);
    const other = await openSession(gw.url);
    stuck = await stopReading(gw, stuckSid);
    await sleep(2_000);
    const before = gw.rss();
    const resetOk = gw.resetPeak();
    const count = Math.ceil(plan.floodBytes / MESSAGE_BYTES);
    const t0 = performance.now();
    await call(gw, other, "flood__flood", { count, bytes: MESSAGE_BYTES });
    // Bounded: the flood goes as fast as the gateway reads it, a few seconds for 100 MiB.
    const deadline = t0 + 120_000;
    while (Number(await call(gw, other, "flood__sent", {})) < count) {
      if (performance.now() > deadline) throw new Error("the flood did not end in 120 s");
      await sleep(100);
    }
    const ms = performance.now() - t0;
    await sleep(1_000);
    const growth = Math.max(0, (resetOk ? gw.peak() : gw.rss()) - before);
    const bound = STREAM_BUFFER + 10 * MiB;
    const after = await settledRss(gw, 10_000);
    say(`scale: ${mib(count * MESSAGE_BYTES)} flood, one stuck stream: peak +${mib(growth)}`);
    // The floor is the bench's own runtime: beside a gateway on another one it says nothing.
    const sameRuntime = !argv.some((a) => /(^|\/)deno$/.test(a));
    const floor = sameRuntime ? await floodFloor(count, MESSAGE_BYTES) : null;
    const reading = sameRuntime ? await floodFloor(count, MESSAGE_BYTES, true) : null;
    if (floor !== null) say(`scale: the same flood read by a bare runtime: peak +${mib(floor)}`);
    return {
      growth,
      floor,
      bound,
      markdown: `A ${mib(count * MESSAGE_BYTES)} flood of log messages (${count} × ` +
        `${MESSAGE_BYTES / 1024} KiB, sent in ${(ms / 1000).toFixed(1)} s) to two sessions, one ` +
        `of which stopped reading its GET stream (\`streamBuffer: ${STREAM_BUFFER / MiB}MiB\`): ` +
        `RSS before ${mib(before)}, peak growth ${mib(growth)} against ${mib(bound)} allowed ` +
        `(the stuck stream's buffer and 10 MiB); RSS 10 s after the flood ${mib(after)}. Each ` +
        `session's replay store keeps up to the same buffer of log messages for a resume${
          resetOk ? "" : " (RSS after, not the peak: the kernel " +
            "refused the peak reset)"
        }.` + (floor === null
          ? ""
          : ` The runtime's floor: a bare ${
            process.versions.bun ? "Bun" : "runtime"
          } process that only cuts the same lines and parses them grows by ${mib(floor)} at ` +
            `its peak (\`bench/scale/flood-floor.ts\`), the gateway ${mib(growth - floor)} more; ` +
            `reading the flood's bytes off the pipe alone, nothing cut or parsed, ${
              mib(reading!)
            }.`),
    };
  } finally {
    stuck?.destroy();
    await gw.stop();
  }
}

/**
 * Peak RSS growth of a bare process of this runtime reading the same flood
 * (`./flood-floor.ts`; `readOnly`: only its bytes, nothing cut or parsed); null when it cannot be
 * measured here (not Bun).
 */
async function floodFloor(count: number, bytes: number, readOnly = false): Promise<number | null> {
  if (!process.versions.bun) return null;
  const child = spawn(process.execPath, [
    join(ROOT, "bench/scale/flood-floor.ts"),
    `${count}`,
    `${bytes}`,
    ...(readOnly ? ["read"] : []),
  ], {
    stdio: ["ignore", "pipe", "inherit"],
    env: SERVER_ENV, // as the gateway beside it runs
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  if (code !== 0) throw new Error(`flood-floor.ts exited ${code}`);
  const report = JSON.parse(out) as { parsed: number; read: number; growth: number };
  if (readOnly ? report.read < count * bytes : report.parsed !== count) {
    throw new Error(
      `flood-floor.ts read ${report.read} bytes, parsed ${report.parsed} of ${count}`,
    );
  }
  return report.growth;
}

/** One `tools/call` on a 2025 session; the first text of its result. */
async function call(gw: ScaleGateway, sid: string, name: string, args: object): Promise<string> {
  const res = await fetch(`${gw.url}/mcp`, {
    method: "POST",
    headers: { ...POST_HEADERS, "mcp-session-id": sid },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args },
    }),
  });
  const text = await res.text();
  const found = /"text":"((?:[^"\\]|\\.)*)"/.exec(text);
  if (res.status !== 200 || !found) throw new Error(`${name} answered ${res.status}: ${text}`);
  return JSON.parse(`"${found[1]}"`) as string;
}

/** Opens `sid`'s GET stream over a raw socket, waits for its head, then stops reading it. */
function stopReading(gw: ScaleGateway, sid: string): Promise<Socket> {
  const { host } = new URL(gw.url);
  const [hostname, port] = [
    host.slice(0, host.lastIndexOf(":")),
    host.slice(host.lastIndexOf(":") + 1),
  ];
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let head = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error("the GET stream did not open in 10 s"));
    }, 10_000);
    socket.on("error", reject);
    socket.on("data", (d: Buffer) => {
      head += d.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      clearTimeout(timer);
      if (!head.startsWith("HTTP/1.1 200")) reject(new Error(head.split("\r\n")[0]));
      socket.pause();
      resolve(socket);
    });
    socket.write(
      `GET /mcp HTTP/1.1\r\nHost: ${host}\r\nAccept: text/event-stream\r\n` +
        `Mcp-Session-Id: ${sid}\r\nMcp-Protocol-Version: 2025-11-25\r\n\r\n`,
    );
  });
}
