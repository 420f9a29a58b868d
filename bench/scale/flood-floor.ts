/**
 * The runtime's floor under the flood: `bun bench/scale/flood-floor.ts COUNT BYTES [read]
 * [--collect-every=BYTES]` spawns
 * a writer of COUNT log messages of BYTES each (the flood part's messages, as a server writes them
 * to its stdout) and does only what any gateway must do with them — cut the lines and parse each
 * as JSON, with the gateway's own line reader — then prints, as JSON, how far its peak RSS grew
 * over its RSS before the flood. What the gateway's growth has over this is its own; what this
 * has is the runtime's (the garbage of reading and parsing, which its collector frees late). With
 * `read` it only reads the pipe, counting bytes: what reading the flood alone costs.
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { LineReader } from "../../src/upstream/line-reader.ts";

const [count, bytes] = process.argv.slice(2, 4).map(Number) as [number, number];
const readOnly = process.argv[4] === "read";
const collectEvery = Number(
  process.argv.find((a) => a.startsWith("--collect-every="))?.slice("--collect-every=".length) ??
    0,
);

/** A status line of this process, in bytes. */
function status(field: "VmRSS" | "VmHWM"): number {
  const text = readFileSync("/proc/self/status", "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)?.[1] ?? NaN) * 1024;
}

/** Resets the peak (VmHWM) to the current RSS; false where the kernel refuses. */
function resetPeak(): boolean {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false;
  }
}

declare const Bun: { gc(force: boolean): void };

const WRITER = `const d = "x".repeat(${bytes}); let n = 0;
function w() {
  while (n < ${count}) {
    n++;
    const line = JSON.stringify({ jsonrpc: "2.0", method: "notifications/message",
      params: { level: "info", logger: "flood", data: n + " " + d } }) + "\\n";
    if (!process.stdout.write(line)) return void process.stdout.once("drain", w);
  }
}
w();`;

Bun.gc(true);
const before = status("VmRSS");
const reset = resetPeak();
const child = spawn("node", ["-e", WRITER], { stdio: ["ignore", "pipe", "inherit"] });
let parsed = 0;
const lines = new LineReader(64 * 1024 * 1024, (line) => {
  if ((JSON.parse(line) as { method?: string }).method) parsed++;
}, () => {});
let read = 0;
let sinceCollected = 0;
for await (const chunk of child.stdout!) {
  read += (chunk as Uint8Array).length;
  sinceCollected += (chunk as Uint8Array).length;
  if (collectEvery > 0 && sinceCollected >= collectEvery) {
    sinceCollected = 0;
    Bun.gc(true);
  }
  if (!readOnly) lines.push(chunk as Uint8Array);
}
const peak = reset ? status("VmHWM") : status("VmRSS");
console.log(JSON.stringify({ parsed, read, growth: Math.max(0, peak - before), peakReset: reset }));
