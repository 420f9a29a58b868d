/**
 * The request path's own CPU, in process: `bun bench/door.ts [--calls=N] [--reps=N]
 * [--era=2025-11-25|2026-07-28] [--against=DIR]` starts a gateway with no upstreams
 * (`gateway.exposure: search`, so its own `tool_search` exists) and serves `tools/call
 * tool_search` requests through `RunningGateway.fetch` — the front door, lifecycle, security
 * chain, router, the era's door and the core, exactly as the HTTP server hands them over, without
 * a socket, a client process or an upstream pipe. It prints the CPU per call (µs, this process:
 * the request's construction and the answer's read included) as the median of the repetitions
 * and their range.
 *
 * Across processes, one repetition of the same build moves by 20–40% on a shared 2-core machine
 * (`npm run bench`); here, with nothing crossing a process, it moves by about 10% on a quiet
 * machine, so a change of a few per cent to the door is visible in two builds run one after the
 * other. On a busy machine two runs differ by more than that: `--against=DIR` (another checkout
 * of this repository, its dependencies installed) starts that tree's gateway in this same process
 * too and serves the two alternately, `--reps` blocks of `--calls` calls each (the order swapped
 * every block), so the load hits both alike; it prints each one's CPU per call and the median of
 * the per-block ratios (this tree ÷ the other). Running it with `--against` naming this very tree
 * shows what the method itself reads as a difference. It measures the door and the core, not the
 * upstream leg, and not the runtime's HTTP server.
 */
import { resolve } from "node:path";
import { openInProcess } from "./in-process.ts";
import { median } from "./stats.ts";

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const calls = Number(arg("calls", "20000"));
const reps = Number(arg("reps", "5"));
const era = arg("era", "2025-11-25");
const against = arg("against", "");

/** A gateway of the tree at `root`, served in process, and how to send it `n` calls. */
interface Door {
  run(n: number): Promise<void>;
  stop(): Promise<void>;
}

async function openDoor(root: string): Promise<Door> {
  const door = await openInProcess(
    root,
    "gateway: { exposure: search }\nservers: {}\n",
    era,
    "tool_search",
  );
  return {
    async run(n) {
      for (let i = 1; i <= n; i++) {
        const text = await (await door.post(door.call(i, { query: "x" }))).text();
        if (i === 1 && !text.includes('"result"')) throw new Error(`not a result: ${text}`);
      }
    },
    stop: () => door.stop(),
  };
}

/** CPU of this process per call while `door` serves `n` calls, in µs. */
async function cpuPerCall(door: Door, n: number): Promise<number> {
  const before = process.cpuUsage();
  await door.run(n);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

const spread = (values: number[]) =>
  `${median(values).toFixed(1)} (range ${Math.min(...values).toFixed(1)}–` +
  `${Math.max(...values).toFixed(1)})`;

const doors = [await openDoor(resolve(import.meta.dirname!, ".."))];
try {
  if (against) doors.push(await openDoor(resolve(against)));
  // Warm-up: every function of the path reaches its top tier.
  for (const door of doors) await door.run(calls);
  const perCall: number[][] = doors.map(() => []);
  for (let r = 0; r < reps; r++) {
    const order = r % 2 === 0 ? doors.keys() : [...doors.keys()].reverse();
    for (const i of order) perCall[i]!.push(await cpuPerCall(doors[i]!, calls));
  }
  const [own, other] = perCall as [number[], number[] | undefined];
  if (!other) {
    const low = Math.min(...own).toFixed(1);
    const high = Math.max(...own).toFixed(1);
    console.log(
      `${era}: ${median(own).toFixed(1)} µs of CPU per call (${reps} × ${calls} calls, ` +
        `range ${low}–${high})`,
    );
  } else {
    const ratios = own.map((v, k) => v / other[k]!);
    console.log(
      `${era}: this tree ${spread(own)} µs, ${against} ${spread(other)} µs of CPU per call; ` +
        `this ÷ that per block ${median(ratios).toFixed(3)} (range ` +
        `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}), ${reps} blocks × ` +
        `${calls} calls`,
    );
  }
} finally {
  for (const door of doors) await door.stop();
}
process.exit(0);
