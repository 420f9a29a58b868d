/**
 * The Prometheus text exposition format (version 0.0.4), by hand: counters, gauges and
 * histograms are a few lines each, and a client library would bring a registry we do not need.
 */

/** Label names to values. */
export type Labels = Readonly<Record<string, string>>;

/** One sample of a metric family. */
export interface Sample {
  readonly labels: Labels;
  readonly value: number;
  /** Suffix added to the family name (`_bucket`, `_sum`, `_count`). */
  readonly suffix?: string;
}

/** The content type Prometheus expects for this format. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Latency buckets in seconds: sub-millisecond proxying up to minute-long tool runs. */
export const LATENCY_BUCKETS = [
  0.001,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
  30,
  60,
] as const;

/** A histogram's running state. */
export interface HistogramState {
  readonly labels: Labels;
  /** Cumulative counts per bucket of {@link LATENCY_BUCKETS}. */
  readonly buckets: number[];
  sum: number;
  count: number;
}

/** A fresh histogram for these labels. */
export function newHistogram(labels: Labels): HistogramState {
  return { labels, buckets: LATENCY_BUCKETS.map(() => 0), sum: 0, count: 0 };
}

/** Adds one observation (seconds). */
export function observe(h: HistogramState, seconds: number): void {
  for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
    if (seconds <= LATENCY_BUCKETS[i]!) h.buckets[i]!++;
  }
  h.sum += seconds;
  h.count++;
}

/** The samples of a histogram, `+Inf` bucket included. */
export function histogramSamples(h: HistogramState): Sample[] {
  const out: Sample[] = LATENCY_BUCKETS.map((le, i) => ({
    labels: { ...h.labels, le: String(le) },
    value: h.buckets[i]!,
    suffix: "_bucket",
  }));
  out.push({ labels: { ...h.labels, le: "+Inf" }, value: h.count, suffix: "_bucket" });
  out.push({ labels: h.labels, value: h.sum, suffix: "_sum" });
  out.push({ labels: h.labels, value: h.count, suffix: "_count" });
  return out;
}

/** Renders one metric family: HELP, TYPE, then every sample. */
export function family(
  name: string,
  type: "counter" | "gauge" | "histogram",
  help: string,
  samples: readonly Sample[],
): string {
  const lines = [`# HELP ${name} ${help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}`];
  lines.push(`# TYPE ${name} ${type}`);
  for (const s of samples) {
    lines.push(`${name}${s.suffix ?? ""}${labelText(s.labels)} ${numberText(s.value)}`);
  }
  return lines.join("\n") + "\n";
}

function labelText(labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabelValue(v)}"`);
  return parts.length === 0 ? "" : `{${parts.join(",")}}`;
}

/** Escapes a label value: backslash, double quote and newline. */
export function escapeLabelValue(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function numberText(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (!Number.isFinite(v)) return v > 0 ? "+Inf" : "-Inf";
  return String(v);
}
