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
 * 4. `read:` folders read-only, `write:` folders and a written `cwd` writable, the narrower
 *    on top of the wider; an unwritten `cwd` (the config's folder) becomes an empty folder at
 *    the same path, so relative paths in the server's arguments keep naming the same places.
 *
 * Namespaces: PID, IPC, UTS and cgroup always, the network unless `network: true`; no
 * capabilities; the box dies with the gateway (`--die-with-parent`); the kernel's settings
 * read-only, and limits set by `prlimit` before the server starts (`kernel.ts`). Paths keep
 * their host names inside, so absolute paths in arguments and roots work unchanged.
 */
import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import { reachedFolder, type SandboxConfig, within } from "../../config/mod.ts";
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
  out.push(...folderArgs(plan));
  out.push("--chdir", plan.cwd, "--", ...plan.prefix, plan.program, ...plan.args);
  return out;
}

/**
 * The `read:`, `write:` and `cwd` binds, at their real paths, the wider first, so that a narrower
 * rule lies on top of a wider one whatever the YAML order: a `read:` folder inside a written
 * `cwd` stays read-only, a `write:` folder inside a `read:` one is writable. A folder named
 * through a symlink is also found at its written path (a symlink made inside). Each real path is
 * checked again here against the hidden folders: a symlink may have moved since the config was
 * read.
 */
function folderArgs(plan: BoxPlan): string[] {
  const { sandbox } = plan;
  const binds: { real: string; written: string; writable: boolean; key: string }[] = [];
  const add = (written: string, writable: boolean, key: string) => {
    const real = mustExist(written, key);
    const reached = reachedFolder(real, sandbox.hidden, sandbox.state);
    if (reached) {
      throw new GatewayError(
        "UPSTREAM_UNAVAILABLE",
        `sandbox: the ${key} folder ${written} (${real}) reaches ${reached.folder}, a folder a ` +
          "sandboxed server may not see",
      );
    }
    binds.push({ real, written, writable, key });
  };
  for (const r of sandbox.read) add(r, false, "read");
  for (const w of sandbox.write) add(w, true, "write");
  const out: string[] = [];
  if (sandbox.ownCwd) add(plan.cwd, true, "cwd");
  else if (!binds.some((b) => b.written === plan.cwd)) out.push("--dir", plan.cwd);
  // Wider (shorter) first; on the same folder read-only last, so it wins.
  binds.sort((a, b) => depth(a.real) - depth(b.real) || Number(b.writable) - Number(a.writable));
  for (const b of binds) out.push(b.writable ? "--bind" : "--ro-bind", b.real, b.real);
  for (const b of binds) {
    const shown = binds.some((o) => within(b.written, o.real)) ||
      plan.packages.some((p) => within(b.written, p));
    if (b.written !== b.real && !shown) out.push("--symlink", b.real, b.written);
  }
  return out;
}

function depth(path: string): number {
  return path.split("/").filter((p) => p !== "").length;
}

/** The real path of a folder to bind, which must exist. */
function mustExist(folder: string, key: string): string {
  try {
    return realpathSync(folder);
  } catch {
    throw new GatewayError(
      "UPSTREAM_UNAVAILABLE",
      `sandbox: the ${key} folder ${folder} does not exist`,
    );
  }
}
