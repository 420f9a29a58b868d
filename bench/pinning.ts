/**
 * Where the throughput part's processes run. Pinned, the server side — the gateway, the floor,
 * the core or a peer, each with its upstream child — shares one CPU, and the load generator has
 * another to itself: a process under test never competes with the client that drives it, and
 * its CPU per call is not inflated by the two trading one core back and forth. `taskset` (from
 * util-linux) sets the affinity at exec, and children inherit it, so an upstream a server spawns
 * lands on the server's CPU. With no `taskset`, or fewer than two CPUs allowed to this process,
 * the run is unpinned and the report says why.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** The CPUs to pin to (`taskset -c` lists), or null for "unpinned"; `note` says which and why. */
export interface Pinning {
  server: string | null;
  client: string | null;
  note: string;
}

/** No pinning, with the reason. */
export function unpinned(why: string): Pinning {
  return { server: null, client: null, note: `unpinned: ${why}` };
}

/** Picks two CPUs this process may run on; unpinned (and why) when that cannot be done. */
export function choosePinning(): Pinning {
  const probe = spawnSync("taskset", ["-c", "0", "true"], { stdio: "ignore" });
  if (probe.error || probe.status !== 0) return unpinned("taskset (util-linux) is not available");
  const cpus = allowedCpus();
  if (cpus.length < 2) {
    return unpinned(`only ${cpus.length || "an unknown number of"} CPU(s) allowed here`);
  }
  const [server, client] = [String(cpus[0]), String(cpus[1])];
  return {
    server,
    client,
    note: `server and its upstream on CPU ${server}, load generator on CPU ${client} (taskset)`,
  };
}

/** `argv` run on `cpu` (through `taskset -c`, which execs it: the pid stays the program's). */
export function onCpu(cpu: string | null, argv: readonly string[]): string[] {
  return cpu === null ? [...argv] : ["taskset", "-c", cpu, ...argv];
}

/** This process's allowed CPUs, from `Cpus_allowed_list` in `/proc/self/status` (`0-3,6`). */
function allowedCpus(): number[] {
  try {
    const status = readFileSync("/proc/self/status", "utf8");
    const list = /^Cpus_allowed_list:\s*(\S+)$/m.exec(status)?.[1] ?? "";
    return list.split(",").flatMap((part) => {
      const [low, high = low] = part.split("-").map(Number);
      if (!Number.isInteger(low) || !Number.isInteger(high)) return [];
      return Array.from({ length: high! - low! + 1 }, (_, i) => low! + i);
    });
  } catch {
    return [];
  }
}
