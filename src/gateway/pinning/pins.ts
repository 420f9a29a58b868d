/**
 * The pins of one gateway: after each catalog rebuild every server's declared tools, prompts,
 * resources and resource templates are compared with what was approved (`./review.ts`). A
 * change is logged once, with its diff; under `pin: quarantine` the changed, new, renamed or
 * repeated definition is also taken out of the catalog or the resource list (so no listing,
 * search or script sees it) and a call to it or a read of it is refused with the reason.
 * Only a serving gateway records (first sight, what servers declare now) and watches the state
 * folder for approvals; the other commands read the pins and honour them. A per-user server's
 * connections are pinned, reviewed and held per user (`./store.ts`): a change on one user's
 * connection holds back that user's definition only, and approves nobody else's.
 */
import type { GatewayConfig } from "../../config/mod.ts";
import { sha256Hex } from "../../runtime/hash.ts";
import { GatewayError, messageOf } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import { type FolderWatch, watchStateFolder } from "../../state/mod.ts";
import type { Upstream, UpstreamCatalog } from "../../upstream/mod.ts";
import type { Catalog, PromptEntry, ToolEntry } from "../catalog.ts";
import { NameIndex } from "../name-index.ts";
import { type Approval, approvePins } from "./approve.ts";
import { HeldResources } from "./held-resources.ts";
import { pinsOnRecord } from "./on-record.ts";
import {
  declaredOf,
  logChange,
  type PinChange,
  refusalMessage,
  type Removed,
  removedNames,
  reviewDeclared,
} from "./review.ts";
import { KIND_FIELDS, KINDS, PINS_FOLDER, pinsStamp, writeSeen } from "./store.ts";
import { join } from "node:path";

/** A tool or prompt taken out of the catalog until approved. */
export interface Held {
  readonly server: string;
  /** Its catalog entry as it would be exposed. */
  readonly entry: ToolEntry | PromptEntry;
  readonly message: string;
}

/** One server's definitions that differ from its pins (status page, `/status.json`). */
export interface ServerPins {
  readonly server: string;
  /** The key of the user whose connection declares them (a per-user server); else absent. */
  readonly user?: string;
  readonly mode: "warn" | "quarantine";
  readonly changes: readonly PinChange[];
  readonly removed: readonly Removed[];
}

/** One server's review and what it was made from (see `Pins.#reviews`). */
interface LastReview {
  readonly catalog: UpstreamCatalog;
  readonly mode: string;
  readonly recording: boolean;
  readonly dir: string;
  readonly stamp: string | undefined;
  readonly result: ServerPins | undefined;
}

/** Pins of one gateway (see the module comment). */
export class Pins {
  readonly #config: () => GatewayConfig;
  readonly #log: Logger;
  #onChange: (() => void) | null = null;
  #watch: FolderWatch | null = null;
  /** Changes and failures already logged: `server/kind/name/hash`, `server!error`. */
  #logged = new Set<string>();
  /** Signature of the seen file last written per server. */
  #seenSig = new Map<string, string>();
  /** Keyed `server`, or `server/user` for a user's connection. */
  #servers = new Map<string, ServerPins>();
  /** What quarantine holds back, per user key (`""`: the catalog every caller shares). */
  #held = new Map<string, { tools: Map<string, Held>; prompts: Map<string, Held> }>();
  /**
   * Resources and templates quarantine holds back, per server. Only the shared servers': the
   * resource list is built from them alone (a per-user server's shared entry lists none).
   */
  #heldResources = new HeldResources([]);
  /**
   * Each server's (or user connection's) last review, with what it depended on: a rebuild
   * where its catalog object, pin file, mode and recording are all the same reuses it, so a
   * server joining does not cost a review of every other server's definitions.
   */
  #reviews = new Map<string, LastReview>();

  constructor(config: () => GatewayConfig, log: Logger) {
    this.#config = config;
    this.#log = log;
  }

  /**
   * Records first sights and declarations from now on, and calls `onChange` when another
   * process (the `approve` command) changes the pins.
   */
  record(onChange: () => void): void {
    this.#onChange = onChange;
    this.#watch ??= watchStateFolder(
      join(this.#config().gateway.state, PINS_FOLDER),
      onChange,
      this.#log,
    );
  }

  /** Stops watching the state folder. */
  close(): void {
    this.#watch?.close();
    this.#watch = null;
  }

