/**
 * @module The 2025-11-25 connection of an upstream that speaks both eras. A server found
 * 2026-07-28 by the era probe may still answer `initialize` on the same URL (the SDK v2
 * server's default, the conformance reference server): there a 2025 session's call is better
 * served in 2025, where what the server asks (sampling, elicitation, roots) arrives as ordinary
 * server-to-client requests on the call's own stream and a resource subscription is the
 * server's own — neither of which a server's 2026-07-28 path is sure to carry.
 *
 * "Speaks both eras" is learned, not assumed: `server/discover` need not list the 2025 revisions
 * a server also serves (the reference server lists only 2026-07-28), so the first 2025 caller's
 * need opens the connection, and the `initialize` answer is the verdict, kept per server config
 * until a reload, as the era verdict is (./modern/verdicts.ts). A server that refuses it is
 * 2026-07-28 only, and one that answers it without a session (the SDK v2 server's stateless
 * fallback) can carry neither its own requests nor notifications in 2025 — less than its
 * 2026-07-28 path: the 2025 callers of either stay on the modern connection, as before. Only a
 * streamable HTTP server with `protocol: auto` has a side: `protocol: modern` pins the era, and
 * a second stdio process would be a second server, not a second connection to it.
 *
 * The side is an `Upstream` of its own on a copy of the config pinned to `protocol: legacy`
 * (./config-copies.ts), so it has the same URL, headers and credential, its own restarts and
 * resend rule, and the pass-through handlers every 2025 connection gets; its owner stops it.
 */
import type { ServerConfig } from "../config/mod.ts";
import { sourceOf } from "./config-copies.ts";
import type { Upstream } from "./upstream.ts";

/** What the first `initialize` found, per server config (a copy shares its source's). */
const verdicts = new WeakMap<ServerConfig, "both" | "modern-only">();

/** Whether `config` may have a 2025 side beside a 2026-07-28 connection. */
export function mayHaveSide(config: ServerConfig): boolean {
  return config.kind === "http" && config.transport !== "sse" && config.protocol === "auto";
}

/** The 2025-11-25 side of one upstream connection, opened on its first need. */
export class LegacySide {
  readonly #config: ServerConfig;
  readonly #make: () => Upstream;
  #upstream: Upstream | undefined;
  /** The side being opened: open already once up, so the catalog rebuild its start causes sees it. */
  #trying: Upstream | undefined;
  #opening: Promise<Upstream | undefined> | undefined;
  #stopped = false;

  /** `make` builds the side's upstream (not started) when it is first needed. */
  constructor(config: ServerConfig, make: () => Upstream) {
    this.#config = config;
    this.#make = make;
  }

  /** The side's upstream once it answered `initialize` (up now or restarting), else none. */
  get open(): Upstream | undefined {
    return this.#upstream ?? (this.#trying?.state === "up" ? this.#trying : undefined);
  }

  /** False once the server refused `initialize` (2026-07-28 only) or the side was stopped. */
  get possible(): boolean {
    return !this.#stopped && verdicts.get(sourceOf(this.#config)) !== "modern-only";
  }

  /** The side to serve a 2025 caller on, opened now if need be; none when there is none. */
  serving(): Promise<Upstream | undefined> | Upstream | undefined {
    if (this.#upstream) return this.#upstream;
    if (!this.possible) return undefined;
    return this.#opening ??= this.#open();
  }

  async #open(): Promise<Upstream | undefined> {
    const side = this.#make();
    this.#trying = side;
    await side.start();
    this.#opening = undefined;
    this.#trying = undefined;
    if (this.#stopped) {
      await side.stop();
      return undefined;
    }
    if (side.state !== "up" || !side.holdsSession) {
      const why = side.state === "up" ? "it answered initialize without a session" : side.lastError;
      await side.stop();
      verdicts.set(sourceOf(this.#config), "modern-only");
      side.log.info("no 2025-11-25 session offered; 2025 callers stay on 2026-07-28", {
        error: why,
      });
      return undefined;
    }
    verdicts.set(sourceOf(this.#config), "both");
    this.#upstream = side;
    return side;
  }

  /** Stops the side with its owner (and one still opening). */
  async stop(): Promise<void> {
    this.#stopped = true;
    const open = this.#upstream;
    this.#upstream = undefined;
    await Promise.all([open?.stop(), this.#opening?.then((u) => u?.stop())]);
  }
}
