/**
 * Image values: the `{ type = "image", mime_type, data, bytes, width, height, path? }` tables
 * that `mcp.image` returns and that may sit anywhere in a script's result.
 */
import { Buffer } from "node:buffer";
import { GatewayError } from "../shared/errors.ts";
import { readImageInfo } from "./image-size.ts";

/** A picture as scripts see it; `data` is base64 so it survives JSON and Lua strings. */
export interface ImageValue {
  type: "image";
  mime_type: string;
  data: string;
  bytes: number;
  width: number;
  height: number;
  path?: string;
}

/** An MCP image content block. */
export interface ImageBlock {
  type: "image";
  data: string;
  mimeType: string;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decodes standard base64 (whitespace ignored); raises `IMAGE_INVALID` on anything else. */
export function decodeBase64(text: string): Uint8Array {
  const compact = text.replace(/\s+/g, "");
  if (!BASE64.test(compact) || compact.length % 4 === 1) {
    throw new GatewayError("IMAGE_INVALID", "picture data is not valid base64");
  }
  return new Uint8Array(Buffer.from(compact, "base64"));
}

/** Builds an image value from bytes, reading format and size from the header. */
export function imageValueFromBytes(bytes: Uint8Array, path?: string): ImageValue {
  const info = readImageInfo(bytes);
  const value: ImageValue = {
    type: "image",
    mime_type: info.mimeType,
    data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"),
    bytes: bytes.byteLength,
    width: info.width,
    height: info.height,
  };
  if (path !== undefined) value.path = path;
  return value;
}

/** Builds an image value from base64 text (an image value's `data`, a block's, `imageBase64`). */
export function imageValueFromBase64(base64: string, path?: string): ImageValue {
  return imageValueFromBytes(decodeBase64(base64), path);
}

/** True for a script image value (`mime_type`) or an MCP image content block (`mimeType`). */
export function isPicture(value: unknown): value is ImageValue | ImageBlock {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return v.type === "image" && typeof v.data === "string" &&
    (typeof v.mime_type === "string" || typeof v.mimeType === "string");
}

/** The MCP content block for a picture value of either shape. */
export function toImageBlock(value: ImageValue | ImageBlock): ImageBlock {
  const mimeType = "mimeType" in value ? value.mimeType : value.mime_type;
  return { type: "image", data: value.data, mimeType };
}
