/**
 * The gateway's phases as the HTTP surface sees them. The socket listens before upstreams are
 * connected, so `/healthz` answers at once and `/readyz` is 503 until the first start is done;
 * MCP requests arriving meanwhile wait for it. On shutdown the gateway drains: new requests get
 * 503, in-flight calls may finish until the drain timeout.
 */
import { RETRY_AFTER_S } from "../shared/errors.ts";

/** Where the gateway is in its life. */
export type Phase = "starting" | "ready" | "draining" | "stopped";

type Fetch = (request: Request) => Response | Promise<Response>;

const POLL_MS = 50;

/** Phase tracking, the request gate in front of the app, and the drain wait. */
export class Lifecycle {
  #phase: Phase = "starting";
  #app: Fetch | undefined;
  #ready: Promise<void>;
  #markReady!: () => void;
  #forced = false;

  constructor() {
    this.#ready = new Promise((resolve) => (this.#markReady = resolve));
  }

  /** The current phase. */
  get phase(): Phase {
    return this.#phase;
  }

  /** The first start is complete: `app` serves from now on. */
  ready(app: Fetch): void {
    this.#app = app;
    if (this.#phase === "starting") this.#phase = "ready";
    this.#markReady();
  }

  /**
   * Answers a request according to the phase; hand this to the HTTP server. Once ready it hands
   * the request straight to the app — no URL parse, no promise of its own: the path matters only
   * in the other phases.
   */
  handle(request: Request): Response | Promise<Response> {
    if (this.#phase === "ready") return this.#app!(request);
    return this.#outOfPhase(request);
  }

  async #outOfPhase(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (this.#phase === "starting") {
      if (path === "/healthz") return Response.json({ status: "ok" });
      if (path === "/readyz") return notReady("starting");
      await this.#ready;
    }
    if (this.#phase === "draining" || this.#phase === "stopped") {
      if (path === "/healthz") return Response.json({ status: "ok" });
      if (path === "/readyz") return notReady(this.#phase);
      return Response.json(
        { error: { code: "UNAVAILABLE", message: "the gateway is shutting down" } },
        { status: 503, headers: { "retry-after": String(RETRY_AFTER_S), connection: "close" } },
      );
    }
    return await this.#app!(request);
  }

  /**
   * Refuses new requests, then waits until `inFlight()` is 0, the timeout passes, or
   * {@link force} is called. Resolves true when everything finished in time.
   */
  async drain(inFlight: () => number, timeoutMs: number): Promise<boolean> {
    this.#phase = "draining";
    this.#markReady(); // requests held during start-up now get 503 instead of waiting forever
    const end = Date.now() + timeoutMs;
    while (inFlight() > 0) {
      if (this.#forced || Date.now() >= end) return false;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    return true;
  }

  /** Cuts a running drain short (a second signal). */
  force(): void {
    this.#forced = true;
  }

  /** Everything is closed. */
  stopped(): void {
    this.#phase = "stopped";
  }
}

function notReady(status: string): Response {
  const headers = { "retry-after": String(RETRY_AFTER_S) };
  return Response.json({ status: "not ready", reason: status }, { status: 503, headers });
}
