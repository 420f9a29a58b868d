/**
 * Picture composition: a script's returned value becomes MCP content — one text block, then one
 * image block per picture found at any depth. In the text each picture stands as
 * `{ "type": "image", "image": n }`, n being its 1-based position among the pictures. Pictures
 * are numbered in a fixed order that does not depend on how Lua happened to iterate a table:
 * depth first, array items in sequence order, object entries by key — integer keys in numeric
 * order first, then the other keys in code-unit order ({@link orderedKeys}).
 */
import { GatewayError } from "../shared/errors.ts";
import { type ImageBlock, isPicture, toImageBlock } from "./image-value.ts";

/** Pictures one result may carry unless configured otherwise. */
export const DEFAULT_MAX_PICTURES = 16;

/** An MCP text content block. */
export interface TextBlock {
  type: "text";
  text: string;
}

/** The blocks {@link composeResult} produces. */
export type ComposedBlock = TextBlock | ImageBlock;

/** Options for composition. */
export interface ComposeOptions {
  /** Ceiling on pictures per result (default 16). */
  maxPictures?: number;
}

function tooMany(count: number, ceiling: number): GatewayError {
  return new GatewayError(
    "TOO_LARGE",
    `the result carries ${count} pictures, over the ceiling of ${ceiling}`,
    { data: { pictures: count, ceiling } },
  );
}

const INTEGER_KEY = /^(0|-?[1-9][0-9]*)$/;

/** An object's keys in numbering order: integer keys numerically, then the rest sorted. */
export function orderedKeys(value: object): string[] {
  const ints: string[] = [];
  const rest: string[] = [];
  for (const k of Object.keys(value)) (INTEGER_KEY.test(k) ? ints : rest).push(k);
  ints.sort((a, b) => Number(a) - Number(b));
  rest.sort();
  return [...ints, ...rest];
}

/** Counts pictures at any depth without copying, so the ceiling error can name the real count. */
export function countPictures(value: unknown): number {
  if (isPicture(value)) return 1;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + countPictures(v), 0);
  if (typeof value === "object" && value !== null) {
    let n = 0;
    for (const v of Object.values(value)) n += countPictures(v);
    return n;
  }
  return 0;
}

/**
 * Replaces every picture in `value` by `{ type: "image", image: n }` and collects the image
 * blocks in order. Raises `TOO_LARGE` (naming count and ceiling) past `maxPictures`.
 */
export function extractPictures(
  value: unknown,
  options: ComposeOptions = {},
): { json: unknown; images: ImageBlock[] } {
  const ceiling = options.maxPictures ?? DEFAULT_MAX_PICTURES;
  const total = countPictures(value);
  if (total > ceiling) throw tooMany(total, ceiling);
  const images: ImageBlock[] = [];
  const walk = (v: unknown): unknown => {
    if (isPicture(v)) {
      images.push(toImageBlock(v));
      return { type: "image", image: images.length };
    }
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === "object" && v !== null) {
      // From entries: a `__proto__` key stays a key.
      return Object.fromEntries(
        orderedKeys(v).map((k) => [k, walk((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return { json: walk(value), images };
}

/**
 * Turns a script's returned value into MCP content: string → its text as is; nil/undefined →
 * empty text; anything else → JSON text with pictures lifted out into image blocks after it.
 */
export function composeResult(
  value: unknown,
  options: ComposeOptions = {},
): { content: ComposedBlock[] } {
  if (value === undefined || value === null) return { content: [{ type: "text", text: "" }] };
  if (typeof value === "string") return { content: [{ type: "text", text: value }] };
  const { json, images } = extractPictures(value, options);
  return { content: [{ type: "text", text: JSON.stringify(json) }, ...images] };
}

/**
 * Applies the picture ceiling to an upstream CallToolResult: its image blocks already are MCP
 * pictures and pass through unchanged; more than the ceiling raises `TOO_LARGE`.
 */
export function checkToolResultPictures<T extends { content?: unknown }>(
  result: T,
  options: ComposeOptions = {},
): T {
  const ceiling = options.maxPictures ?? DEFAULT_MAX_PICTURES;
  const blocks = Array.isArray(result.content) ? result.content : [];
  const count = blocks.filter((b) => (b as { type?: unknown })?.type === "image").length;
  if (count > ceiling) throw tooMany(count, ceiling);
  return result;
}
