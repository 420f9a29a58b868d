/**
 * @module The native allocator's purge delay, for a serving gateway on Bun.
 *
 * Bun allocates buffers, request and answer bodies and pipe reads with mimalloc, which hands a
 * freed block's pages back to the OS 10 ms after it was freed. A gateway moving large results
 * frees and allocates megabytes per call, so every page of the next buffer is faulted in again
 * — and a page fault, dear on bare metal, is dearer still in a virtual machine. Measured by page
 * faults and CPU per call, this was most of what a 1 MB call cost the gateway (see
 * docs/PERFORMANCE.md). With a longer delay the pages freed by one call are reused by the next
 * while traffic lasts, and still go back to the OS within {@link PURGE_DELAY_MS} once it stops.
 *
 * mimalloc reads the setting from its environment once, before any script runs, so the serving
 * process starts itself again (`execve`: the same PID, arguments and standard streams) with it
 * set. An operator's own `MIMALLOC_PURGE_DELAY` is kept as given (`10` restores the default).
 * The variable is taken out of the environment after the restart, so no upstream inherits it.
 * Deno's allocator is another: there this does nothing.
 */
const VARIABLE = "MIMALLOC_PURGE_DELAY";
/** Set beside {@link VARIABLE} when the gateway set it, so the restarted process knows. */
const MARK = "MCPGW_SET_PURGE_DELAY";
/** How long freed pages stay with the process, in ms. */
export const PURGE_DELAY_MS = 1000;

declare const Bun: unknown;

type Execve = (file: string, args: string[], env: Record<string, string | undefined>) => never;

/**
 * Restarts this process — `self` is the command that starts this program (`selfCommand()`), this
 * process's arguments follow it — with the purge delay set, when it runs on Bun and neither the
 * operator nor an earlier start set it; returns only when it did not restart. Call it before
 * anything is started or read that the restart would repeat.
 */
export function tuneAllocator(
  self: readonly string[],
  env: Record<string, string | undefined> = process.env,
): void {
  if (typeof Bun === "undefined") return;
  if (env[MARK] !== undefined) {
    // The restarted process: the setting has been read; the environment is the operator's again.
    delete env[MARK];
    delete env[VARIABLE];
    return;
  }
  if (env[VARIABLE] !== undefined) return;
  const execve = (process as unknown as { execve?: Execve }).execve;
  if (typeof execve !== "function") return;
  const file = self[0]!;
  try {
    execve(file, [...self, ...process.argv.slice(2)], {
      ...env,
      [VARIABLE]: String(PURGE_DELAY_MS),
      [MARK]: "1",
    });
  } catch {
    // Not restartable (the binary was replaced or removed on disk): serve with the default.
  }
}
