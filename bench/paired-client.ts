/**
 * The paired load client (`bun bench/paired-client.ts SPEC-JSON`), run as its own process on the
 * load CPU: connects to every arm (a server reached one way, e.g. the floor in one era), warms
 * each up, then runs `cycles` cycles; a cycle serves each arm one short window of
 * `windowCalls` calls, the arms one after the other and their order rotated every cycle. It
 * reads each arm's server CPU itself, per thread from `/proc/<pid>/task/<tid>/schedstat`
 * (nanoseconds, not the 10 ms ticks of `/proc/<pid>/stat`), and charges to a window everything
 * its process spent from that window's start to the start of its next window (or to a short
 * rest after the last): work a window leaves behind — the compiler, the collector — is its own,
 * and nothing the process did for another window is. Prints one `{"type":"result"}` line.
 *
 * Why windows this short: on a shared machine what a call costs drifts by tens of percent within
 * seconds, and arms compared across cells minutes apart read the drift. Windows a tenth of a
 * second apart read the same machine.
 */
import { readdirSync, readFileSync } from "node:fs";
import { type Callers, connectCallers } from "./callers.ts";
import type { LoadSpec } from "./load.ts";
import { sleep } from "./stats.ts";

/** One way to reach one server process. */
export interface PairedArm {
  label: string;
  /** The server process whose CPU the arm's windows are charged. */
  pid: number;
  target: LoadSpec["target"];
  tool: string;
  argName: string;
}

/** What the paired client is told to do. */
export interface PairedSpec {
  arms: PairedArm[];
  sessions: number;
  payloadBytes: number;
  /** Check that each answer echoes the payload whole. */
  verify: boolean;
  /** Calls per arm before the first cycle. */
  warmupCalls: number;
  windowCalls: number;
  cycles: number;
  /** The whole run stops starting cycles after this long. */
  maxMs: number;
}

/** One window: an arm's calls in one cycle and the CPU charged to them. */
export interface PairedWindow {
  cycle: number;
  label: string;
  calls: number;
  errors: number;
  elapsedMs: number;
  cpuMs: number;
}

/** What the paired client reports. */
export interface PairedResult {
  type: "result";
  windows: PairedWindow[];
  firstError: string | null;
}

/** On-CPU time of each live thread of `pid`, in ns, by thread id. */
function threadNs(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      out.set(
        tid,
        Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]),
      );
    } catch { /* the thread ended between the listing and the read */ }
  }
  return out;
}

/**
 * CPU spent between two readings, in ms: each thread's growth, a thread born in between counted
 * from zero. A thread that ended in between took its last stretch with it (the runtime ends its
 * helper threads after they have idled a while, so that stretch is mostly idle).
 */
function spentMs(before: Map<string, number>, after: Map<string, number>): number {
  let ns = 0;
  for (const [tid, now] of after) ns += now - (before.get(tid) ?? 0);
  return ns / 1e6;
}

async function main(spec: PairedSpec): Promise<PairedResult> {
  const connected: Callers[] = [];
  let firstError: string | null = null;
  try {
    for (const arm of spec.arms) connected.push(await connectCallers(arm.target, spec.sessions));
    // Each arm's arguments, made once: the same payload for every call.
    const payload = "x".repeat(spec.payloadBytes);
    const argsOf = spec.arms.map((arm) => ({ [arm.argName]: payload }));
    /** Serves `count` calls to arm `i` over its sessions; returns how many failed. */
    const serve = async (i: number, count: number): Promise<number> => {
      const arm = spec.arms[i]!;
      const callArgs = argsOf[i]!;
      let left = count;
      let errors = 0;
      await Promise.all(connected[i]!.callers.map(async (caller) => {
        while (left-- > 0) {
          try {
            const result = await caller.callTool({ name: arm.tool, arguments: callArgs });
            const text = (result.content as { text?: string }[])[0]?.text ?? "";
            if (result.isError || (spec.verify && text.length !== spec.payloadBytes)) {
              throw new Error(`unexpected result: ${text.slice(0, 200)}`);
            }
          } catch (err) {
            errors++;
            firstError ??= `${arm.label}: ${String(err)}`;
          }
        }
      }));
      return errors;
    };
    for (let i = 0; i < spec.arms.length; i++) await serve(i, spec.warmupCalls);
    // Readings at each window's start, by arm; a process's window is charged up to the start
    // of that process's next window, so the readings are kept by pid.
    const open = new Map<number, { at: Map<string, number>; window: PairedWindow }>();
    const windows: PairedWindow[] = [];
    const close = (pid: number, now: Map<string, number>) => {
      const last = open.get(pid);
      if (last) last.window.cpuMs = spentMs(last.at, now);
    };
    const deadline = performance.now() + spec.maxMs;
    for (let cycle = 0; cycle < spec.cycles && performance.now() < deadline; cycle++) {
      for (let k = 0; k < spec.arms.length; k++) {
        const i = (k + cycle) % spec.arms.length;
        const arm = spec.arms[i]!;
        const at = threadNs(arm.pid);
        close(arm.pid, at);
        const window: PairedWindow = {
          cycle,
          label: arm.label,
          calls: spec.windowCalls,
          errors: 0,
          elapsedMs: 0,
          cpuMs: Number.NaN,
        };
        const t0 = performance.now();
        window.errors = await serve(i, spec.windowCalls);
        window.elapsedMs = performance.now() - t0;
        windows.push(window);
        open.set(arm.pid, { at, window });
      }
    }
    // What the last windows left behind: a rest as long as a cycle's other windows take.
    await sleep(Math.min(500, windows.at(-1)?.elapsedMs ?? 0) * (spec.arms.length - 1));
    for (const pid of open.keys()) close(pid, threadNs(pid));
    return { type: "result", windows, firstError };
  } finally {
    await Promise.all(connected.map((c) => c.close()));
  }
}

const result = await main(JSON.parse(process.argv[2] ?? "{}") as PairedSpec);
console.log(JSON.stringify(result));
process.exit(0);
