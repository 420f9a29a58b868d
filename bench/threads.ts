/**
 * CPU per call by thread, phase by phase: `bun bench/threads.ts [--target=gateway|floor]
 * [--era=2025-11-25|2026-07-28] [--sessions=N] PHASE…`, where a phase is `s:N` (N calls with 100 B
 * of payload), `L:N` (N calls with 1 MiB), `X:N` (N calls with 8 MiB) or `P:MS` (no call for MS
 * ms). Default phases: `s:20000 s:3000 L:60 s:3000 s:3000 s:3000`.
 *
 * A cell of `npm run bench` adds up every thread of the server's process. This splits them: the
 * main thread, which serves the calls, and the others — on Bun the optimising compilers
 * (`JITWorker`), the collector's helpers and the allocator's scavenger (`mi-scavenger`) — read from
 * `/proc/<pid>/task/*\/stat` before and after each phase, in µs per call, their sum and, in
 * brackets, each thread name's share. So it shows what a whole cell hides: how long the
 * compiler keeps working after start, and whether something (large answers, a pause) makes it work
 * again. Each phase also prints the main thread's sleeps and the process's page faults per call,
 * and the calls per second. Pinned as the bench pins: the server and its upstream on one CPU,
 * the client on another. The gateway is the compiled binary (`MCPGW_BINARY` names another build).
 * Linux only.
 */
import { readdirSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { choosePinning, onCpu } from "./pinning.ts";
import { BUN, killAll, startEchoTarget, statFields } from "./procs.ts";
import type { Era } from "./load.ts";

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const phases = process.argv.slice(2).filter((a) => !a.startsWith("--"));

/** Per phase: µs per call of the main thread and of the other threads (`+`-joined). */
async function drive(url: string, era: Era, tool: string, pid: number, sessions: number) {
  const clients = await Promise.all(Array.from({ length: sessions }, () => connect(url, era)));
  const small = { text: "x".repeat(100) };
  const large = { text: "x".repeat(1024 * 1024) };
  const huge = { text: "x".repeat(8 * 1024 * 1024) };
  const out: string[] = [];
  for (const phase of phases) {
    const [kind, count] = [phase[0], Number(phase.slice(2))];
    if (kind === "P") {
      await new Promise((resolve) => setTimeout(resolve, count));
      out.push(phase);
      continue;
    }
    const args = kind === "L" ? large : kind === "X" ? huge : small;
    const before = threadTicks(pid);
    const t0 = performance.now();
    let left = count;
    await Promise.all(clients.map(async (client) => {
      while (left-- > 0) await client.callTool({ name: tool, arguments: args });
    }));
    const after = threadTicks(pid);
    const t1 = performance.now();
    // Clock ticks of 10 ms, in µs per call. A thread that ended during the phase took its ticks
    // with it: a sum that fell is not a figure.
    const per = (a: number, b: number) => a < b ? "n/a" : ((a - b) * 10_000 / count).toFixed(0);
    const waits = ((after.waits - before.waits) / count).toFixed(2);
    const faults = ((after.faults - before.faults) / count).toFixed(1);
    const rate = (count / ((t1 - t0) / 1000)).toFixed(0);
    const names = Object.keys(after.byName)
      .map((name) => `${name}=${per(after.byName[name]!, before.byName[name] ?? 0)}`)
      .filter((share) => !share.endsWith("=0"));
    out.push(
      `${phase} ${per(after.main, before.main)} + ${per(after.other, before.other)} ` +
        `[${names.join(", ")}] ` +
        `(${waits} waits, ${faults} faults, ${rate}/s)`,
    );
  }
  console.log(out.join(" | "));
  await Promise.all(clients.map((c) => c.close()));
}

/** A client of `era` (an SDK 1.x session, or a v2 client pinned to 2026-07-28). */
async function connect(url: string, era: Era) {
  if (era === "2026-07-28") {
    const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
    const client = new Client({ name: "threads", version: "1" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return client;
  }
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = await import(
    "@modelcontextprotocol/sdk/client/streamableHttp.js"
  );
  const client = new Client({ name: "threads", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/**
 * utime + stime of `pid`'s main thread and of all its other threads, in clock ticks; how often
 * the main thread has gone to sleep (voluntary context switches): each wake-up costs the kernel's
 * share of a call; and the process's page faults (minor: a page touched for the first time since
 * the allocator gave it back), each of which costs the kernel a page's worth of work.
 */
function threadTicks(
  pid: number,
): { main: number; other: number; byName: Record<string, number>; waits: number; faults: number } {
  let main = 0;
  let other = 0;
  // Ticks of the other threads by name (a pool's number stripped: `JITWorker3` is a JITWorker).
  const byName: Record<string, number> = {};
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const faults = Number(statFields(readFileSync(`/proc/${pid}/stat`, "utf8"))[7]);
  const waits = Number(/voluntary_ctxt_switches:\s*(\d+)/.exec(status)?.[1] ?? 0);
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    } catch {
      continue; // a thread that ended meanwhile
    }
    const fields = statFields(stat);
    const ticks = Number(fields[11]) + Number(fields[12]);
    if (Number(tid) === pid) {
      main += ticks;
      continue;
    }
    other += ticks;
    let name = "?";
    try {
      name = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim().replace(/\d+$/, "");
    } catch { /* ended meanwhile: its ticks still count in the sum */ }
    byName[name] = (byName[name] ?? 0) + ticks;
  }
  return { main, other, byName, waits, faults };
}

if (process.argv.includes("--drive")) {
  const pid = Number(arg("pid", "0"));
  const sessions = Number(arg("sessions", "1"));
  await drive(arg("url", ""), arg("era", "2025-11-25") as Era, arg("tool", ""), pid, sessions);
  process.exit(0);
}

if (phases.length === 0) phases.push("s:20000", "s:3000", "L:60", "s:3000", "s:3000", "s:3000");
const target = arg("target", "gateway");
const era = arg("era", "2025-11-25");
const pinning = choosePinning();
try {
  const server = await startEchoTarget(target, { cpu: pinning.server, mode: "binary" });
  const argv = onCpu(pinning.client, [
    BUN,
    import.meta.filename!,
    "--drive",
    `--url=${server.url}`,
    `--era=${era}`,
    `--tool=${server.tool}`,
    `--pid=${server.pid}`,
    `--sessions=${arg("sessions", "1")}`,
    ...phases,
  ]);
  console.log(`${target} ${era}, ${arg("sessions", "1")} session(s); ${pinning.note}`);
  console.log("phase main + other threads, µs per call");
  const run = spawnSync(argv[0]!, argv.slice(1), { stdio: "inherit" });
  await server.stop();
  process.exitCode = run.status ?? 1;
} finally {
  killAll();
}
