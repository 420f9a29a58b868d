/**
 * What an idle 2025 session holds in the JS heap, by class: opens `N` sessions in process (each
 * with `initialize` + `notifications/initialized`, nothing else, through the 2025 door's own
 * `fetch`), collects, and prints the heap and the objects per session that `heapStats()` counts,
 * by type; with `--streams`, the same for a GET stream held open on each. Bun only (`bun:jsc`).
 * RSS at scale is `bench/scale/sessions.ts`'s; this says what it is made of.
 *
 * `bun bench/scale/heap.ts [N=1000] [--streams]`
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../../src/config/mod.ts";
import { Gateway } from "../../src/gateway/mod.ts";
import { SessionRegistry } from "../../src/session/legacy/mod.ts";
import { createLogger } from "../../src/shared/log.ts";
import { openSession } from "./gateway.ts";

declare const Bun: { gc(force: boolean): void };

interface HeapStats {
  heapSize: number;
  objectCount: number;
  objectTypeCounts: Record<string, number>;
}
// Named through a variable: the type-check knows no `bun:jsc` module.
const jsc = "bun:jsc";
const { heapStats } = (await import(jsc)) as { heapStats(): HeapStats };

const n = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 1000);
const withStreams = process.argv.includes("--streams");
const config = parseConfig("servers: {}\n", { file: join(tmpdir(), "gateway.yaml") });
const sessions = new SessionRegistry(new Gateway(config, createLogger("bench")), {
  maxSessions: n * 2,
  maxBodyBytes: 1 << 20,
  idleMs: 0,
});
const who = { tokenName: null, toolGlobs: null };
const send = (req: Request) => sessions.fetch(req, who);
const open = () => openSession("http://127.0.0.1", send);

async function settled(): Promise<HeapStats> {
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 20));
    Bun.gc(true);
  }
  return heapStats();
}

function report(label: string, a: HeapStats, b: HeapStats) {
  const kb = (b.heapSize - a.heapSize) / n / 1024;
  const objects = (b.objectCount - a.objectCount) / n;
  console.log(`${label}: ${kb.toFixed(2)} KB of heap, ${objects.toFixed(1)} objects each`);
  const rows = Object.keys(b.objectTypeCounts)
    .map((k) => [k, ((b.objectTypeCounts[k] ?? 0) - (a.objectTypeCounts[k] ?? 0)) / n] as const)
    .filter(([, v]) => Math.abs(v) >= 0.5)
    .sort((x, y) => y[1] - x[1]);
  for (const [type, count] of rows) console.log(`  ${count.toFixed(1).padStart(7)}  ${type}`);
}

// One session first, so one-time costs (modules, shared tables) are not counted per session.
const ids = [await open()];
const before = await settled();
for (let i = 0; i < n; i++) ids.push(await open());
const idle = await settled();
report(`${n} idle sessions`, before, idle);
const streams: Response[] = [];
if (withStreams) {
  for (const sid of ids.slice(1)) {
    streams.push(
      await sessions.fetch(
        new Request("http://127.0.0.1/mcp", {
          headers: { accept: "text/event-stream", "mcp-session-id": sid },
        }),
        who,
      ),
    );
  }
  report(`a GET stream on each`, idle, await settled());
}
for (const s of streams) await s.body?.cancel();
await sessions.closeAll();
