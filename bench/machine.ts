/**
 * Facts about the machine and toolchain a run happened on, printed above its numbers: ratios
 * travel between machines, absolute times do not.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { join } from "node:path";
import { DENO, ROOT } from "./procs.ts";

/** Label → value. */
export type Facts = [string, string][];

function firstLine(command: string, args: string[]): string {
  const r = spawnSync(command, args, { cwd: ROOT, encoding: "utf8" });
  return r.status === 0 ? (r.stdout ?? "").trim().split("\n")[0] ?? "?" : "unavailable";
}

function cpuModel(): string {
  try {
    const info = readFileSync("/proc/cpuinfo", "utf8");
    return /^model name\s*:\s*(.+)$/m.exec(info)?.[1]?.trim() ?? cpus()[0]?.model ?? "?";
  } catch {
    return cpus()[0]?.model ?? "?";
  }
}

function osName(): string {
  try {
    const text = readFileSync("/etc/os-release", "utf8");
    const pretty = /^PRETTY_NAME="?([^"\n]+)"?$/m.exec(text)?.[1];
    return `${pretty ?? "Linux"} (kernel ${release()})`;
  } catch {
    return `${process.platform} ${release()}`;
  }
}

function packageVersion(name: string): string {
  try {
    const file = join(ROOT, "node_modules", name, "package.json");
    return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
  } catch {
    return "?";
  }
}

/** Load average (1 min) now, to show how busy the shared machine was. */
export function loadNow(): string {
  return loadavg().map((n) => n.toFixed(2)).join(" / ");
}

/** Collects the facts; `gateway` names how the gateway process was started. */
export function machineFacts(gateway: string): Facts {
  const runtime = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined"
    ? `bun ${process.versions.bun}`
    : `node-compatible ${process.version}`;
  return [
    ["date", new Date().toISOString()],
    ["CPU", cpuModel()],
    ["cores", String(cpus().length)],
    ["memory", `${(totalmem() / 1024 ** 3).toFixed(1)} GiB`],
    ["OS", osName()],
    ["harness runtime", runtime],
    ["node (upstream fixtures)", firstLine("node", ["--version"])],
    ["deno", firstLine(DENO, ["--version"])],
    ["@modelcontextprotocol/sdk", packageVersion("@modelcontextprotocol/sdk")],
    ["hono", packageVersion("hono")],
    ["gateway process", gateway],
    ["commit", firstLine("git", ["rev-parse", "--short", "HEAD"])],
    ["load average at start (1/5/15 min)", loadNow()],
  ];
}
