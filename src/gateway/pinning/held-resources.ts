/**
 * What quarantine holds back of the shared servers' resources and resource templates, built
 * from one review. Only the shared servers': the resource list is built from them alone (a
 * per-user server's shared entry lists none). A held template also holds every URI expanded
 * from it, so a read cannot reach a held resource by spelling its URI out.
 */
import { GatewayError } from "../../shared/errors.ts";
import { type UriMatcher, uriMatcher } from "../../shared/protocol-checks.ts";
import { refusalMessage } from "./review.ts";
import type { ServerPins } from "./pins.ts";

/** A resource or resource template quarantine holds back from the resource list. */
interface HeldResource {
  readonly kind: "resource" | "template";
  /** The URI (or URI template) the server declares. */
  readonly uri: string;
  readonly message: string;
  /** A held template's matcher: URIs expanded from it are held too. */
  readonly matches?: UriMatcher;
}

/** The held resources of one review, per server. */
export class HeldResources {
  readonly #byServer = new Map<string, HeldResource[]>();

  constructor(servers: Iterable<ServerPins>) {
    for (const s of servers) {
      if (s.mode !== "quarantine" || s.user !== undefined) continue;
      const held: HeldResource[] = [];
      for (const c of s.changes) {
        if (c.kind !== "resource" && c.kind !== "template") continue;
        let matches: UriMatcher | undefined;
        try {
          if (c.kind === "template") matches = uriMatcher(c.name);
        } catch { /* a template the SDK cannot parse matches nothing, and is still held */ }
        held.push({
          kind: c.kind,
          uri: c.name,
          message: refusalMessage(c, `${c.name} of ${s.server}`, s.server),
          ...(matches ? { matches } : {}),
        });
      }
      if (held.length > 0) this.#byServer.set(s.server, held);
    }
  }

  /** False when `server`'s resource (or template) of that upstream URI is held back. */
  keeps(server: string, kind: "resource" | "template", uri: string): boolean {
    return !this.#byServer.get(server)?.some((h) => h.kind === kind && h.uri === uri);
  }

  /**
   * Throws the quarantine refusal (`FORBIDDEN`, `data.reason: "quarantined"`) for `uri` when
   * one of the servers `on` accepts holds it back — or, with `listed` false (no approved
   * resource of that URI is listed), holds back a template the URI expands from.
   */
  refuse(uri: string, on: (server: string) => boolean, listed: boolean): void {
    for (const [server, held] of this.#byServer) {
      if (!on(server)) continue;
      const found = held.find((h) =>
        h.uri === uri || (h.kind === "template" && !listed && h.matches?.(uri) === true)
      );
      if (!found) continue;
      throw new GatewayError("FORBIDDEN", found.message, {
        data: { uri, server, reason: "quarantined" },
      });
    }
  }
}
