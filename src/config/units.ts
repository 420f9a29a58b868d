/** Durations (`30s`, `500ms`, `2m`) and sizes (`16MiB`, `512KB`) parsed by one pair of helpers. */

/** Pattern a duration string must match; shared with the schema so the JSON Schema shows it. */
export const DURATION_PATTERN = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/;
/** Pattern a size string must match. */
export const SIZE_PATTERN = /^\s*(\d+(?:\.\d+)?)\s*(B|KB|KiB|MB|MiB|GB|GiB)?\s*$/;

const DURATION_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const SIZE_BYTES: Record<string, number> = {
  B: 1,
  KB: 1000,
  KiB: 1024,
  MB: 1000 ** 2,
  MiB: 1024 ** 2,
  GB: 1000 ** 3,
  GiB: 1024 ** 3,
};

/** Milliseconds in a duration string (`30s`, `500ms`), or `undefined` when it is not one. */
export function parseDuration(value: string): number | undefined {
  const m = DURATION_PATTERN.exec(value);
  if (!m) return undefined;
  return Math.round(Number(m[1]) * DURATION_MS[m[2]!]!);
}

/** Bytes in a size string, or `undefined` when it is not one. Numbers are bytes. */
export function parseSize(value: string | number): number | undefined {
  if (typeof value === "number") {
    return Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
  }
  const m = SIZE_PATTERN.exec(value);
  if (!m) return undefined;
  return Math.floor(Number(m[1]) * SIZE_BYTES[m[2] ?? "B"]!);
}

/** Formats bytes the way operators write them (`64MiB`). */
export function formatSize(bytes: number): string {
  for (const [unit, n] of [["GiB", 1024 ** 3], ["MiB", 1024 ** 2], ["KiB", 1024]] as const) {
    if (bytes >= n && bytes % n === 0) return `${bytes / n}${unit}`;
  }
  return `${bytes}B`;
}

/** Formats milliseconds the way operators write them (`30s`, `1500ms`). */
export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0 && ms > 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
