/**
 * Approving: the definitions (tools, prompts, resources, resource templates) a server declares now (its seen file) become its pins, all of them
 * or the named ones. One function for the `approve` command and the status page's button; the
 * gateway that watches the state folder applies the result.
 */
import { byName } from "../../shared/by-name.ts";
import { GatewayError } from "../../shared/errors.ts";
import { type PinChange, type Removed, removedNames, reviewDeclared } from "./review.ts";
import {
  type DeclaredKind,
  KIND_FIELDS,
  KINDS,
  type Pin,
  type PinFile,
  readPins,
  readSeen,
  writePins,
} from "./store.ts";

/** What an approval did. */
export interface Approval {
  readonly server: string;
  /** The user whose connection's declarations were approved (a per-user server). */
  readonly user?: string;
  /** The changed and new definitions now approved. */
  readonly approved: readonly PinChange[];
  /** Pins dropped because the server no longer declares them. */
  readonly dropped: readonly Removed[];
  /** Names declared more than once: not approved, since a pin vouches for one definition. */
  readonly refused: readonly PinChange[];
}

/** How an approval reads names and whose declarations it takes. */
export interface ApproveOptions {
  /** `gateway.separator`: names may come with the `<server><separator>` prefix. */
  readonly separator?: string;
  /** The approval's time (ISO). */
  readonly now?: string;
  /** The key of the user whose connection's declarations to take (a per-user server). */
  readonly user?: string | undefined;
}

/**
 * Approves what `server` declares now (to `user`'s connection, for a per-user server); `names`
 * (as the server declares them, or as exposed with the `<server><separator>` prefix) limits it
 * to those. Throws `USAGE` naming what is unknown.
 */
export function approvePins(
  stateDir: string,
  server: string,
  names: readonly string[] = [],
  { separator = "__", now = new Date().toISOString(), user }: ApproveOptions = {},
): Approval {
  const seen = readSeen(stateDir, server, user);
  if (!seen) {
    const whose = user === undefined ? `server "${server}"` : `user ${user} of server "${server}"`;
    throw new GatewayError(
      "USAGE",
      `nothing recorded for ${whose} in ${stateDir}: the gateway records what a server ` +
        "declares while it serves with pin: warn or quarantine",
    );
  }
  const pins: PinFile = readPins(stateDir, server, user) ??
    { server, approvedAt: now, tools: byName(), prompts: byName() };
  const changes = reviewDeclared(pins, seen);
  const removed = removedNames(pins, seen);
  const prefix = `${server}${separator}`;
  const wanted = new Set(names.map((n) => n.startsWith(prefix) ? n.slice(prefix.length) : n));
  for (const name of wanted) {
    const known = KINDS.some((k) => Object.hasOwn(seen[KIND_FIELDS[k]] ?? {}, name)) ||
      removed.some((r) => r.name === name);
    if (!known) {
      throw new GatewayError(
        "USAGE",
        `server "${server}" declares no tool, prompt, resource or resource template "${name}"`,
      );
    }
  }
  const picked = (name: string) => wanted.size === 0 || wanted.has(name);
  // Null-prototype copies: a name such as `__proto__` is a key like any other.
  const next = new Map<DeclaredKind, Record<string, Pin>>(
    KINDS.map((k) => [k, Object.assign(byName<Pin>(), pins[KIND_FIELDS[k]])]),
  );
  const approved = changes.filter((c) => picked(c.name) && c.status !== "repeated");
  const refused = changes.filter((c) => picked(c.name) && c.status === "repeated");
  for (const c of approved) {
    const declared = seen[KIND_FIELDS[c.kind]]![c.name]!;
    next.get(c.kind)![c.name] = {
      hash: declared.hash,
      approvedAt: now,
      definition: declared.definition,
    };
  }
  const dropped = removed.filter((r) => picked(r.name));
  for (const r of dropped) delete next.get(r.kind)![r.name];
  writePins(
    stateDir,
    {
      server,
      approvedAt: now,
      tools: next.get("tool")!,
      prompts: next.get("prompt")!,
      resources: next.get("resource")!,
      templates: next.get("template")!,
    },
    false,
    user,
  );
  return { server, ...(user === undefined ? {} : { user }), approved, dropped, refused };
}
