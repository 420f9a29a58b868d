/**
 * What a sandboxed command may read of itself: its program and its "own package folder". The
 * program is found on the child's `PATH` and followed through symlinks. Then, for the program
 * and — when the program is an interpreter (node, bun, deno, python, tsx) — for the first
 * argument naming an existing file (its script):
 *
 * - a file inside a `node_modules` folder gets that whole `node_modules` folder (the outermost
 *   one on its path): an installed package resolves its dependencies from there;
 * - any other file gets the folder of the nearest `package.json` above it (its project, with the
 *   project's own `node_modules`), or its own folder when there is none;
 * - a file under a system folder (`/usr`, `/bin`, `/lib`…) needs nothing: those are bound anyway.
 *
 * A `node_modules` that is a symlink (a worktree sharing another checkout's install) has its
 * target bound too, so imports resolve inside the box.
 */
import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { basename, delimiter, dirname, isAbsolute, join, resolve, sep } from "node:path";
import { GatewayError } from "../../shared/errors.ts";

/** Folders bound read-only for every sandboxed server (those that exist on this machine). */
export const SYSTEM_FOLDERS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/** Package runners that fetch at start (network, a cache in `$HOME`): a box refuses both. */
export const FETCHING_RUNNERS = /^(npx|bunx|pnpx|uvx|pipx)$/;

/** Programs whose first existing file argument is the script they run. */
const INTERPRETERS = /^(node|nodejs|bun|deno|python[0-9.]*|tsx|ts-node)(\.exe)?$/;

/** The command's real path, found on `path` (the child's `PATH`) unless it names a file. */
export function resolveProgram(command: string, path: string | undefined, cwd: string): string {
  if (FETCHING_RUNNERS.test(basename(command))) {
    throw new GatewayError(
      "UPSTREAM_UNAVAILABLE",
      `sandbox: ${basename(command)} fetches the package at start (network, a cache in $HOME), ` +
        "which the sandbox refuses; install the package and run its file (command: node, " +
        "args: [node_modules/PACKAGE/dist/index.js, …])",
    );
  }
  const candidates = command.includes("/")
    ? [isAbsolute(command) ? command : resolve(cwd, command)]
    : (path ?? "").split(delimiter).filter((d) => d !== "").map((d) => join(d, command));
  for (const c of candidates) {
    try {
      if (statSync(c).isFile()) return realpathSync(c);
    } catch { /* not there: try the next one */ }
  }
  throw new GatewayError(
    "UPSTREAM_UNAVAILABLE",
    `sandbox: command "${command}" was not found${
      command.includes("/") ? "" : " on the server's PATH"
    }`,
  );
}

/**
 * The folders a sandboxed `program` with `args` may read (see the module comment), and the
 * files they were found for (the program and its script).
 */
export function packageFolders(
  program: string,
  args: readonly string[],
  cwd: string,
): PackageFolders {
  const files = [program];
  const links: [string, string][] = [];
  if (INTERPRETERS.test(basename(program))) {
    for (const a of args) {
      if (a.startsWith("-")) continue;
      const abs = isAbsolute(a) ? a : resolve(cwd, a);
      try {
        if (statSync(abs).isFile()) {
          files.push(realpathSync(abs));
          links.push(...symlinksOn(abs));
          break;
        }
      } catch { /* not a file: a sub-command (deno run) or an option's value */ }
    }
  }
  const out = new Set<string>();
  for (const f of files) {
    if (isSystem(f)) continue;
    const folder = packageFolderOf(f);
    out.add(folder);
    const modules = join(folder, "node_modules");
    try {
      if (lstatSync(modules).isSymbolicLink()) out.add(realpathSync(modules));
    } catch { /* no node_modules */ }
  }
  return { folders: [...out], files, links };
}

/** What {@link packageFolders} found. */
export interface PackageFolders {
  /** Folders bound read-only. */
  folders: string[];
  /** Real paths of the program and its script. */
  files: string[];
  /** `[target, link]` of each symlink on the script's path as written (made again inside). */
  links: [string, string][];
}

/** The symlinks among the folders of `file` as written, outermost first. */
function symlinksOn(file: string): [string, string][] {
  const out: [string, string][] = [];
  const parts = file.split(sep);
  for (let i = 2; i < parts.length; i++) {
    const path = parts.slice(0, i).join(sep);
    try {
      if (lstatSync(path).isSymbolicLink()) out.push([readlinkSync(path), path]);
    } catch { /* gone meanwhile */ }
  }
  return out;
}

/** True under a folder every sandbox binds. */
export function isSystem(file: string): boolean {
  return SYSTEM_FOLDERS.some((s) => file === s || file.startsWith(s + sep));
}

function packageFolderOf(file: string): string {
  const parts = file.split(sep);
  const top = parts.indexOf("node_modules");
  if (top > 0) return parts.slice(0, top + 1).join(sep);
  for (let d = dirname(file); d !== dirname(d); d = dirname(d)) {
    if (existsSync(join(d, "package.json"))) return d;
  }
  return dirname(file);
}
