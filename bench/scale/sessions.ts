/**
 * What an idle 2025 session costs: RSS with 0, 100, 1,000 and 5,000 sessions open (each made
 * with `initialize` + `initialized`, nothing else), then with GET streams open on some of them,
 * then one minute after every session was deleted — does the gateway give the memory back?
 */
import { BENCH_ECHO } from "../procs.ts";
import { mib, table } from "../stats.ts";
import type { ScalePlan } from "./run.ts";
import { inParallel, openSession, POST_HEADERS, settledRss, startScaleGateway } from "./gateway.ts";

/** What the sessions part measured. */
export interface SessionsReport {
  kbPerSession: number;
  kbPerSessionWithStream: number;
  afterCloseRatio: number;
  markdown: string;
}

export async function benchSessions(
  argv: readonly string[],
  plan: ScalePlan,
  say: (line: string) => void,
): Promise<SessionsReport> {
  const most = plan.sessions.at(-1)!;
  const gw = await startScaleGateway(
    argv,
    `gateway:\n  limits: { sessions: ${most * 2}, sessionsPerToken: ${most * 2} }\n` +
      `servers:\n  echo: { command: node, args: [${JSON.stringify(BENCH_ECHO)}] }\n`,
  );
  const rows: string[][] = [];
  const ids: string[] = [];
  try {
    // One session first, so the first one's one-time cost (SDK modules) is not counted per session.
    ids.push(await openSession(gw.url));
    const base = await settledRss(gw, 3_000);
    rows.push(["1 (baseline)", mib(base), "—"]);
    let last = base;
    for (const n of plan.sessions) {
      const from = ids.length;
      await inParallel(n - (from - 1), 32, async () => void ids.push(await openSession(gw.url)));
      last = await settledRss(gw);
      const kb = (last - base) / (ids.length - 1) / 1024;
      rows.push([String(ids.length - 1), mib(last), kb.toFixed(1)]);
      say(`scale: ${ids.length - 1} idle sessions: ${mib(last)} (${kb.toFixed(1)} KB each)`);
    }
    const kbPerSession = (last - base) / (ids.length - 1) / 1024;
    // GET streams on the first `streams` sessions, held open.
    const streams: AbortController[] = [];
    await inParallel(plan.streams, 32, async (i) => {
      const abort = new AbortController();
      streams.push(abort);
      const res = await fetch(`${gw.url}/mcp`, {
        headers: { accept: "text/event-stream", "mcp-session-id": ids[i + 1]! },
        signal: abort.signal,
      });
      void res.body?.getReader().read().catch(() => {});
    });
    const withStreams = await settledRss(gw);
    const kbPerStream = (withStreams - last) / plan.streams / 1024;
    const kbPerSessionWithStream = kbPerSession + kbPerStream;
    rows.push([
      `${ids.length - 1}, ${plan.streams} with a GET stream`,
      mib(withStreams),
      `+${kbPerStream.toFixed(1)} per stream`,
    ]);
    for (const s of streams) s.abort();
    await inParallel(ids.length, 32, async (i) => {
      const res = await fetch(`${gw.url}/mcp`, {
        method: "DELETE",
        headers: { ...POST_HEADERS, "mcp-session-id": ids[i]! },
      });
      await res.body?.cancel();
    });
    say(`scale: every session deleted; waiting ${plan.giveBackMs / 1000} s`);
    const after = await settledRss(gw, plan.giveBackMs);
    rows.push([`0, ${plan.giveBackMs / 1000} s after all closed`, mib(after), "—"]);
    return {
      kbPerSession,
      kbPerSessionWithStream,
      afterCloseRatio: after / base,
      markdown: table(["sessions open", "RSS", "KB per session"], rows) +
        `\n\nPeak RSS: ${mib(gw.peak())}.`,
    };
  } finally {
    await gw.stop();
  }
}
