/**
 * What keeps a box off the host's kernel, beyond its namespaces: the `/proc` a container runtime
 * hands its containers, the seccomp filter (`seccomp.ts`) and resource limits.
 *
 * - `/proc` is the box's own (its PID namespace), but its `sys` folder is the kernel's settings:
 *   a server under a gateway run as root could write `/proc/sys/kernel/core_pattern` (a
 *   program the host runs as root on any crash). Those folders are bound read-only, and the
 *   files that tell about the host's kernel (keys, timers, kernel memory) cannot be read.
 *   bubblewrap covers only folders it finds writable before it drops root, which misses `sys`.
 * - `prlimit` (util-linux) runs first inside the box and sets the limits of everything the
 *   server starts: processes and threads (`RLIMIT_NPROC`, counted in the box's user namespace
 *   when the gateway is not root; the kernel does not apply it to root, for whom a pids cgroup
 *   holds it: `cgroup.ts`), writable memory of each process (`RLIMIT_DATA`) and no core files.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxConfig } from "../../config/mod.ts";
import { seccompFilter } from "./seccomp.ts";

/** Bound read-only over the box's `/proc` (as runc and podman do). */
const READ_ONLY_PROC = ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs"];
/** Files that cannot be read (`/dev/null` over them, on a bind mount that refuses devices). */
const MASKED_PROC_FILES = [
  "/proc/kcore",
  "/proc/keys",
  "/proc/key-users",
  "/proc/timer_list",
  "/proc/timer_stats",
  "/proc/latency_stats",
  "/proc/sched_debug",
  "/proc/kallsyms",
  "/proc/kpagecount",
  "/proc/kpageflags",
  "/proc/kpagecgroup",
];
/** Folders that are empty (a read-only tmpfs over them). */
const MASKED_PROC_FOLDERS = ["/proc/acpi", "/proc/asound", "/proc/scsi"];

/** bwrap arguments that follow `--proc /proc`: the read-only and masked parts of it. */
export function procArgs(): string[] {
  const out: string[] = [];
  // Only what this kernel has: bwrap cannot make a mount point inside procfs.
  for (const p of READ_ONLY_PROC) if (existsSync(p)) out.push("--ro-bind", p, p);
  for (const f of MASKED_PROC_FILES) if (existsSync(f)) out.push("--ro-bind", "/dev/null", f);
  for (const d of MASKED_PROC_FOLDERS) {
    if (existsSync(d)) out.push("--tmpfs", d, "--remount-ro", d);
  }
  return out;
}

/** The command that sets the box's limits, then runs the server (`prlimit` at `prlimit`). */
export function limitsArgv(prlimit: string, sandbox: SandboxConfig): string[] {
  return [
    prlimit,
    `--nproc=${sandbox.processes}`,
    `--data=${sandbox.memory}`,
    "--core=0",
    "--",
  ];
}

let filterFile: string | null | undefined;

/**
 * A file holding this machine's seccomp filter, written once per gateway process into a folder
 * only its user may enter (bwrap reads the filter from a descriptor, which the stdio spawn has
 * no slot for: a shell opens the file for it). `null` where no filter is written for the
 * architecture.
 */
export function seccompFile(): string | null {
  if (filterFile !== undefined) return filterFile;
  const filter = seccompFilter();
  if (!filter) return (filterFile = null);
  const dir = mkdtempSync(join(tmpdir(), "mcp-gateway-seccomp-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "filter.bpf");
  writeFileSync(file, filter, { mode: 0o400 });
  return (filterFile = file);
}

/**
 * The shell line that starts a box: joins its cgroup (`$1`, unless `-`), opens the seccomp
 * filter (`$0`, unless `-`) as descriptor 9, then becomes bwrap (same PID: the gateway's
 * signals and bwrap's `--die-with-parent` work as without it).
 */
const LAUNCH = '[ "$1" = - ] || echo $$ > "$1" || exit 125; shift; ' +
  '[ "$0" = - ] || exec 9<"$0"; exec "$@"';

/** The command starting `bwrap args` with the filter file and cgroup, when there is either. */
export function launcher(
  bwrap: string,
  args: readonly string[],
  filter: string | null,
  cgroupProcs: string | null,
): { command: string; args: string[] } {
  if (!filter && !cgroupProcs) return { command: bwrap, args: [...args] };
  const seccomp = filter ? ["--seccomp", "9"] : [];
  return {
    command: "/bin/sh",
    args: ["-c", LAUNCH, filter ?? "-", cgroupProcs ?? "-", bwrap, ...seccomp, ...args],
  };
}
