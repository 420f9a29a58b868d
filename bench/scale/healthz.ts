/**
 * The port first: milliseconds from spawn to the first `/healthz` 200 with 1, 10 and 50 stdio
 * upstreams (median of `reps` starts).
 */
import { BENCH_ECHO } from "../procs.ts";
import { median, table } from "../stats.ts";
import type { ScalePlan } from "./run.ts";
import { startScaleGateway } from "./gateway.ts";

/** What the port-first part measured. */
export interface HealthzReport {
  most: number;
  mostMs: number;
  markdown: string;
}

export async function benchHealthz(
  argv: readonly string[],
  plan: ScalePlan,
  say: (line: string) => void,
): Promise<HealthzReport> {
  const rows: string[][] = [];
  let mostMs = 0;
  for (const n of plan.upstreams) {
    let yaml = "servers:\n";
    for (let i = 0; i < n; i++) {
      yaml += `  e${i}: { command: node, args: [${JSON.stringify(BENCH_ECHO)}] }\n`;
    }
    const times: number[] = [];
    for (let r = 0; r < plan.reps; r++) {
      const gw = await startScaleGateway(argv, yaml);
      times.push(gw.healthzMs);
      await gw.stop();
    }
    mostMs = median(times);
    rows.push([
      String(n),
      mostMs.toFixed(0),
      `${Math.min(...times).toFixed(0)}–${Math.max(...times).toFixed(0)}`,
    ]);
    say(`scale: /healthz with ${n} upstreams after ${mostMs.toFixed(0)} ms`);
  }
  return {
    most: plan.upstreams.at(-1)!,
    mostMs,
    markdown: table(["stdio upstreams", "spawn → /healthz 200, median (ms)", "range"], rows),
  };
}
