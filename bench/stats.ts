/**
 * Small statistics and formatting helpers shared by every benchmark row.
 */

/** The value at quantile `q` (0..1) of `values` (nearest rank); NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** Median of `values`; NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? sorted[mid] ?? Number.NaN
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** A number with `digits` decimals, or an en dash for "no measurement". */
export function fmt(value: number | null | undefined, digits = 2): string {
  return value === null || value === undefined || !Number.isFinite(value)
    ? "–"
    : value.toFixed(digits);
}

/** A ratio like `1.23×`. */
export function ratio(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value)
    ? "–"
    : `${value.toFixed(2)}×`;
}

/** Bytes as MiB with one decimal. */
export function mib(bytes: number | null | undefined): string {
  return bytes === null || bytes === undefined || !Number.isFinite(bytes)
    ? "–"
    : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
}

/** A payload size for table labels: `100 B`, `1 MB`. */
export function sizeLabel(bytes: number): string {
  if (bytes >= 1024 ** 2) return `${bytes / 1024 ** 2} MB`;
  if (bytes >= 1024) return `${bytes / 1024} KB`;
  return `${bytes} B`;
}

/** A Markdown table from a header row and body rows. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** Sleeps `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * `f` of each pair of runs from the same repetition (`rep`) of two cells: the per-repetition
 * ratios a goal's median and range are taken over, so that background load which hit both
 * paths of a repetition alike cancels.
 */
export function perRep<T extends { rep: number }>(
  mine: readonly T[],
  theirs: readonly T[],
  f: (mine: T, theirs: T) => number,
): number[] {
  return mine.flatMap((a) => {
    const b = theirs.find((r) => r.rep === a.rep);
    return b ? [f(a, b)] : [];
  });
}

/** `[lowest, highest]` of `values`, or `[]` when there are none. */
export function spread(values: readonly number[]): number[] {
  return values.length === 0 ? [] : [Math.min(...values), Math.max(...values)];
}

/** Median milliseconds of `fn` over at most `count` runs or `maxMs`, after a short warm-up. */
export async function timeMedian(
  fn: () => unknown,
  count: number,
  maxMs: number,
): Promise<number> {
  for (let i = 0; i < Math.min(5, count); i++) await fn();
  const samples: number[] = [];
  const end = performance.now() + maxMs;
  while (samples.length < count && performance.now() < end) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return median(samples);
}
