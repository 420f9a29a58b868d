/** Helpers for the operations tests: log capture, process liveness, a real gateway process. */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { selfCommand } from "../../src/runtime/mod.ts";
import { type LogLevel, setLogLevel, setLogSink } from "../../src/shared/log.ts";

/** One parsed JSON log line. */
export type LogLine = Record<string, unknown> & { level: string; component: string; msg: string };

/** Captures the gateway's log lines in this process until `restore()`. */
export function captureLogs(level: LogLevel = "info"): { lines: LogLine[]; restore(): void } {
  const lines: LogLine[] = [];
  const unsink = setLogSink((line) => lines.push(JSON.parse(line) as LogLine));
  setLogLevel(level);
  return {
    lines,
    restore() {
      unsink();
      setLogLevel((process.env.TEST_LOG_LEVEL as LogLevel) ?? "silent");
    },
  };
}

/** True while `pid` exists and is not a zombie (an exited process nobody reaped yet). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Every live descendant of `pid` (children, grandchildren, ...), from /proc. */
export function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parent.set(Number(name), ppid);
    } catch { /* exited while we looked */ }
  }
  const out: number[] = [];
  let frontier = [pid];
  while (frontier.length > 0) {
    const next: number[] = [];
    for (const [p, pp] of parent) if (frontier.includes(pp)) next.push(p);
    out.push(...next);
    frontier = next;
  }
  return out.filter(alive);
}

/**
 * Sends a signal with `process.kill`: Deno's `ChildProcess.kill` makes the child's exit report
 * that signal even when the child handled it and exited 0 (Deno 2.9 node compatibility).
 */
export function signal(gw: GatewayProcess, sig: NodeJS.Signals): void {
  process.kill(gw.child.pid!, sig);
}

/** A gateway running as its own process (`src/main.ts` on this runtime). */
export interface GatewayProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Parsed log lines so far. */
  logs: LogLine[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first log line matching `pred` (waits up to `ms`). */
  waitForLog(pred: (l: LogLine) => boolean, ms?: number): Promise<LogLine>;
  /** Kills it if still running. */
  kill(): Promise<void>;
}

/**
 * Starts `mcp-gateway --config file --listen 127.0.0.1:0` and waits for its listening line;
 * `command` replaces this runtime running the source (e.g. the compiled binary).
 */
export async function spawnGateway(
  configFile: string,
  command: readonly string[] = selfCommand(),
): Promise<GatewayProcess> {
  const [cmd, ...pre] = command;
  const child = spawn(cmd!, [
    ...pre,
    "--config",
    configFile,
    "--listen",
    "127.0.0.1:0",
    "--log-level",
    "info",
  ], { stdio: ["ignore", "ignore", "pipe"] });
  const logs: LogLine[] = [];
  const waiters: { pred: (l: LogLine) => boolean; resolve: (l: LogLine) => void }[] = [];
  let buf = "";
  child.stderr!.on("data", (d: Buffer) => {
    buf += d.toString("utf8");
    let nl;
    while ((nl = buf.indexOf("\n")) !== -1) {
      const raw = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      let line: LogLine;
      try {
        line = JSON.parse(raw) as LogLine;
      } catch {
        continue;
      }
      logs.push(line);
      for (const w of [...waiters]) {
        if (w.pred(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once("exit", (code, signal) => r({ code, signal }))
  );
  const waitForLog = (pred: (l: LogLine) => boolean, ms = 20_000) => {
    const seen = logs.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise<LogLine>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`no matching log line within ${ms}ms:\n${JSON.stringify(logs)}`));
      }, ms);
      waiters.push({
        pred,
        resolve: (l) => {
          clearTimeout(timer);
          resolve(l);
        },
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`gateway exited:\n${JSON.stringify(logs)}`));
      });
    });
  };
  const listening = await waitForLog((l) => l.msg === "listening");
  const url = String(listening.url).replace(/\/mcp$/, "");
  return {
    child,
    url,
    logs,
    exited,
    waitForLog,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGKILL");
        await exited;
      }
    },
  };
}

/** One process a fixture recorded in its PIDS_FILE (see test/fixtures/servers/_pids.mjs). */
export interface RecordedPid {
  tag: string;
  pid: number;
  at: number;
}

/** The processes recorded in a PIDS_FILE so far (none when the file does not exist yet). */
export function recordedPids(file: string): RecordedPid[] {
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  return text.split("\n").filter((l) => l.trim() !== "").map((l) => {
    const [tag, pid, at] = l.split(" ");
    return { tag: tag!, pid: Number(pid), at: Number(at) };
  });
}

/**
 * Every live process started with `key=value` in its environment (from /proc): finds a child
 * from its first instruction on, before it could write its pid anywhere.
 */
export function withEnv(key: string, value: string): number[] {
  const needle = `${key}=${value}`;
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const env = readFileSync(`/proc/${name}/environ`, "utf8").split("\0");
      if (env.includes(needle) && alive(Number(name))) out.push(Number(name));
    } catch { /* exited while we looked, or not ours */ }
  }
  return out;
}

/** Every live process whose process group is one of `groups` (from /proc). */
export function groupMembers(groups: readonly number[]): number[] {
  const wanted = new Set(groups);
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      if (wanted.has(pgrp) && alive(Number(name))) out.push(Number(name));
    } catch { /* exited while we looked */ }
  }
  return out;
}
