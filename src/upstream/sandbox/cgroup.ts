/**
 * A pids cgroup per box, for a gateway run as root: the kernel does not apply `RLIMIT_NPROC` to
 * root, so there `processes:` is held by the cgroup's `pids.max` instead. The box's launcher
 * joins the cgroup before bwrap starts (everything the box starts is then counted in it).
 *
 * Where: under the gateway's own cgroup, on cgroup v2 when the pids controller is enabled for
 * its children there (the root cgroup, or a delegated one), else on a v1 `pids` hierarchy.
 * Not root: no cgroup, and `RLIMIT_NPROC` is the limit. Root and neither found: no process
 * limit, which is logged once. Each cgroup is named
 * after the gateway's PID; empty ones (boxes that ended, gateways that died) are removed when
 * the next box starts and when the gateway exits.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { createLogger } from "../../shared/log.ts";

const CGROUP_ROOT = "/sys/fs/cgroup";
const PREFIX = "mcp-gateway-box-";

let base: string | null | undefined;
let made = 0;
/** Cgroups this process handed out, by name, with when: swept only once surely joined or unused. */
const handedOut = new Map<string, number>();
/** How long a handed-out cgroup may stay empty before it counts as unused. */
const JOIN_GRACE_MS = 60_000;

/** The folder new box cgroups go in, or `null` where none can be made. */
function cgroupBase(): string | null {
  if (base !== undefined) return base;
  base = null;
  if (process.getuid?.() !== 0) return base;
  let lines: string[];
  try {
    lines = readFileSync("/proc/self/cgroup", "utf8").split("\n");
  } catch {
    return base;
  }
  const own = (match: (controllers: string, id: string) => boolean) => {
    for (const line of lines) {
      const [id, controllers, ...path] = line.split(":");
      if (id !== undefined && controllers !== undefined && match(controllers, id)) {
        return path.join(":");
      }
    }
    return null;
  };
  const v2 = own((c, id) => id === "0" && c === "");
  if (v2 !== null && existsSync(join(CGROUP_ROOT, "cgroup.controllers"))) {
    const dir = join(CGROUP_ROOT, v2);
    if (controllersOf(join(dir, "cgroup.subtree_control")).includes("pids")) return base = dir;
  }
  const v1 = own((c) => c.split(",").includes("pids"));
  if (v1 !== null && existsSync(join(CGROUP_ROOT, "pids", "cgroup.procs"))) {
    base = join(CGROUP_ROOT, "pids", v1);
  }
  if (base) process.once("exit", sweep);
  else {
    createLogger("sandbox").warn(
      "no pids cgroup can be made for sandboxed servers under root: their process limit is " +
        "not applied (run the gateway as a service user, or delegate the pids controller)",
    );
  }
  return base;
}

function controllersOf(file: string): string[] {
  try {
    return readFileSync(file, "utf8").trim().split(/\s+/);
  } catch {
    return [];
  }
}

/**
 * A new cgroup holding at most `processes` processes and threads; returns its `cgroup.procs`
 * (for the launcher to join), or `null` where no cgroup can be made.
 */
export function boxCgroup(processes: number): string | null {
  const at = cgroupBase();
  if (!at) return null;
  sweep();
  const name = `${PREFIX}${process.pid}-${++made}`;
  const dir = join(at, name);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, "pids.max"), String(processes));
  } catch {
    return null;
  }
  handedOut.set(name, Date.now());
  return join(dir, "cgroup.procs");
}

/** Removes this gateway's empty box cgroups and those of gateways that are gone. */
function sweep(): void {
  if (!base) return;
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number(name.slice(PREFIX.length).split("-")[0]);
    if (pid !== process.pid && alive(pid)) continue;
    // One of ours, handed out but perhaps not yet joined (its launcher may still be starting while
    // another box starts beside it): empty is not yet unused.
    const at = handedOut.get(name);
    if (at !== undefined && Date.now() - at < JOIN_GRACE_MS) continue;
    handedOut.delete(name);
    try {
      rmdirSync(join(base, name)); // refused while a process is in it
    } catch { /* still in use */ }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== "ESRCH";
  }
}
