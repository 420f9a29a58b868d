/**
 * @module Log lines to stderr without building `process.stderr` on Bun. There that object is a
 * Node stream over a TTY or pipe wrapper: asking for it (even for `isTTY`) loads the runtime's
 * stream modules, thousands of objects that then stay in the heap for the life of the gateway,
 * where every full collection walks them. Bun's own file writer does the same job natively:
 * it writes at once and, like the stream, queues what a full pipe cannot take yet, so a stalled
 * reader never blocks the gateway. Elsewhere the stream is used as before.
 */
import { fstatSync } from "node:fs";

/** The slice of Bun's file writer used here. */
interface FileSink {
  write(text: string): number;
  flush(): number | Promise<number>;
}

declare const Bun: { stderr: { writer(): FileSink } } | undefined;

let sink: FileSink | undefined;

/** Writes `text` to stderr, in order with every earlier line. */
export function writeStderr(text: string): void {
  if (typeof Bun === "undefined") {
    process.stderr.write(text);
    return;
  }
  try {
    sink ??= Bun.stderr.writer();
    sink.write(text);
    ignoreFailure(sink.flush());
  } catch {
    // A reader that went away (EPIPE): nobody is left to read a log line.
  }
}

/** Resolves once every line {@link writeStderr} queued has been handed to the system. */
export async function stderrFlushed(): Promise<void> {
  if (!sink) return;
  try {
    await sink.flush();
  } catch {
    // As above: the reader went away.
  }
}

function ignoreFailure(result: number | Promise<number>): void {
  if (typeof result !== "number") result.catch(() => {});
}

/**
 * Whether stderr is a terminal. Only a character device can be one, and what a service's
 * stderr usually is — a file, a pipe, the journal's socket — is not: those are told apart by
 * one `fstat`, and only a character device asks the stream.
 */
export function stderrIsTerminal(): boolean {
  try {
    if (!fstatSync(2).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  return Boolean(process.stderr.isTTY);
}
