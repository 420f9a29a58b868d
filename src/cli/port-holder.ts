/**
 * Who holds a TCP port, when the system lets us see it: the listening socket's inode from
 * `/proc/net/tcp{,6}`, then the process whose file descriptors include that socket. Linux only,
 * and only processes this user may inspect; anywhere else the answer is simply unknown.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** A process found holding the port. */
export interface PortHolder {
  pid: number;
  command: string;
}

const LISTEN_STATE = "0A";

/** The inodes of sockets listening on `port` (any address). */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      const local = cols[1];
      if (!local || cols[3] !== LISTEN_STATE || !local.endsWith(`:${hexPort}`)) continue;
      if (cols[9]) inodes.add(cols[9]);
    }
  }
  return inodes;
}

function socketOwner(pid: string, wanted: Set<string>): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode && wanted.has(inode)) return true;
    } catch {
      // The descriptor closed while we looked.
    }
  }
  return false;
}

/** The processes listening on `port`, other than this one; empty when none can be seen. */
export function portHolders(port: number): PortHolder[] {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return [];
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const holders: PortHolder[] = [];
  for (const pid of pids) {
    if (Number(pid) === process.pid || !socketOwner(pid, inodes)) continue;
    let command = "";
    try {
      command = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
    } catch {
      // Gone already.
    }
    holders.push({ pid: Number(pid), command });
  }
  return holders;
}

/** "held by pid 123 (mcp-gateway)", or "" when nobody visible holds it. */
export function describePortHolders(port: number): string {
  const holders = portHolders(port);
  if (holders.length === 0) return "";
  return `held by ${
    holders.map((h) => `pid ${h.pid}${h.command ? ` (${h.command})` : ""}`).join(", ")
  }`;
}
