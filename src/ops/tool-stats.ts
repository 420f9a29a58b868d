/**
 * Per-tool calls, errors and latency over the last minutes, one bucket a minute, for the
 * console's charts. Latency is kept as a histogram with log-spaced bins (each 25 % wider than the
 * last, from 10 µs to past ten minutes), so p50 and p99 cost a fixed 88 counters a bucket
 * whatever the call rate, and are read to within one bin's width. Tool names are bounded as in
 * `/metrics` (`./tool-labels.ts`).
 */
import type { CallRecord } from "../gateway/mod.ts";
import type { ToolStatsStatus } from "./status-data.ts";
import { ToolLabels } from "./tool-labels.ts";

/** Lower edge of the first latency bin (ms), and the factor from one bin's edge to the next. */
const BASE_MS = 0.01;
const GROWTH = 1.25;
const BINS = 88;
const MINUTE_MS = 60_000;

interface Bucket {
  minute: number;
  calls: number;
  errors: number;
  readonly latency: Uint32Array;
}

/** The rolling per-tool series of one gateway. */
export class ToolStats {
  readonly #minutes: number;
  readonly #labels: ToolLabels;
  readonly #now: () => number;
  /** By tool label: a ring of `minutes` buckets, indexed by minute number. */
  readonly #series = new Map<string, Bucket[]>();

  constructor(
    { minutes = 15, maxTools = 200, now = Date.now }: {
      minutes?: number;
      maxTools?: number;
      now?: () => number;
    } = {},
  ) {
    this.#minutes = minutes;
    this.#labels = new ToolLabels(maxTools);
    this.#now = now;
  }

  /** Counts one finished call (pass to `gateway.calls.observeCalls`). */
  record(call: CallRecord): void {
    const label = this.#labels.of(call);
    let ring = this.#series.get(label);
    if (!ring) this.#series.set(label, ring = []);
    const minute = Math.floor(this.#now() / MINUTE_MS);
    const slot = minute % this.#minutes;
    let b = ring[slot];
    if (!b || b.minute !== minute) {
      ring[slot] = b = { minute, calls: 0, errors: 0, latency: new Uint32Array(BINS) };
    }
    b.calls++;
    if (call.outcome !== "ok") b.errors++;
    b.latency[binOf(call.durationMs)]!++;
  }

  /** Every tool called in the window, busiest first, its buckets oldest first. */
  snapshot(): ToolStatsStatus[] {
    const last = Math.floor(this.#now() / MINUTE_MS);
    const out: { s: ToolStatsStatus; total: number }[] = [];
    for (const [tool, ring] of this.#series) {
      const s: ToolStatsStatus = { tool, calls: [], errors: [], p50: [], p99: [] };
      let total = 0;
      for (let m = last - this.#minutes + 1; m <= last; m++) {
        const b = ring[m % this.#minutes];
        const live = b !== undefined && b.minute === m ? b : undefined;
        s.calls.push(live?.calls ?? 0);
        s.errors.push(live?.errors ?? 0);
        s.p50.push(live ? quantile(live.latency, live.calls, 0.5) : null);
        s.p99.push(live ? quantile(live.latency, live.calls, 0.99) : null);
        total += live?.calls ?? 0;
      }
      if (total > 0) out.push({ s, total });
    }
    out.sort((a, b) => b.total - a.total || a.s.tool.localeCompare(b.s.tool));
    return out.map((o) => o.s);
  }
}

function binOf(ms: number): number {
  if (!(ms > BASE_MS)) return 0;
  return Math.min(BINS - 1, Math.floor(Math.log(ms / BASE_MS) / Math.log(GROWTH)));
}

/** The upper edge of the bin holding the `q` quantile of `count` samples (ms). */
function quantile(bins: Uint32Array, count: number, q: number): number {
  const rank = Math.max(1, Math.ceil(q * count));
  let seen = 0;
  for (let i = 0; i < bins.length; i++) {
    seen += bins[i]!;
    if (seen >= rank) return BASE_MS * GROWTH ** (i + 1);
  }
  return BASE_MS * GROWTH ** BINS;
}
