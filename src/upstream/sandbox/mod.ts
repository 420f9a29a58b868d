/**
 * @module Sandboxed stdio servers (`servers.<name>.sandbox`): the command runs under bubblewrap
 * (`bwrap`, Debian package `bubblewrap`), seeing only the system folders, its own package, a
 * private `/tmp` and the folders its config names (`bwrap.ts` says what and in which order).
 * The spawn itself stays the stdio transport's: only the command line and the environment
 * change, so a session-isolated server gets one box per session process and the minimal child
 * environment (`../child-env.ts`) is what the box inherits.
 */
import { realpathSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { realPath, type StdioServerConfig } from "../../config/mod.ts";
import { GatewayError } from "../../shared/errors.ts";
import { bwrapArgs } from "./bwrap.ts";
import { boxCgroup } from "./cgroup.ts";
import { launcher, limitsArgv, seccompFile } from "./kernel.ts";
import { packageFolders, resolveProgram } from "./package-folders.ts";

export { bwrapArgs } from "./bwrap.ts";
export { REFUSED_SYSCALLS, seccompFilter } from "./seccomp.ts";
export { FETCHING_RUNNERS, packageFolders, resolveProgram } from "./package-folders.ts";

/** What to install when `bwrap` is missing (said by `check` and by a failed start). */
export const BWRAP_HINT = "install the Debian package bubblewrap (apt-get install bubblewrap)";

/** What the stdio transport spawns. */
export interface SpawnSpec {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd: string;
}

/** What to install when `prlimit` is missing. */
const PRLIMIT_HINT = "install the Debian package util-linux (apt-get install util-linux)";

/** The `bwrap` executable on `path` (the gateway's `PATH`), or `null` when it is not installed. */
export function findBwrap(path: string | undefined = process.env.PATH): string | null {
  return findOnPath("bwrap", path);
}

function findOnPath(name: string, path: string | undefined = process.env.PATH): string | null {
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir === "") continue;
    const file = join(dir, name);
    try {
      if (statSync(file).isFile()) return file;
    } catch { /* not in this folder */ }
  }
  return null;
}

/**
 * What to spawn for `server` with the child environment `env`: the command itself when it is
 * not sandboxed, else `bwrap` running it. Inside the box `HOME` and `TMPDIR` are the private
 * `/tmp` unless the server's `env:` sets them.
 */
export function spawnSpec(server: StdioServerConfig, env: Record<string, string>): SpawnSpec {
  const { sandbox } = server;
  if (!sandbox) return { command: server.command, args: server.args, env, cwd: server.cwd };
  const bwrap = findBwrap();
  if (!bwrap) {
    throw new GatewayError(
      "UPSTREAM_UNAVAILABLE",
      `sandbox: bubblewrap (bwrap) is not installed; ${BWRAP_HINT}`,
    );
  }
  const prlimit = findOnPath("prlimit");
  if (!prlimit) {
    throw new GatewayError(
      "UPSTREAM_UNAVAILABLE",
      `sandbox: prlimit, which sets the box's limits, is not installed; ${PRLIMIT_HINT}`,
    );
  }
  const program = resolveProgram(server.command, env.PATH, server.cwd);
  const { folders, files, links } = packageFolders(program, server.args, server.cwd);
  const home = process.env.HOME;
  const args = bwrapArgs({
    sandbox,
    program,
    args: server.args,
    files,
    packages: folders,
    links,
    cwd: server.cwd,
    hidden: home && home !== "/" ? [realPath(home)] : [],
    prefix: limitsArgv(realpathSync(prlimit), sandbox),
  });
  const boxedEnv = { ...env, HOME: "/tmp", TMPDIR: "/tmp", ...server.env };
  // bwrap itself starts in a folder that exists outside; `--chdir` sets the server's.
  const start = launcher(bwrap, args, seccompFile(), boxCgroup(sandbox.processes));
  return { ...start, env: boxedEnv, cwd: "/" };
}
