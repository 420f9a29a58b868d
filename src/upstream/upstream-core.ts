/**
 * @module The state one upstream's parts share, and what it says about itself: its connection,
 * where it is in its life, its catalog, and the failure record (the last error, how its process
 * exited and what it wrote to stderr, the restart policy's count) read by the status getters,
 * `/readyz` and the error a call gets while it is down.
 *
 * Why this seam: `Upstream` (upstream.ts, the public face and the request path) and its
 * `Lifecycle` (lifecycle.ts, connect, restart and backoff) read and write the same few fields.
 * They live here in one plain object both hold, rather than as `#private` fields of one class
 * that grew past a room's size. The object is internal to `upstream/` (not exported from
 * mod.ts): only an `Upstream` creates one, and hands it to no one but its own lifecycle.
 */
import type { ServerConfig } from "../config/mod.ts";
import type { GatewayError } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";
import type { UpstreamCredential } from "./oauth/mod.ts";
import { Backoff } from "./backoff.ts";
import type { Connection } from "./connect.ts";
import { ExitRecord } from "./exit-record.ts";
import { unavailable } from "./call-errors.ts";
import { lastWords } from "./down-reason.ts";
import { statusText } from "./status.ts";
import { StreamCalls } from "./stream-calls.ts";
import type { Upstream } from "./upstream.ts";
import {
  EMPTY_CATALOG,
  type UpstreamCatalog,
  type UpstreamHooks,
  type UpstreamState,
} from "./types.ts";

/** The mutable state of one upstream, shared by its public face and its lifecycle. */
export class UpstreamCore {
  /** The upstream this state belongs to: what the pool's hooks are called with. */
  readonly owner: Upstream;
  readonly config: ServerConfig;
  readonly log: Logger;
  readonly hooks: UpstreamHooks;
  /** Its OAuth credential (`servers.<name>.oauth`), or `undefined`. */
  readonly credential: UpstreamCredential | undefined;
  conn: Connection | undefined;
  state: UpstreamState;
  catalog: UpstreamCatalog = EMPTY_CATALOG;
  /** Why it is down (or why it last went down). */
  lastError: string | null = null;
  readonly backoff: Backoff;
  upSince = 0;
  /** When the current start attempt began (epoch ms). */
  startedAt = 0;
  kind: Connection["kind"] | null = null;
  era: Connection["era"] | null = null;
  /** The stdio process of the latest attempt: its stderr and exit explain a failure. */
  readonly exits = new ExitRecord();
  /** Which call's stream carried each server request, on a 2025 streamable HTTP connection. */
  readonly streams: StreamCalls | undefined;

  constructor(
    owner: Upstream,
    config: ServerConfig,
    log: Logger,
    hooks: UpstreamHooks,
    credential: UpstreamCredential | undefined,
  ) {
    this.owner = owner;
    this.config = config;
    this.log = log;
    this.hooks = hooks;
    this.credential = credential;
    this.state = config.enabled ? "starting" : "disabled";
    this.backoff = new Backoff(config.restart);
    this.streams = config.kind === "http" && config.transport !== "sse" &&
        config.protocol !== "modern"
      ? new StreamCalls()
      : undefined;
  }

  /** The error a call gets while this upstream is not up. */
  unavailable(): GatewayError {
    if (this.state === "needs-login" && this.credential) return this.credential.loginError();
    return unavailable(this.config.name, this.status(), { lastError: this.lastError });
  }

  /**
   * Its state in words, for errors and `/readyz`: `is down: exited with code 1: …; next
   * restart in 3s`, `…; gave up after 5 restarts`, `is down: …; restarting now`, `is starting:
   * not up after 1.2s`, `is up`.
   */
  status(): string {
    const b = this.backoff;
    return statusText({
      state: this.state,
      lastError: this.lastError,
      gaveUp: b.gaveUp,
      failures: b.failures,
      nextRetryAt: b.nextRetryAt,
      ...(this.state === "starting" && this.startedAt > 0
        ? { startedAt: this.startedAt, ...said(this.exits.stderrTail) }
        : {}),
    });
  }
}

/** `{ said }` with the last words of a stderr tail, or nothing when it says none. */
function said(tail: readonly string[]): { said?: string } {
  const words = lastWords(tail);
  return words === undefined ? {} : { said: words };
}
