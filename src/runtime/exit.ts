/**
 * @module Leaving the process without losing output. `process.exit` drops whatever is still
 * queued for a pipe: Bun (the source and the compiled binary) writes stdout and stderr to a
 * pipe asynchronously, so `mcp-gateway call … | jq` or `import … | tee` got the first 64–400 KB
 * of a large answer and exit 0. Every command leaves through here.
 */
import { stderrFlushed } from "./stderr.ts";

/**
 * Ends stdout and stderr, waits until everything written to them has been handed to the
 * operating system (or the reader went away), then exits with `code`.
 */
export async function exitWhenFlushed(code: number): Promise<never> {
  // Log lines first: they may be queued in Bun's own writer, ahead of the stream.
  await stderrFlushed();
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}

/** Resolves once `stream` has finished, closed or failed. */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.writableFinished || stream.destroyed) return Promise.resolve();
  return new Promise<void>((resolve) => {
    // A reader that closed its end (EPIPE), or a late log line written after `end`, is an
    // error event nothing can act on any more; without a listener it would be thrown.
    stream.on("error", () => resolve());
    stream.once("close", () => resolve());
    try {
      stream.end(() => resolve());
    } catch {
      resolve();
    }
  });
}
