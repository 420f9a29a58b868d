/**
 * Pins on disk, one pair of files per server in `<state>/pins/`: `<server>.json` holds the
 * approved definitions (written on first sight and by approvals), `<server>.seen.json` what the
 * server declares now (written by the gateway whenever that changes). Approving copies from the
 * second into the first, so the `approve` command needs neither the upstream nor the running
 * gateway: the gateway watches the folder and applies the new pins. A per-user server declares
 * to each user's connection on its own, so each user has their own pair beside the server's,
 * `<server>.<user key>.json` and `.seen.json` (the key is the opaque hash of their credential's
 * slot; a server name holds no dot, so no server's files are named so): one user's first sight
 * or approval never stands for another's, and the folder the gateway watches stays flat.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { NAME_PATTERN } from "../../config/mod.ts";
import { GatewayError } from "../../shared/errors.ts";
import { readStateFile, statePath, writeStateFile } from "../../state/mod.ts";

/**
 * What a server declared, as kept on disk: tools and prompts by name, resources by URI and
 * resource templates by URI template (what a client reads them by).
 */
export type DeclaredKind = "tool" | "prompt" | "resource" | "template";

/** One approved definition. */
export interface Pin {
  readonly hash: string;
  /** ISO time it was approved (or first seen). */
  readonly approvedAt: string;
  readonly definition: unknown;
}

/** One definition as declared now. */
export interface Declared {
  readonly hash: string;
  /** The first copy when the name is declared more than once. */
  readonly definition: unknown;
  /** How many times the list declares the name; absent: once. */
  readonly copies?: number;
}

/** `<server>.json`: the approved definitions. */
export interface PinFile {
  readonly server: string;
  /** Last approval (or first sight) of this server. */
  readonly approvedAt: string;
  readonly tools: Readonly<Record<string, Pin>>;
  readonly prompts: Readonly<Record<string, Pin>>;
  /**
   * Absent in pins written before resources were pinned: the resources and templates declared
   * then are pinned on first sight, as a new server's would be.
   */
  readonly resources?: Readonly<Record<string, Pin>>;
  readonly templates?: Readonly<Record<string, Pin>>;
}

/** `<server>.seen.json`: the definitions the server declares now. */
export interface SeenFile {
  readonly server: string;
  readonly seenAt: string;
  readonly tools: Readonly<Record<string, Declared>>;
  readonly prompts: Readonly<Record<string, Declared>>;
  readonly resources?: Readonly<Record<string, Declared>>;
  readonly templates?: Readonly<Record<string, Declared>>;
}

/** Where each kind is kept in a pin or seen file. */
export const KIND_FIELDS = {
  tool: "tools",
  prompt: "prompts",
  resource: "resources",
  template: "templates",
} as const satisfies Record<DeclaredKind, keyof PinFile & keyof SeenFile>;

/** Every kind, in the order changes are listed. */
export const KINDS = Object.keys(KIND_FIELDS) as DeclaredKind[];

/** The folder of pin files in a state folder. */
export const PINS_FOLDER = "pins";

/** A user's key: the hex hash naming their credential's slot. */
export const USER_KEY_PATTERN = /^[0-9a-f]{32}$/;

function fileOf(stateDir: string, server: string, suffix: string, user?: string): string {
  // The name becomes a file name: only config-valid server names (no "/" or "..") pass.
  if (!NAME_PATTERN.test(server)) {
    throw new GatewayError("USAGE", `"${server}" is not a server name`);
  }
  if (user !== undefined && !USER_KEY_PATTERN.test(user)) {
    throw new GatewayError("USAGE", `"${user}" is not a user key (32 hex digits)`);
  }
  const name = user === undefined ? server : `${server}.${user}`;
  return statePath(stateDir, join(PINS_FOLDER, `${name}${suffix}`));
}

/**
 * The identity of `server`'s pin file (`user`'s, for a per-user server) as it is now — inode,
 * size and time, which every write changes — or `undefined` while there is none.
 */
export function pinsStamp(stateDir: string, server: string, user?: string): string | undefined {
  try {
    const s = statSync(fileOf(stateDir, server, ".json", user));
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return undefined;
  }
}

/**
 * The approved pins of `server` (of `user`'s connection to it, for a per-user server), or
 * `undefined` before it was first seen. Read from the file each time and not kept: a review is
 * reused while the file's stamp and the server's list stay the same (`pins.ts`), so the file is
 * read only when one of them changed, and keeping every approved definition parsed in memory
 * would double what each tool costs the gateway.
 */
export function readPins(stateDir: string, server: string, user?: string): PinFile | undefined {
  return readStateFile(fileOf(stateDir, server, ".json", user)) as PinFile | undefined;
}

/**
 * Writes `server`'s pins (`user`'s, for a per-user server); `firstSight` never replaces
 * existing ones (answers false then).
 */
export function writePins(
  stateDir: string,
  pins: PinFile,
  firstSight = false,
  user?: string,
): boolean {
  // Definitions are not secret: 0644 keeps a file `sudo mcp-gateway approve` wrote readable.
  return writeStateFile(fileOf(stateDir, pins.server, ".json", user), pins, {
    exclusive: firstSight,
    mode: 0o644,
  });
}

/** What `server` (`user`'s connection to it) declared when last seen, or `undefined`. */
export function readSeen(stateDir: string, server: string, user?: string): SeenFile | undefined {
  return readStateFile(fileOf(stateDir, server, ".seen.json", user)) as SeenFile | undefined;
}

/** Records what `server` (`user`'s connection to it) declares now. */
export function writeSeen(stateDir: string, seen: SeenFile, user?: string): void {
  writeStateFile(fileOf(stateDir, seen.server, ".seen.json", user), seen, { mode: 0o644 });
}
