/**
 * The read-only virtual file system scripts see: mount points (`/source`, …) mapped to host
 * directories. Relative paths resolve under `/source/`. `..` segments, paths outside every mount
 * and symlinks leading out of their mount are refused with `VFS_DENIED` naming the path.
 * Synchronous on purpose: it is called from inside a running Lua host function in the worker.
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { join, sep } from "node:path";
import { GatewayError } from "../shared/errors.ts";

/** Mount point (absolute VFS path) → absolute host directory. */
export type VfsMounts = Record<string, string>;

/** The mount relative paths resolve under. */
export const DEFAULT_MOUNT = "/source";

function denied(path: string, why: string): GatewayError {
  return new GatewayError("VFS_DENIED", `VFS path ${JSON.stringify(path)} is refused: ${why}`, {
    data: { path },
  });
}

/** Normalises a VFS path to absolute form; refuses `..`, NUL and empty paths. */
export function normaliseVfsPath(path: string): string {
  if (path.length === 0) throw denied(path, "it is empty");
  if (path.includes("\0")) throw denied(path, "it contains a NUL byte");
  const absolute = path.startsWith("/") ? path : `${DEFAULT_MOUNT}/${path}`;
  const parts = absolute.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) throw denied(path, "'..' segments are not allowed");
  return "/" + parts.join("/");
}

/** Maps a VFS path to its host path (lexically; {@link readVfsFile} also checks symlinks). */
export function resolveVfsPath(
  mounts: VfsMounts,
  path: string,
): { mount: string; root: string; hostPath: string } {
  const normal = normaliseVfsPath(path);
  let best: { mount: string; root: string } | undefined;
  for (const [point, root] of Object.entries(mounts)) {
    const mount = "/" + point.split("/").filter((p) => p !== "").join("/");
    const inside = normal === mount || normal.startsWith(mount === "/" ? "/" : mount + "/");
    if (inside && (!best || mount.length > best.mount.length)) best = { mount, root };
  }
  if (!best) throw denied(path, "it is outside every mount");
  const rest = normal.slice(best.mount.length).split("/").filter((p) => p !== "");
  return { ...best, hostPath: join(best.root, ...rest) };
}

/**
 * Reads a file through the VFS. The real path (symlinks followed) must stay inside the real
 * mount root; files over `maxBytes` are refused before reading.
 */
export function readVfsFile(mounts: VfsMounts, path: string, maxBytes: number): Uint8Array {
  const { root, hostPath } = resolveVfsPath(mounts, path);
  let real: string;
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
    real = realpathSync(hostPath);
  } catch {
    throw new GatewayError(
      "RESOURCE_NOT_FOUND",
      `VFS path ${JSON.stringify(path)} does not exist`,
      {
        data: { path },
      },
    );
  }
  if (real !== realRoot && !real.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep)) {
    throw denied(path, "it leads outside its mount through a symlink");
  }
  const stat = statSync(real);
  if (!stat.isFile()) throw denied(path, "it is not a regular file");
  if (stat.size > maxBytes) {
    throw new GatewayError(
      "TOO_LARGE",
      `VFS file ${JSON.stringify(path)} is ${stat.size} bytes, over the ceiling of ${maxBytes}`,
    );
  }
  return new Uint8Array(readFileSync(real));
}
