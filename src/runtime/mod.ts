/**
 * @module The only room that touches `Bun.*` or `Deno.*`: HTTP serving, signals, the path of the
 * running program (to re-spawn it as a script worker), runtime identity, leaving the process
 * with its output flushed, and what the runtimes do at different costs (UTF-8 decoding).
 */
import { serveBun } from "./bun.ts";
import { serveDeno } from "./deno.ts";

export { AddressInUseError } from "./address-in-use.ts";
export { exitWhenFlushed } from "./exit.ts";
export { setJitPolicy } from "./jit.ts";
export {
  collectNow,
  compactHeap,
  CompactionSchedule,
  noteCall,
  noteReleased,
  onCompacted,
} from "./memory.ts";
export { type ChildExit, spawnChild, type SpawnedChild, type SpawnOptions } from "./spawn.ts";
export { decodeUtf8 } from "./utf8.ts";

/** Which JavaScript runtime runs this process. */
export type RuntimeName = "bun" | "deno" | "node";

declare const Bun: { version: string; main: string } | undefined;
declare const Deno:
  | { version: { deno: string }; execPath(): string; mainModule: string; build: { os: string } }
  | undefined;

/** The runtime running this process. */
export function runtimeName(): RuntimeName {
  if (typeof Bun !== "undefined") return "bun";
  if (typeof Deno !== "undefined") return "deno";
  return "node";
}

/** Human-readable runtime name and version, for `--version` and logs. */
export function runtimeVersion(): string {
  if (typeof Bun !== "undefined") return `bun ${Bun.version}`;
  if (typeof Deno !== "undefined") return `deno ${Deno.version.deno}`;
  return `node ${process.versions.node}`;
}

/** A listening HTTP server. */
export interface HttpServer {
  readonly hostname: string;
  readonly port: number;
  /** Stops accepting connections and closes open ones. */
  close(): Promise<void>;
}

/** Options for {@link serveHttp}. */
export interface ServeOptions {
  hostname: string;
  port: number;
  /** Answers one request. (No peer address: asking Bun for it costs a system call per request.) */
  fetch: (request: Request) => Response | Promise<Response>;
}

/** Starts an HTTP server with the runtime's native server; resolves once it listens. */
export function serveHttp(options: ServeOptions): Promise<HttpServer> {
  switch (runtimeName()) {
    case "bun":
      return serveBun(options);
    case "deno":
      return serveDeno(options);
    default:
      return Promise.reject(
        new Error("serving HTTP needs Bun or Deno; run with `bun src/main.ts` or the binary"),
      );
  }
}

/** True when running as a compiled single binary rather than from source. */
export function isCompiledBinary(): boolean {
  if (typeof Bun !== "undefined") {
    return Bun.main.startsWith("/$bunfs/") || Bun.main.includes("~BUN");
  }
  if (typeof Deno !== "undefined") return Deno.mainModule.includes("/deno-compile-");
  return false;
}

/**
 * The argv that starts this same program again (binary, or runtime + entry script), so the
 * gateway can spawn itself with a hidden sub-command.
 */
export function selfCommand(): string[] {
  const entry = new URL("../main.ts", import.meta.url).pathname;
  if (typeof Bun !== "undefined") {
    return isCompiledBinary() ? [process.execPath] : [process.execPath, entry];
  }
  if (typeof Deno !== "undefined") {
    return isCompiledBinary() ? [Deno.execPath()] : [Deno.execPath(), "run", "-A", entry];
  }
  return [process.execPath, entry];
}
