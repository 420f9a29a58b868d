/**
 * Reads the format and pixel size of a picture from its header: PNG, JPEG, GIF and WebP (VP8,
 * VP8L, VP8X). Pure functions over bytes; anything else — other formats, truncated or lying
 * headers, a header stating no size — raises `IMAGE_INVALID`. Hand-written rather than a
 * dependency because four formats fit in one small, fully tested file.
 */
import { GatewayError } from "../shared/errors.ts";

/** The picture formats scripts may return. */
export type ImageMimeType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** What a header says about a picture. */
export interface ImageInfo {
  mimeType: ImageMimeType;
  width: number;
  height: number;
}

function invalid(message: string): GatewayError {
  return new GatewayError("IMAGE_INVALID", message);
}

function need(bytes: Uint8Array, length: number, format: string): void {
  if (bytes.length < length) throw invalid(`${format} header is truncated (${bytes.length} bytes)`);
}

function u16be(b: Uint8Array, at: number): number {
  return ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
}
function u16le(b: Uint8Array, at: number): number {
  return (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
}
function u24le(b: Uint8Array, at: number): number {
  return u16le(b, at) | ((b[at + 2] ?? 0) << 16);
}
function u32be(b: Uint8Array, at: number): number {
  return u16be(b, at) * 0x10000 + u16be(b, at + 2);
}
function u32le(b: Uint8Array, at: number): number {
  return u16le(b, at) + u16le(b, at + 2) * 0x10000;
}
function ascii(b: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...b.subarray(at, at + length));
}

function sized(mimeType: ImageMimeType, width: number, height: number): ImageInfo {
  if (width <= 0 || height <= 0) {
    throw invalid(`${mimeType} header states no size (${width}x${height})`);
  }
  return { mimeType, width, height };
}

let crcTable: Uint32Array | undefined;
/** CRC-32 as PNG uses it; checking IHDR's CRC catches headers that lie about their size. */
export function crc32(bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (crcTable[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function readPng(b: Uint8Array): ImageInfo {
  // signature(8) + IHDR length(4) + type(4) + data(13) + crc(4)
  need(b, 33, "PNG");
  if (u32be(b, 8) !== 13 || ascii(b, 12, 4) !== "IHDR") {
    throw invalid("PNG does not start with IHDR");
  }
  if (crc32(b.subarray(12, 29)) !== u32be(b, 29)) throw invalid("PNG IHDR checksum does not match");
  return sized("image/png", u32be(b, 16), u32be(b, 20));
}

function readGif(b: Uint8Array): ImageInfo {
  need(b, 13, "GIF"); // signature(6) + logical screen descriptor(7)
  return sized("image/gif", u16le(b, 6), u16le(b, 8));
}

/** SOFn markers carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but don't. */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function readJpeg(b: Uint8Array): ImageInfo {
  let at = 2;
  for (;;) {
    need(b, at + 2, "JPEG");
    if (b[at] !== 0xff) throw invalid(`JPEG marker expected at byte ${at}`);
    const marker = b[at + 1] ?? 0;
    if (marker === 0xff) { // fill byte before a marker
      at += 1;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) { // markers without a length
      at += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) {
      throw invalid("JPEG has no frame header stating its size");
    }
    need(b, at + 4, "JPEG");
    const length = u16be(b, at + 2);
    if (length < 2) throw invalid(`JPEG segment at byte ${at} has a bad length`);
    if (isStartOfFrame(marker)) {
      need(b, at + 9, "JPEG");
      return sized("image/jpeg", u16be(b, at + 7), u16be(b, at + 5));
    }
    at += 2 + length;
  }
}

function readWebp(b: Uint8Array): ImageInfo {
  need(b, 30, "WebP");
  if (u32le(b, 4) + 8 > b.length) throw invalid("WebP is shorter than its RIFF header says");
  const chunk = ascii(b, 12, 4);
  if (chunk === "VP8 ") {
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) {
      throw invalid("WebP VP8 start code missing");
    }
    return sized("image/webp", u16le(b, 26) & 0x3fff, u16le(b, 28) & 0x3fff);
  }
  if (chunk === "VP8L") {
    if (b[20] !== 0x2f) throw invalid("WebP VP8L signature missing");
    const bits = u32le(b, 21);
    return sized("image/webp", (bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (chunk === "VP8X") return sized("image/webp", u24le(b, 24) + 1, u24le(b, 27) + 1);
  throw invalid(`WebP chunk ${JSON.stringify(chunk)} is not VP8, VP8L or VP8X`);
}

/** Reads format and size from the header; raises `IMAGE_INVALID` on anything else. */
export function readImageInfo(bytes: Uint8Array): ImageInfo {
  if (bytes.length >= 8 && u32be(bytes, 0) === 0x89504e47 && u32be(bytes, 4) === 0x0d0a1a0a) {
    return readPng(bytes);
  }
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    return readJpeg(bytes);
  }
  if (bytes.length >= 6 && (ascii(bytes, 0, 6) === "GIF87a" || ascii(bytes, 0, 6) === "GIF89a")) {
    return readGif(bytes);
  }
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WEBP") {
    return readWebp(bytes);
  }
  throw invalid("not a PNG, JPEG, GIF or WebP picture");
}
