/**
 * The bubblewrap command line of one sandboxed stdio server. The box starts from an empty root
 * (bwrap's own tmpfs) and gets, in this order, so that later mounts lie on top of earlier ones:
 *
 * 1. system folders read-only (`/usr`, and `/bin`, `/lib*` as symlinks where the host has
 *    them so), the few files of `/etc` programs need to start, resolve names and check TLS;
 *    a fresh `/proc` (of its own PID namespace) and a minimal `/dev`; a private `/tmp`;
 * 2. the command's own package folders read-only (`package-folders.ts`);
 * 3. an empty tmpfs over each hidden folder (the config's folder, `$HOME`) that a package
 *    folder holds, and the package folders inside those again;
 * 4. `read:` folders read-only, `write:` folders and a written `cwd` writable; an unwritten
 *    `cwd` (the config's folder) becomes an empty folder at the same path, so relative paths
 *    in the server's arguments keep naming the same places.
 *
 * Namespaces: PID, IPC, UTS and cgroup always, the network unless `network: true`; no
 * capabilities; the box dies with the gateway (`--die-with-parent`); the kernel's settings
 * read-only, and limits set by `prlimit` before the server starts (`kernel.ts`). Paths keep
 * their host names inside, so absolute paths in arguments and roots work unchanged.
 */
import { existsSync, lstatSync, readlinkSync } from "node:fs";
import { type SandboxConfig, within } from "../../config/mod.ts";
import { GatewayError } from "../../shared/errors.ts";
import { procArgs } from "./kernel.ts";
import { SYSTEM_FOLDERS } from "./package-folders.ts";

/** Files of `/etc` a program may need: the loader, users, name resolution, TLS roots, time. */
const ETC_FILES = [
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/alternatives",
  "/etc/passwd",
  "/etc/group",
  "/etc/nsswitch.conf",
  "/etc/hosts",
  "/etc/localtime",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/pki",
];
/** Only with the network: where the host's resolver is. */
const NETWORK_ETC = ["/etc/resolv.conf", "/etc/host.conf", "/etc/gai.conf"];

/** What one sandboxed start binds, resolved by the caller. */
export interface BoxPlan {
  readonly sandbox: SandboxConfig;
  /** The program's real path (what bwrap runs). */
  readonly program: string;
  readonly args: readonly string[];
  /** Files that must stay reachable: the program and its script. */
  readonly files: readonly string[];
  readonly packages: readonly string[];
  /** `[target, link]`: symlinks on the script's path as written, made again inside the box. */
  readonly links: readonly (readonly [string, string])[];
  readonly cwd: string;
  /** Hidden folders besides the config's (the gateway's `$HOME`). */
  readonly hidden: readonly string[];
  /** Run inside the box before the program, which follows as its arguments (`prlimit …`). */
  readonly prefix: readonly string[];
}

/** The arguments of `bwrap` for `plan` (the program and its arguments last). */
export function bwrapArgs(plan: BoxPlan): string[] {
  const { sandbox } = plan;
  const out = [
    "--die-with-parent",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(sandbox.network ? [] : ["--unshare-net"]),
    "--cap-drop",
    "ALL",
    "--hostname",
    "mcp-sandbox",
  ];
  for (const folder of SYSTEM_FOLDERS) {
    if (!existsSync(folder)) continue;
    const stat = lstatSync(folder);
    if (stat.isSymbolicLink()) out.push("--symlink", readlinkSync(folder), folder);
    else out.push("--ro-bind", folder, folder);
  }
  for (const f of [...ETC_FILES, ...(sandbox.network ? NETWORK_ETC : [])]) {
    out.push("--ro-bind-try", f, f);
  }
  out.push("--proc", "/proc", ...procArgs(), "--dev", "/dev", "--tmpfs", "/tmp");
  const hidden = [...new Set([...sandbox.hidden, ...plan.hidden])];
  const packages = [...plan.packages].sort((a, b) => a.length - b.length);
  for (const p of packages) out.push("--ro-bind", p, p);
  const masked = hidden.filter((h) => packages.some((p) => within(h, p)));
  for (const h of masked) {
    const file = plan.files.find((f) => within(f, h));
    if (file && !packages.some((p) => within(file, p) && within(p, h) && p !== h)) {
      throw new GatewayError(
        "UPSTREAM_UNAVAILABLE",
        `sandbox: ${file} lies in ${h}, a folder a sandboxed server may not see (the ` +
          "config's folder or $HOME); install the server in a folder of its own",
      );
    }
    out.push("--tmpfs", h);
  }
  for (const p of packages) {
    if (masked.some((h) => within(p, h) && p !== h)) out.push("--ro-bind", p, p);
  }
  for (const [target, link] of plan.links) {
    if (!packages.some((p) => within(link, p))) out.push("--symlink", target, link);
  }
  for (const r of sandbox.read) out.push("--ro-bind", mustExist(r, "read"), r);
  for (const w of sandbox.write) out.push("--bind", mustExist(w, "write"), w);
  if (sandbox.ownCwd) out.push("--bind", plan.cwd, plan.cwd);
  else if (!sandbox.write.includes(plan.cwd) && !sandbox.read.includes(plan.cwd)) {
    out.push("--dir", plan.cwd);
  }
  out.push("--chdir", plan.cwd, "--", ...plan.prefix, plan.program, ...plan.args);
  return out;
}

function mustExist(folder: string, key: "read" | "write"): string {
  if (!existsSync(folder)) {
    throw new GatewayError(
      "UPSTREAM_UNAVAILABLE",
      `sandbox: the ${key} folder ${folder} does not exist`,
    );
  }
  return folder;
}
