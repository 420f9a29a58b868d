/**
 * The gateway's state folder (`gateway.state`): where what the gateway learns at run time is
 * kept across restarts — pinned tool definitions today, upstream credentials later. Small JSON
 * files, written whole through a temporary file and a rename, so a reader (another instance,
 * the `approve` command) never sees half a file; the folder is created private (0700).
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { randomBytes } from "../runtime/hash.ts";
import { GatewayError, messageOf } from "../shared/errors.ts";

/**
 * The state folder a config uses when `gateway.state` is not written: `$STATE_DIRECTORY` (set
 * by systemd for `StateDirectory=`; the first of several), else `.mcp-gateway` beside the
 * config file.
 */
export function defaultStateDir(
  configDir: string,
  env: Record<string, string | undefined>,
): string {
  const fromSystemd = env.STATE_DIRECTORY?.split(":")[0];
  return fromSystemd ? fromSystemd : join(configDir, ".mcp-gateway");
}

/** The path of `name` (a relative path like `pins/tracker.json`) in `dir`, its folder made. */
export function statePath(dir: string, name: string): string {
  const path = join(dir, name);
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new GatewayError(
      "INTERNAL",
      `cannot create the state folder ${dirname(path)}: ${messageOf(err)}`,
    );
  }
  return path;
}

/** The parsed JSON of a state file, or `undefined` when it does not exist. Throws when unreadable. */
export function readStateFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new GatewayError("INTERNAL", `cannot read ${path}: ${messageOf(err)}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new GatewayError("INTERNAL", `${path} is not valid JSON: ${messageOf(err)}`);
  }
}

/** How {@link writeStateFile} writes. */
export interface WriteOptions {
  /** Refuse to replace a file that exists (first writer wins). */
  exclusive?: boolean;
  /**
   * File mode (default 0600, for secrets). Files that hold nothing secret may be 0644, so that
   * a file an operator's command wrote as root stays readable by the service's own user.
   */
  mode?: number;
}

/**
 * Writes `value` as JSON to `path` atomically (temporary file, then rename). With `exclusive`,
 * refuses to replace a file that exists and answers `false`.
 */
export function writeStateFile(path: string, value: unknown, options: WriteOptions = {}): boolean {
  const text = JSON.stringify(value, null, 2) + "\n";
  const mode = options.mode ?? 0o600;
  if (options.exclusive) {
    try {
      writeFileSync(path, text, { flag: "wx", mode });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw new GatewayError("INTERNAL", `cannot write ${path}: ${messageOf(err)}`);
    }
  }
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    writeFileSync(tmp, text, { mode });
    renameSync(tmp, path);
    return true;
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new GatewayError("INTERNAL", `cannot write ${path}: ${messageOf(err)}`);
  }
}

/**
 * A random key kept in the state folder under `name` (made on first use, 32 bytes, mode 0600),
 * so what is derived from it (audit argument hashes) stays comparable across restarts.
 */
export function stateSecret(dir: string, name: string): Buffer {
  const path = statePath(dir, name);
  const existing = readStateFile(path) as { key?: unknown } | undefined;
  if (typeof existing?.key === "string" && existing.key.length >= 64) {
    return Buffer.from(existing.key, "hex");
  }
  const key = Buffer.from(randomBytes(32));
  // Another process may have made it first: its key counts.
  if (!writeStateFile(path, { key: key.toString("hex") }, { exclusive: true })) {
    return stateSecret(dir, name);
  }
  return key;
}
