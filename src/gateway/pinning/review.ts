/**
 * Compares what a server declares now with what was approved: each tool, prompt, resource or
 * resource template is unchanged, changed (its hash differs; the diff says where), new, or
 * repeated (declared more than once in one list). A renamed tool is a removed name plus a new
 * one, so a rename never carries a new definition past its pin; a repeated name is a change
 * whatever its copies hold, since a client may read either copy and the pin can vouch for one
 * definition only. Resources are keyed by URI and templates by URI template, so a changed
 * template is a new one. Names key null-prototype objects: `__proto__` or `constructor` is a
 * name like any other.
 */
import { byName, own } from "../../shared/by-name.ts";
import type { Logger } from "../../shared/log.ts";
import { canonicalHash, diffDefinitions, type FieldDiff, fieldsOf } from "./canonical.ts";
import type { UpstreamCatalog } from "../../upstream/mod.ts";
import {
  type Declared,
  type DeclaredKind,
  KIND_FIELDS,
  KINDS,
  type PinFile,
  type SeenFile,
} from "./store.ts";

/** A declaration that differs from its pin. */
export interface PinChange {
  readonly kind: DeclaredKind;
  /** The name the server declares it under. */
  readonly name: string;
  /** `repeated`: declared more than once (never approvable until declared once). */
  readonly status: "changed" | "new" | "repeated";
  /** How many times the list declares it (more than 1 only when `repeated`). */
  readonly copies: number;
  /** When the pin it differs from was approved (for a new one: the server's last approval). */
  readonly approvedAt: string;
  /** Top-level fields that differ (empty for a new one). */
  readonly fields: readonly string[];
  readonly diff: readonly FieldDiff[];
  readonly hash: string;
}

/**
 * What one server declares, in the shape pins are kept: a repeated name keeps its first copy
 * (the one the catalog exposes) and counts its copies.
 */
export function declaredOf(
  server: string,
  catalog: UpstreamCatalog,
  now = new Date().toISOString(),
): SeenFile {
  const map = <T>(items: readonly T[], keyOf: (item: T) => string, form: (item: T) => unknown) => {
    const out = byName<Declared>();
    for (const item of items) {
      const key = keyOf(item);
      const first = own(out, key);
      const definition = form(item);
      out[key] = first
        ? { ...first, copies: (first.copies ?? 1) + 1 }
        : { hash: canonicalHash(definition), definition };
    }
    return out;
  };
  const same = <T>(item: T) => item;
  return {
    server,
    seenAt: now,
    tools: map(catalog.tools, (t) => t.name, same),
    prompts: map(catalog.prompts, (p) => p.name, same),
    resources: map(catalog.resources, (r) => r.uri, pinnedResource),
    templates: map(catalog.resourceTemplates, (t) => t.uriTemplate, same),
  };
}

/** Pinned forms of listed resources, kept so each listed object is hashed once. */
const resourceForms = new WeakMap<object, unknown>();

/**
 * A resource as pinned: without `size` and `annotations.lastModified`, which change with the
 * content and say nothing a client acts on, so a growing file is not a changed declaration.
 */
function pinnedResource(r: UpstreamCatalog["resources"][number]): unknown {
  const known = resourceForms.get(r);
  if (known) return known;
  const { size: _size, annotations, ...rest } = r;
  const kept = annotations ? (({ lastModified: _, ...a }) => a)(annotations) : undefined;
  const form = kept && Object.keys(kept).length > 0 ? { ...rest, annotations: kept } : rest;
  resourceForms.set(r, form);
  return form;
}

/** The declarations of `seen` that differ from `pins`, by kind, in declared order. */
export function reviewDeclared(pins: PinFile, seen: SeenFile): PinChange[] {
  const out: PinChange[] = [];
  for (const kind of KINDS) {
    const now = seen[KIND_FIELDS[kind]] ?? {};
    const approved = pins[KIND_FIELDS[kind]] ?? {};
    for (const [name, d] of Object.entries(now)) {
      const pin = own(approved, name);
      const copies = d.copies ?? 1;
      if (pin?.hash === d.hash && copies === 1) continue;
      const diff = pin
        ? diffDefinitions(pin.definition, d.definition)
        : diffDefinitions(undefined, d.definition);
      out.push({
        kind,
        name,
        status: copies > 1 ? "repeated" : pin ? "changed" : "new",
        copies,
        approvedAt: pin?.approvedAt ?? pins.approvedAt,
        fields: pin ? fieldsOf(diff) : [],
        diff,
        hash: d.hash,
      });
    }
  }
  return out;
}

/** An approved definition the server no longer declares (half of a rename, or a removal). */
export interface Removed {
  readonly kind: DeclaredKind;
  readonly name: string;
}

/** Approved definitions the server no longer declares. */
export function removedNames(pins: PinFile, seen: SeenFile): Removed[] {
  return KINDS.flatMap((kind) => {
    const now = seen[KIND_FIELDS[kind]] ?? {};
    return Object.keys(pins[KIND_FIELDS[kind]] ?? {}).filter((n) => !Object.hasOwn(now, n))
      .map((name) => ({ kind, name }));
  });
}

/** How a message names a kind. */
export function kindLabel(kind: DeclaredKind): string {
  return kind === "template" ? "resource template" : kind;
}

/**
 * The refusal a quarantined tool or prompt answers with, naming what differs; `target` is what
 * the `approve` command takes (`server/user` for a user's connection of a per-user server).
 */
export function refusalMessage(
  change: PinChange,
  exposed: string,
  server: string,
  target = server,
): string {
  const day = change.approvedAt.slice(0, 10);
  const kind = kindLabel(change.kind);
  const how = `approve with \`mcp-gateway approve ${target}\``;
  if (change.status === "repeated") {
    return `${kind} ${exposed} is declared ${change.copies} times by ${server}; it is ` +
      `held until ${server} declares it once (then, if it differs from its pin, ${how})`;
  }
  if (change.status === "new") {
    return `${kind} ${exposed} is new since the definitions of ${server} were approved ` +
      `on ${day}; ${how}`;
  }
  const fields = change.fields;
  const list = fields.length <= 1
    ? `${fields[0] ?? "its definition"} differs`
    : `${fields.slice(0, -1).join(", ")} and ${fields.at(-1)} differ`;
  return `${kind} ${exposed} changed since it was approved on ${day}: ${list}; ${how}`;
}
/**
 * Logs a change once per server, user, definition and hash (`logged` remembers), so a change
 * still unapproved does not log on every rebuild.
 */
export function logChange(
  log: Logger,
  logged: Set<string>,
  whose: { server: string; user?: string },
  mode: string,
  c: PinChange,
): void {
  const key = `${whose.server}/${whose.user ?? ""}/${c.kind}/${c.name}/${c.hash}/${c.copies}`;
  if (logged.has(key)) return;
  logged.add(key);
  if (c.status === "repeated") {
    log.warn(`${kindLabel(c.kind)} declared more than once`, {
      ...whose,
      [c.kind]: c.name,
      copies: c.copies,
      mode,
      approvedAt: c.approvedAt,
    });
    return;
  }
  log.warn(`${kindLabel(c.kind)} definition ${c.status === "new" ? "is new" : "changed"}`, {
    ...whose,
    [c.kind]: c.name,
    mode,
    approvedAt: c.approvedAt,
    fields: c.fields,
    diff: c.diff,
  });
}
