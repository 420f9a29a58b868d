/**
 * Large results in flight: four concurrent tool calls each answered with `resultBytes` of text
 * (64 MiB in the full run), on four sessions; how far the gateway's peak RSS grows over the bytes
 * in flight. Four at once overlap as the collector's timing lets them, so the figure moves from run
 * to run; one result alone (peak reset before it) counts the copies of its bytes the road makes
 * before the collector runs, and moves little.
 */
import { join } from "node:path";
import { ROOT } from "../procs.ts";
import { mib } from "../stats.ts";
import type { ScalePlan } from "./run.ts";
import {
  openSession,
  POST_HEADERS,
  type ScaleGateway,
  settledRss,
  startScaleGateway,
} from "./gateway.ts";

const BIG = join(ROOT, "test/fixtures/servers/big-result.mjs");

/** What the results part measured. */
export interface ResultsReport {
  peakOverBytes: number;
  markdown: string;
}

export async function benchResults(
  argv: readonly string[],
  plan: ScalePlan,
  say: (line: string) => void,
): Promise<ResultsReport> {
  const gw = await startScaleGateway(
    argv,
    `gateway:\n  limits: { requestBody: 1MiB }\nservers:\n` +
      `  big: { command: node, args: [${JSON.stringify(BIG)}], timeout: 120s }\n`,
  );
  try {
    const sids = await Promise.all([0, 1, 2, 3].map(() => openSession(gw.url)));
    const before = await settledRss(gw);
    const peakBefore = gw.peak();
    const t0 = performance.now();
    const call = async (sid: string, id: number) => {
      const res = await fetch(`${gw.url}/mcp`, {
        method: "POST",
        headers: { ...POST_HEADERS, "mcp-session-id": sid },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "big__big", arguments: { bytes: plan.resultBytes } },
        }),
      });
      return (await res.arrayBuffer()).byteLength;
    };
    const sizes = await Promise.all(sids.map((sid, i) => call(sid, i + 1)));
    const ms = performance.now() - t0;
    const inFlight = 4 * plan.resultBytes;
    const growth = Math.max(gw.peak(), peakBefore) - before;
    if (sizes.some((s) => s < plan.resultBytes)) throw new Error(`short answers: ${sizes}`);
    say(`scale: 4 × ${mib(plan.resultBytes)} results: peak +${mib(growth)} in ${ms.toFixed(0)} ms`);
    // Does the memory come back once the results are sent?
    const after = await settledRss(gw, 10_000);
    const alone = await aloneOverBytes(gw, () => call(sids[0]!, 5), plan.resultBytes);
    say(`scale: one ${mib(plan.resultBytes)} result alone: peak +${alone.toFixed(2)}× its bytes`);
    return {
      peakOverBytes: growth / inFlight,
      markdown: `Four concurrent results of ${mib(plan.resultBytes)} each (${mib(inFlight)} in ` +
        `flight): RSS before ${mib(before)}, peak growth ${mib(growth)} ` +
        `(${(growth / inFlight).toFixed(2)}× the bytes in flight), ${
          ms.toFixed(0)
        } ms for all four; RSS 10 s after they ended ${mib(after)}. One result alone, after ` +
        `that: peak growth ${alone.toFixed(2)}× its bytes.`,
    };
  } finally {
    await gw.stop();
  }
}

/**
 * Peak RSS growth over `bytes` for one result alone, the peak reset before it (`NaN` where the
 * kernel refuses the reset).
 */
async function aloneOverBytes(
  gw: ScaleGateway,
  call: () => Promise<number>,
  bytes: number,
): Promise<number> {
  const before = await settledRss(gw);
  if (!gw.resetPeak()) return NaN;
  await call();
  return (gw.peak() - before) / bytes;
}
