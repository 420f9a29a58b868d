/**
 * What one small call allocates in the JS heap, by type: `bun bench/allocs.ts
 * [--era=2025-11-25|2026-07-28] [--calls=N]` starts a gateway in process in front of the
 * bench-echo fixture (a real stdio child), sends warm-up calls through `RunningGateway.fetch` (the
 * front door, security chain, the era's door and the core, as the HTTP server hands them over),
 * then counts the objects `N` calls leave in the heap, by type, three ways: the client's own
 * share (building each request and reading an answer of the same size, no gateway), the whole
 * path, and the core alone (`Gateway.callTool` on a context from `enterCall`: the upstream leg
 * and the answer, no door). The door's share is the whole path less the core and the client.
 *
 * How it counts: after a full collection, every object made until the next collection is still
 * counted by `heapStats()` (nothing has swept it), so the counts after `N` calls less the counts
 * before are what the calls made, dead or alive. A collection during the calls (the runtime
 * starts one once enough was allocated) would hide part of them: every whole-path call builds
 * exactly one `Request`, so a count below one per call says a collection cut the census, and it
 * is taken again with half the calls. Unlike CPU per call, these counts do not move with the
 * machine's load: a change that makes or saves an object per call shows as exactly that. Bun only
 * (`bun:jsc`).
 */
import { join } from "node:path";
import { enterCall, type Gateway } from "../src/gateway/mod.ts";
import { ANONYMOUS, callerOf } from "../src/session/door.ts";
import { openInProcess } from "./in-process.ts";
import { BENCH_ECHO } from "./procs.ts";
import { table } from "./stats.ts";

declare const Bun: { gc(force: boolean): void };
// Named through a variable: the type-check knows no `bun:jsc` module.
const jsc = "bun:jsc";
const { heapStats } = (await import(jsc)) as {
  heapStats(): { objectTypeCounts: Record<string, number> };
};

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const era = arg("era", "2025-11-25");
const calls = Number(arg("calls", "200"));
const payload = { text: "x".repeat(100) };

const door = await openInProcess(
  join(import.meta.dirname!, ".."),
  `servers:\n  bench: { command: node, args: [${JSON.stringify(BENCH_ECHO)}] }\n`,
  era,
  "bench__echo",
);
const gateway = door.gateway as Gateway;
/** The request bodies, made before counting (a client's own strings are not the gateway's). */
const bodies = Array.from({ length: calls + 1 }, (_, id) => door.call(id, payload));
/** An answer as large as the gateway's, for the client's share. */
const answered = () =>
  Promise.resolve(
    new Response(`{"result":{"content":[{"type":"text","text":"${payload.text}"}]},"id":1}`, {
      headers: { "content-type": "application/json" },
    }),
  );

type Path = "client" | "whole" | "core";
const caller = callerOf(gateway, ANONYMOUS);

/** Sends `n` calls down `path`; each answer is read whole. */
async function drive(path: Path, n: number): Promise<void> {
  for (let i = 1; i <= n; i++) {
    if (path === "core") {
      const context = enterCall(caller, { requestId: i });
      const result = await gateway.callTool("bench__echo", payload, context);
      if (result.isError) throw new Error(`the core answered an error: ${JSON.stringify(result)}`);
      continue;
    }
    const send = path === "whole" ? door.serve : answered;
    const text = await (await door.post(bodies[i % bodies.length]!, send)).text();
    if (!text.includes('"result"')) throw new Error(`not a result: ${text.slice(0, 300)}`);
  }
}

/** Objects per call by type that `n` calls down `path` made. */
async function census(path: Path, n: number): Promise<Map<string, number>> {
  Bun.gc(true);
  const before = heapStats().objectTypeCounts;
  await drive(path, n);
  const after = heapStats().objectTypeCounts;
  const made = new Map<string, number>();
  for (const type of Object.keys(after)) {
    const count = (after[type]! - (before[type] ?? 0)) / n;
    if (count !== 0) made.set(type, count);
  }
  return made;
}

try {
  for (const path of ["whole", "core"] as const) await drive(path, 3000);
  let n = calls;
  let whole = await census("whole", n);
  while ((whole.get("Request") ?? 0) < 0.99 && n > 10) {
    n = Math.floor(n / 2);
    whole = await census("whole", n);
  }
  const client = await census("client", n);
  const core = await census("core", n);
  const types = [...new Set([...whole.keys(), ...core.keys(), ...client.keys()])];
  const get = (m: Map<string, number>, t: string) => m.get(t) ?? 0;
  const rows = types
    .map((t) => {
      const door = get(whole, t) - get(core, t) - get(client, t);
      return [t, get(client, t), get(whole, t), get(core, t), door] as const;
    })
    .filter(([, ...counts]) => counts.some((c) => Math.abs(c) >= 0.05))
    .sort((a, b) => b[2] - a[2]);
  const sum = (i: 1 | 2 | 3 | 4) => rows.reduce((s, r) => s + r[i], 0);
  const f = (v: number) => v.toFixed(1);
  console.log(`${era}: objects per small call, by type (${n} calls counted)\n`);
  console.log(
    table(
      ["type", "client", "whole path", "core", "door (whole − core − client)"],
      [
        ...rows.map(([t, ...c]) => [t, ...c.map(f)]),
        ["all", f(sum(1)), f(sum(2)), f(sum(3)), f(sum(4))],
      ],
    ),
  );
} finally {
  await door.stop();
}
process.exit(0);
