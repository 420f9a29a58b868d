/**
 * Per-server `sandbox` and `filters`, each with the gateway's default. A server's `sandbox`
 * replaces the gateway's (so `sandbox: false` opts one server out); `filters` add up: the
 * gateway's run first, then the server's, so a server's own Lua filter never sees what a
 * gateway-wide redaction removed. Folders a sandboxed server must never reach (the config's
 * folder, `$HOME`) are refused here when `read`, `write` or `cwd` would hand them over. Paths
 * are compared as the kernel will follow them (symlinks resolved), never as written.
 */
import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { RawFilters, RawSandbox, RawServer } from "./schema.ts";
import type { FilterSpec, SandboxConfig } from "./types.ts";
import { parseSize } from "./units.ts";

/** Processes and threads of a box by default: a server with workers and a few helpers. */
const DEFAULT_PROCESSES = 256;
/** Writable memory of each boxed process by default. */
const DEFAULT_MEMORY = 2 * 1024 ** 3;
/** Below this a JavaScript runtime does not start (Bun reserves over 256 MiB at start). */
const MIN_MEMORY = 64 * 1024 ** 2;

/** A cross-field problem, located by its YAML path. */
interface Problem {
  path: (string | number)[];
  message: string;
}

/** True when `inner` is `outer` or lies inside it. */
export function within(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * `path` with every symlink on it followed. A tail that does not exist yet is kept as written
 * under its nearest existing folder's real path (what a later `mkdir` would make).
 */
export function realPath(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync(abs);
  } catch {
    const parent = dirname(abs);
    return parent === abs ? abs : join(realPath(parent), relative(parent, abs));
  }
}

/**
 * The folder of `hidden` that the real folder `real` would hand a box — one it holds, or the
 * state folder when it lies inside it — or `null` when it hands over none. `hidden` and `state`
 * are real paths too. One rule for the config's check and the box's start (a symlink may have
 * moved between the two).
 */
export function reachedFolder(
  real: string,
  hidden: readonly string[],
  state: string,
): { folder: string; inside: boolean } | null {
  for (const h of hidden) if (within(h, real)) return { folder: h, inside: false };
  // Unlike the config's folder (whose sub-folders, ./docs or ./data, are the usual grants),
  // nothing inside the state folder is any server's to read or write.
  return within(real, state) ? { folder: state, inside: true } : null;
}

/**
 * The sandbox of one stdio server, or `null` when it runs unboxed. The config's folder (`dir`),
 * the state folder (`state`: pins, credentials, the audit key) and `home` are the folders no
 * `read`, `write` or `cwd` entry may be or contain: a boxed server that could write the state
 * folder could approve its own pinned changes.
 */
export function sandboxOf(
  name: string,
  s: RawServer,
  fallback: RawSandbox | undefined,
  dir: string,
  state: string,
  home: string | undefined,
  problems: Problem[],
): SandboxConfig | null {
  const raw = s.sandbox ?? fallback;
  if (raw === undefined || raw === false) return null;
  const spec = raw === true ? {} : raw;
  const at = s.sandbox === undefined ? ["gateway", "sandbox"] : ["servers", name, "sandbox"];
  // A home of "/" (some service users) would hide everything: only a real home counts.
  const hidden = [dir, state, ...(home && home !== "/" ? [home] : [])].map(realPath);
  const realState = hidden[1]!;
  const guard = (path: string, where: (string | number)[], what: string) => {
    const reached = reachedFolder(realPath(path), hidden, realState);
    if (!reached) return;
    const { folder, inside } = reached;
    const which = folder === hidden[0]
      ? "the config's folder"
      : folder === realState
      ? "the state folder"
      : "$HOME";
    problems.push({
      path: where,
      message: `${what} ${path} ${inside ? "is inside" : "holds"} ${which} (${folder}), which a ` +
        "sandboxed server must never reach; name a folder of its own",
    });
  };
  const folders = (key: "read" | "write") =>
    (spec[key] ?? []).map((p, i) => {
      const abs = isAbsolute(p) ? p : resolve(dir, p);
      guard(abs, [...at, key, i], key === "read" ? "read folder" : "write folder");
      return abs;
    });
  const read = folders("read");
  const write = folders("write");
  if (s.cwd !== undefined) {
    guard(resolve(dir, s.cwd), ["servers", name, "cwd"], "the sandboxed server's cwd (writable)");
  }
  const memory = spec.memory === undefined ? DEFAULT_MEMORY : parseSize(spec.memory) ?? 0;
  if (memory < MIN_MEMORY) {
    problems.push({ path: [...at, "memory"], message: "expected at least 64MiB" });
  }
  return {
    read,
    write,
    network: spec.network ?? false,
    processes: spec.processes ?? DEFAULT_PROCESSES,
    memory,
    // An unwritten cwd is the config's folder: inside the box it is an empty folder instead.
    ownCwd: s.cwd !== undefined,
    hidden,
    state: realState,
  };
}

/** The filters of one server: the gateway's, then the server's; a repeated one runs once. */
export function filtersOf(
  s: RawServer,
  fallback: RawFilters | undefined,
  dir: string,
): FilterSpec[] {
  const out: FilterSpec[] = [];
  const seen = new Set<string>();
  for (const f of [...(fallback ?? []), ...(s.filters ?? [])]) {
    const spec: FilterSpec = typeof f === "string" ? { kind: "builtin", name: f } : {
      kind: "lua",
      name: `lua:${basename(f.lua).replace(/\.lua$/, "")}`,
      file: isAbsolute(f.lua) ? f.lua : resolve(dir, f.lua),
    };
    const key = spec.kind === "lua" ? spec.file : spec.name;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(spec);
  }
  return out;
}
