/**
 * Why a server is down, in one line an operator can act on: `exited with code 1: Error:
 * GITHUB_TOKEN is not set` rather than the SDK's `Connection closed`. Built from what the
 * process left behind — its exit and the last line it wrote to stderr — when there is one, or
 * from why it could not start (`command not found: …`).
 */
import type { ServerConfig } from "../config/mod.ts";
import { messageOf } from "../shared/errors.ts";
import type { ProcessExit } from "./stdio.ts";

const MAX_WORDS = 300;

/** `exited with code 1`, `was killed by signal SIGKILL`. */
export function exitText(exit: ProcessExit): string {
  return exit.signal ? `was killed by signal ${exit.signal}` : `exited with code ${exit.code}`;
}

/** Lines that never say why: stack frames, caret markers, runtime banners, log-file pointers. */
const NOISE = [
  /^\s+at\s/, // a stack frame (V8, Bun, Deno)
  /^\s*\^+\s*$/, // the caret under a source line
  /^Node\.js v\d/, // Node's version banner after an uncaught error
  /A complete log of this run can be found in/, // npm's pointer to its own log file
];

/** The lines of a stderr tail that may say something: no stack frames, carets or banners. */
export function meaningful(tail: readonly string[]): string[] {
  return tail.filter((l) => l.trim() !== "" && !NOISE.some((re) => re.test(l)));
}

/**
 * An error heading: `Error: …`, `TypeError [ERR_X]: …`, `ModuleNotFoundError: …` (Python),
 * `error: Uncaught (in promise) Error: …` (Deno), `error: …` (Bun, Rust), `fatal: …`, `panic: …`.
 */
const HEADING = [
  /^(?:error: )?(?:Uncaught (?:\(in promise\) )?)?[A-Za-z_.]*(?:Error|Exception)\b[^:]{0,40}:\s*\S/,
  /^(?:error|fatal|panic)(?:\[\w+\])?:\s*\S/i,
];
/** npm's own failure lines (`npx` of a package that does not exist), minus the bare codes. */
const NPM = /^npm (?:error|ERR!) /;
const NPM_BARE = /^npm (?:error|ERR!) (?:code \w+|\d{3})?\s*$/;

/**
 * The stderr line that best explains a failure (cut to 300 characters), if any: the last error
 * heading, else npm's first failure line, else the last line that is not a stack frame or a
 * runtime banner.
 */
export function lastWords(tail: readonly string[]): string | undefined {
  const lines = meaningful(tail).map((l) => l.trim());
  const heading = lines.findLast((l) => HEADING.some((re) => re.test(l)));
  const npm = lines.find((l) => NPM.test(l) && !NPM_BARE.test(l));
  const line = heading ?? npm ?? lines.at(-1);
  if (line === undefined) return undefined;
  return line.length > MAX_WORDS ? `${line.slice(0, MAX_WORDS)}…` : line;
}

/**
 * The down reason: the process's own exit when it exited by itself (the SDK's error then only
 * says the connection closed), else `fallback` (a handshake timeout, `command not found`); the
 * last stderr line is added to either.
 */
export function downReason(
  fallback: string,
  exit: ProcessExit | null,
  tail: readonly string[],
): string {
  const words = lastWords(tail);
  if (exit) return words ? `${exitText(exit)}: ${words}` : exitText(exit);
  return words ? `${fallback}; stderr: ${words}` : fallback;
}

/** A start failure in an operator's words (`command not found: …`). */
export function describeStartError(config: ServerConfig, err: unknown): string {
  const code = (err as { code?: unknown }).code;
  if (config.kind === "stdio" && code === "ENOENT") {
    return `command not found: ${config.command}`;
  }
  if (config.kind === "stdio" && code === "EACCES") {
    return `command is not executable: ${config.command}`;
  }
  return messageOf(err);
}
