/**
 * A gateway process for one scale measurement: its config in a fresh folder, started on a free
 * loopback port, its RSS read from /proc, stopped by its PID.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memBytes, spawnGateway, stopChild } from "../procs.ts";
import { sleep } from "../stats.ts";

/** A running gateway under measurement. */
export interface ScaleGateway {
  readonly pid: number;
  readonly url: string;
  /** Milliseconds from spawn to the first `/healthz` 200. */
  readonly healthzMs: number;
  rss(): number;
  peak(): number;
  /**
   * Starts `peak()` again from the RSS now (Linux `clear_refs` 5), so a peak measured after it
   * is the work's own and not start-up's; false where the kernel refuses it.
   */
  resetPeak(): boolean;
  stop(): Promise<void>;
}

/** Starts `argv` on `yaml`; resolves once `/healthz` answers 200 (30 s at most). */
export async function startScaleGateway(
  argv: readonly string[],
  yaml: string,
): Promise<ScaleGateway> {
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-scale-"));
  writeFileSync(join(dir, "gateway.yaml"), yaml);
  const { child, url, t0 } = await spawnGateway(argv, {
    configFile: join(dir, "gateway.yaml"),
    logFile: join(dir, "gateway.log"),
    cwd: dir,
  });
  const deadline = t0 + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited (${dir}/gateway.log)`);
    if (performance.now() > deadline) throw new Error(`no /healthz in 30 s (${dir}/gateway.log)`);
    try {
      const res = await fetch(`${url}/healthz`);
      await res.body?.cancel();
      if (res.status === 200) break;
    } catch { /* not listening yet */ }
    await sleep(2);
  }
  const healthzMs = performance.now() - t0;
  const pid = child.pid!;
  return {
    pid,
    url,
    healthzMs,
    rss: () => memBytes(pid, "VmRSS"),
    peak: () => memBytes(pid, "VmHWM"),
    resetPeak: () => {
      try {
        writeFileSync(`/proc/${pid}/clear_refs`, "5");
        return true;
      } catch {
        return false;
      }
    },
    stop: () => stopChild(child),
  };
}

/** Headers of a 2025 streamable HTTP POST. */
export const POST_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/**
 * Opens a 2025 session with raw requests; its id. `send`: how a request reaches the gateway
 * (over HTTP by default; `bench/scale/heap.ts` hands them to the 2025 door in process).
 */
export async function openSession(
  url: string,
  send: (req: Request) => Promise<Response> = fetch,
): Promise<string> {
  const res = await send(
    new Request(`${url}/mcp`, {
      method: "POST",
      headers: POST_HEADERS,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "scale", version: "1" },
        },
      }),
    }),
  );
  await res.text();
  const sid = res.headers.get("mcp-session-id");
  if (!sid) throw new Error(`initialize answered ${res.status} without a session`);
  const note = await send(
    new Request(`${url}/mcp`, {
      method: "POST",
      headers: { ...POST_HEADERS, "mcp-session-id": sid },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    }),
  );
  await note.text();
  return sid;
}

/** Runs `task` for 0…n-1, `width` at a time. */
export async function inParallel(
  n: number,
  width: number,
  task: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, n) }, async () => {
    while (next < n) await task(next++);
  }));
}

/** Waits `ms` and lets the gateway settle, then reads its RSS. */
export async function settledRss(gw: ScaleGateway, ms = 2_000): Promise<number> {
  await sleep(ms);
  return gw.rss();
}
