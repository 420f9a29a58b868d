/**
 * The last line of defence against leaked children: every stdio server's process group is
 * recorded while it runs, and whatever is still recorded when the gateway process exits — for
 * any reason, on any path — is sent SIGKILL. The normal paths (stop, restart, reload) kill and
 * wait for each tree themselves; this only catches what they missed.
 */

const groups = new Set<number>();
let installed = false;

/** Records a detached child (its pid is its process group id) until {@link release}. */
export function track(pid: number): void {
  groups.add(pid);
  if (installed) return;
  installed = true;
  process.once("exit", killAll);
}

/** Forgets a child whose group was already swept. */
export function release(pid: number): void {
  groups.delete(pid);
}

/** Process groups still recorded (tests, diagnostics). */
export function trackedGroups(): number[] {
  return [...groups];
}

function killAll(): void {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      try {
        process.kill(pgid, "SIGKILL");
      } catch { /* already gone */ }
    }
  }
  groups.clear();
}
