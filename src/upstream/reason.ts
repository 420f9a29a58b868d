/**
 * Why a server is down, in one line an operator can act on: `exited with code 1: Error:
 * GITHUB_TOKEN is not set` rather than the SDK's `Connection closed`. Built from what the
 * process left behind — its exit and the last line it wrote to stderr — when there is one.
 */
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

/** The last stderr line that can explain a failure (cut to 300 characters), if any. */
export function lastWords(tail: readonly string[]): string | undefined {
  for (let i = tail.length - 1; i >= 0; i--) {
    const line = tail[i]!.trim();
    if (line === "" || NOISE.some((re) => re.test(tail[i]!))) continue;
    return line.length > MAX_WORDS ? `${line.slice(0, MAX_WORDS)}…` : line;
  }
  return undefined;
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