  /**
   * Compares every pinned server's declarations with its pins (called on each rebuild): the
   * servers' shared `upstreams`, and per user key the connections of `users` to per-user ones.
   */
  review(
    upstreams: readonly Upstream[],
    users: ReadonlyMap<string, readonly Upstream[]> = new Map(),
  ): void {
    const servers = new Map<string, ServerPins>();
    const reviews = new Map<string, LastReview>();
    const reviewAll = (list: readonly Upstream[], user?: string) => {
      for (const u of list) {
        const key = user === undefined ? u.name : `${u.name}/${user}`;
        const review = this.#reviewCached(key, u, user);
        reviews.set(key, review);
        if (review.result) servers.set(key, review.result);
      }
    };
    reviewAll(upstreams);
    for (const [user, own] of users) reviewAll(own, user);
    this.#servers = servers;
    this.#reviews = reviews;
    // Held entries are found again as each catalog is applied.
    this.#held = new Map();
    this.#heldResources = new HeldResources(servers.values());
  }

  #reviewCached(key: string, u: Upstream, user: string | undefined): LastReview {
    const dir = this.#config().gateway.state;
    const mode = u.config.pin;
    const recording = this.#onChange !== null && u.state === "up";
    const stamp = () => {
      try {
        return pinsStamp(dir, u.name, user);
      } catch {
        return undefined; // a name the store refuses: the review itself reports it
      }
    };
    const last = this.#reviews.get(key);
    if (
      last && last.catalog === u.catalog && last.mode === mode && last.recording === recording &&
      last.dir === dir && last.stamp === stamp()
    ) return last;
    const { result, failed } = this.#reviewSafely(u, user);
    // A failed review (say, a read-only state folder) is tried again at the next rebuild. The
    // stamp is taken after the review, which may have written first-sight pins.
    return { catalog: u.catalog, mode, recording, dir, stamp: failed ? "" : stamp(), result };
  }

  #reviewSafely(
    u: Upstream,
    user: string | undefined,
  ): { result: ServerPins | undefined; failed: boolean } {
    const mode = u.config.pin;
    if (mode === "off") return { result: undefined, failed: false };
    // A server still starting has declared nothing yet: an empty list is not a declaration.
    const c = u.catalog;
    const declared = c.tools.length + c.prompts.length + c.resources.length +
      c.resourceTemplates.length;
    if (u.state !== "up" && declared === 0) return { result: undefined, failed: false };
    try {
      return { result: this.#reviewOne(u, mode, user), failed: false };
    } catch (err) {
      // Once per server and problem: a read-only state folder must not log on every rebuild.
      const error = messageOf(err);
      if (!this.#logged.has(`${u.name}!${error}`)) {
        this.#logged.add(`${u.name}!${error}`);
        this.#log.error("cannot read or write pins", { server: u.name, error });
      }
      return { result: undefined, failed: true };
    }
  }

  #reviewOne(
    u: Upstream,
    mode: "warn" | "quarantine",
    user: string | undefined,
  ): ServerPins | undefined {
    const dir = this.#config().gateway.state;
    const whose = user === undefined ? { server: u.name } : { server: u.name, user };
    const seen = declaredOf(u.name, u.catalog);
    const recording = this.#onChange !== null && u.state === "up";
    const pins = pinsOnRecord(dir, whose, seen, recording, this.#log);
    if (!pins) return undefined;
    if (recording) {
      // Kept per server as a digest: the signature itself grows with every tool it lists.
      const sig = sha256Hex(
        KINDS.map((k) => seen[KIND_FIELDS[k]] ?? {}).map((m) =>
          Object.entries(m).map(([n, d]) => `${n} ${d.hash} ${d.copies ?? 1}`).join("\n")
        ).join("\n\n"),
      );
      const key = user === undefined ? u.name : `${u.name}/${user}`;
      if (this.#seenSig.get(key) !== sig) {
        writeSeen(dir, seen, user);
        this.#seenSig.set(key, sig);
      }
    }
    const changes = reviewDeclared(pins, seen);
    const removed = removedNames(pins, seen);
    for (const c of changes) logChange(this.#log, this.#logged, whose, mode, c);
    if (changes.length === 0 && removed.length === 0) return undefined;
    return { ...whose, mode, changes, removed };
  }

  /**
   * `catalog` without what quarantine holds back; remembers the held entries for refusals.
   * `user`: the key of the user whose view it is (their connections' reviews apply too).
   */
  apply(catalog: Catalog, user = ""): Catalog {
    const mine = { tools: new Map<string, Held>(), prompts: new Map<string, Held>() };
    this.#held.set(user, mine);
    const held = new Map<string, Map<string, PinChange>>();
    for (const s of this.#servers.values()) {
      if (s.mode !== "quarantine" || (s.user !== undefined && s.user !== user)) continue;
      held.set(s.server, new Map(s.changes.map((c) => [`${c.kind}/${c.name}`, c])));
    }
    if (held.size === 0) return catalog;
    const keep = <E extends ToolEntry | PromptEntry>(
      entries: readonly E[],
      kind: "tool" | "prompt",
      into: Map<string, Held>,
    ): E[] =>
      entries.filter((e) => {
        const change = held.get(e.server)?.get(`${kind}/${e.upstreamName}`);
        if (!change) return true;
        into.set(e.name, {
          server: e.server,
          entry: e,
          message: refusalMessage(
            change,
            e.name,
            e.server,
            user ? `${e.server}/${user}` : e.server,
          ),
        });
        return false;
      });
    const tools = keep(catalog.tools, "tool", mine.tools);
    const prompts = keep(catalog.prompts, "prompt", mine.prompts);
    return {
      tools,
      toolsByName: NameIndex.of(tools),
      prompts,
      promptsByName: new Map(prompts.map((p) => [p.name, p])),
      renamed: catalog.renamed,
    };
  }

  /**
   * The held tool or prompt of that exposed name, if quarantine holds it back from the view of
   * `user` (a user key; `""`: the shared catalog).
   */
  held(kind: "tool" | "prompt", name: string, user = ""): Held | undefined {
    const mine = this.#held.get(user);
    return (kind === "tool" ? mine?.tools : mine?.prompts)?.get(name);
  }

  /**
   * Throws the quarantine refusal (`FORBIDDEN`, `data.reason: "quarantined"`) when `name` is
   * held back from `user`'s view and `reachable` says the caller could otherwise reach it.
   */
  refuseHeld(
    kind: "tool" | "prompt",
    name: string,
    reachable: (held: Held) => boolean,
    user = "",
  ): void {
    const held = this.held(kind, name, user);
    if (!held || !reachable(held)) return;
    throw new GatewayError("FORBIDDEN", held.message, {
      data: { [kind]: name, server: held.server, reason: "quarantined" },
    });
  }

  /**
   * False when quarantine holds back `server`'s resource (or template) of that upstream URI:
   * the resource list leaves it out.
   */
  keepsResource(server: string, kind: "resource" | "template", uri: string): boolean {
    return this.#heldResources.keeps(server, kind, uri);
  }

  /**
   * Throws the quarantine refusal (`FORBIDDEN`, `data.reason: "quarantined"`) for `uri` (as
   * its server knows it) when quarantine holds that resource or template back on one of the
   * servers `on` accepts, or — with `listed` false (no approved resource of that URI is listed)
   * — a held template the URI expands from.
   */
  refuseHeldResource(uri: string, on: (server: string) => boolean, listed = true): void {
    this.#heldResources.refuse(uri, on, listed);
  }

  /** Servers whose declarations differ from their pins. */
  status(): ServerPins[] {
    return [...this.#servers.values()];
  }

  /** Tools held back per server (servers under quarantine with none held answer 0). */
  quarantinedTools(): Map<string, number> {
    const out = new Map<string, number>();
    for (const s of this.#config().servers) if (s.pin === "quarantine") out.set(s.name, 0);
    for (const mine of this.#held.values()) {
      for (const h of mine.tools.values()) out.set(h.server, (out.get(h.server) ?? 0) + 1);
    }
    return out;
  }

  /**
   * Approves what `server` declares now (all, or `names`), as `mcp-gateway approve` does;
   * `user`: to that user's connection, for a per-user server.
   */
  approve(server: string, names: readonly string[] = [], user?: string): Approval {
    const config = this.#config();
    const separator = config.gateway.separator;
    const approval = approvePins(config.gateway.state, server, names, { separator, user });
    this.#log.info("definitions approved", {
      server,
      ...(user === undefined ? {} : { user }),
      approved: approval.approved.map((c) => `${c.kind} ${c.name}`),
      dropped: approval.dropped.map((r) => `${r.kind} ${r.name}`),
      refused: approval.refused.map((c) => `${c.kind} ${c.name} (declared ${c.copies} times)`),
    });
    this.#onChange?.();
    return approval;
  }
}
