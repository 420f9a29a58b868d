/**
 * The pins on record for one server (or one user's connection to it): read from the state
 * folder, written on first sight while the gateway records, and upgraded in place when they
 * predate the pinning of resources. Unreadable pins fail closed: they approve nothing.
 */
import { byName } from "../../shared/by-name.ts";
import { messageOf } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import {
  type Declared,
  KIND_FIELDS,
  KINDS,
  type Pin,
  type PinFile,
  readPins,
  type SeenFile,
  writePins,
} from "./store.ts";

/** Whose pins: a server, or one user's connection to a per-user server. */
export interface Whose {
  readonly server: string;
  readonly user?: string;
}

/**
 * The pins of `whose.server` as recorded in `dir`, given what it declares now (`seen`).
 * Without pins on record and not `recording`, undefined: nothing is approved or held yet.
 */
export function pinsOnRecord(
  dir: string,
  whose: Whose,
  seen: SeenFile,
  recording: boolean,
  log: Logger,
): PinFile | undefined {
  const { server, user } = whose;
  let pins: PinFile | undefined;
  try {
    pins = readPins(dir, server, user);
  } catch (err) {
    log.error("pins unreadable; treating every definition as new", {
      ...whose,
      error: messageOf(err),
    });
    return {
      server,
      approvedAt: "(unreadable)",
      tools: byName(),
      prompts: byName(),
      resources: byName(),
      templates: byName(),
    };
  }
  if (!pins) {
    if (!recording) return undefined;
    const first = firstSight(server, seen, seen.seenAt);
    // Another instance may have pinned it first: its pins count.
    if (writePins(dir, first, true, user)) {
      log.info("pinned definitions on first sight", { ...whose, ...counts(first) });
    }
    return readPins(dir, server, user) ?? first;
  }
  if (recording && (!pins.resources || !pins.templates)) {
    // Pins from before resources were pinned: what the server lists now is their first sight.
    const first = firstSight(server, seen, seen.seenAt);
    pins = {
      ...pins,
      resources: pins.resources ?? first.resources,
      templates: pins.templates ?? first.templates,
    };
    writePins(dir, pins, false, user);
    log.info("pinned resources on first sight", { ...whose, ...counts(pins) });
  }
  return pins;
}

/** The pins of a server first seen declaring `seen`. */
function firstSight(server: string, seen: SeenFile, at: string): PinFile {
  return {
    server,
    approvedAt: at,
    tools: pinsOf(seen.tools, at),
    prompts: pinsOf(seen.prompts, at),
    resources: pinsOf(seen.resources ?? {}, at),
    templates: pinsOf(seen.templates ?? {}, at),
  };
}

/** How many definitions of each kind a pin file holds (for the log). */
function counts(pins: PinFile): Record<string, number> {
  return Object.fromEntries(
    KINDS.map((k) => [KIND_FIELDS[k], Object.keys(pins[KIND_FIELDS[k]] ?? {}).length]),
  );
}

/** First-sight pins: every definition declared once (a repeated name is never pinned). */
function pinsOf(declared: Readonly<Record<string, Declared>>, at: string): Record<string, Pin> {
  const out = byName<Pin>();
  for (const [name, d] of Object.entries(declared)) {
    if ((d.copies ?? 1) === 1) {
      out[name] = { hash: d.hash, approvedAt: at, definition: d.definition };
    }
  }
  return out;
}
