/**
 * The MRTR relay. A parked call (an upstream waiting for a modern client's input) lives in the
 * memory of the instance that runs it, and that instance writes its id in front of every
 * `requestState` it mints (`<instance>~<sealed>`). A retry the balancer sends elsewhere is
 * published, whole (headers and body), on the owner's Redis channel; the owner serves it through
 * its own front door (which verifies the seal) and publishes the buffered answer back.
 *
 * Never a hang: nobody subscribed (the owner is gone) or Redis unreachable → a clear JSON-RPC
 * error at once; while waiting, the owner's membership card is checked every second and its
 * expiry ends the wait with the same error. The client may then send the call again.
 */
import { GatewayError, toJsonRpcError } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";
import type { Membership } from "./membership.ts";
import type { RedisLink } from "./redis.ts";

/** Who made the request, as the front door's auth decided (trusted between instances). */
export type RelayIdentity = {
  readonly tokenName: string | null;
  readonly toolGlobs: readonly string[] | null;
  /** The profile endpoint the request came to: the owner serves it within that profile. */
  readonly profile?: string | null;
};

/** Serves one forwarded request on the owner. */
export type RelayServe = (request: Request, identity: RelayIdentity) => Promise<Response>;

interface Forwarded {
  readonly id: string;
  readonly from: string;
  readonly url: string;
  readonly headers: [string, string][];
  readonly body: string;
  readonly identity: RelayIdentity;
}

interface Answer {
  readonly id: string;
  readonly status: number;
  readonly headers: [string, string][];
  readonly body: string;
}

/** Options of {@link Relay}. */
export interface RelayOptions {
  link: RedisLink;
  prefix: string;
  self: string;
  membership: Membership;
  log: Logger;
  /** Longest a forwarded continuation may take (the owner's own limits usually end it first). */
  maxWaitMs: number;
}

const HOP_HEADERS = new Set(["host", "content-length", "connection", "transfer-encoding"]);
/**
 * Credentials never cross Redis: the owner serves a relayed request under the identity this
 * instance decided (which is all it needs), so anyone who can read the Redis channels learns no
 * bearer token, cookie or OAuth subject token from them.
 */
const CREDENTIAL_HEADERS = new Set(["authorization", "proxy-authorization", "cookie"]);

/** Both ends of the relay for one instance. */
export class Relay {
  readonly #o: RelayOptions;
  readonly #waiting = new Map<string, (answer: Answer) => void>();
  #serve: RelayServe | undefined;
  /** Continuations forwarded to another instance / served for one. */
  readonly counts = { forwarded: 0, served: 0, ownerGone: 0 };

  constructor(options: RelayOptions) {
    this.#o = options;
  }

  /** This instance's id: the prefix of every `requestState` it mints. */
  get owner(): string {
    return this.#o.self;
  }

  #channel(kind: "relay" | "reply", id: string): string {
    return `${this.#o.prefix}${kind}:${id}`;
  }

  /** Subscribes this instance's two channels. */
  async start(): Promise<void> {
    const sub = this.#o.link.subscriber;
    sub.on("message", (channel: string, message: string) => {
      if (channel === this.#channel("reply", this.#o.self)) this.#onAnswer(message);
      else if (channel === this.#channel("relay", this.#o.self)) void this.#onForwarded(message);
    });
    await sub.subscribe(this.#channel("relay", this.#o.self), this.#channel("reply", this.#o.self))
      .catch((err) => this.#o.link.failed(err));
  }

  /** Sets the owner side's server (the modern front door). */
  attach(serve: RelayServe): void {
    this.#serve = serve;
  }

  /**
   * Forwards `request` when it continues a call another instance owns; `null` when it does
   * not (it is then served here as usual).
   */
  async forward(request: Request, identity: RelayIdentity): Promise<Response | null> {
    if (request.method !== "POST" || request.headers.get("mcp-method") !== "tools/call") {
      return null;
    }
    const body = await request.clone().text();
    if (!body.includes('"requestState"')) return null;
    let parsed: { id?: unknown; params?: { requestState?: unknown } };
    try {
      parsed = JSON.parse(body);
    } catch {
      return null;
    }
    const state = parsed?.params?.requestState;
    if (typeof state !== "string") return null;
    const cut = state.indexOf("~");
    const owner = cut > 0 ? state.slice(0, cut) : "";
    if (!owner || owner === this.#o.self) return null;
    const rpcId = (parsed.id ?? null) as string | number | null;
    const gone = (why: string) => {
      this.counts.ownerGone++;
      return errorResponse(
        rpcId,
        new GatewayError(
          "UPSTREAM_UNAVAILABLE",
          `the gateway instance holding this call (${owner}) ${why}; ` +
            "send the call again without requestState",
        ),
      );
    };
    if (this.#o.link.degraded) return gone("cannot be reached (shared state store unreachable)");
    const message: Forwarded = {
      id: crypto.randomUUID(),
      from: this.#o.self,
      url: request.url,
      headers: [...request.headers].filter(([k]) =>
        !HOP_HEADERS.has(k) && !CREDENTIAL_HEADERS.has(k)
      ),
      body,
      // Only the fields the owner serves by: a request identity may also hold the presented
      // token itself (for `oauth: mode: exchange`), which must not leave this instance.
      identity: relayIdentity(identity),
    };
    const answered = new Promise<Answer>((resolve) => this.#waiting.set(message.id, resolve));
    try {
      const receivers = await this.#o.link.command.publish(
        this.#channel("relay", owner),
        JSON.stringify(message),
      );
      if (receivers === 0) return gone("is gone");
    } catch (err) {
      this.#o.link.failed(err);
      this.#waiting.delete(message.id);
      return gone("cannot be reached (shared state store unreachable)");
    }
    this.counts.forwarded++;
    const deadline = Date.now() + this.#o.maxWaitMs;
    try {
      for (;;) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const tick = new Promise<null>((r) => (timer = setTimeout(() => r(null), 1000)));
        const aborted = new Promise<null>((r) =>
          request.signal.addEventListener("abort", () => r(null), { once: true })
        );
        const answer = await Promise.race([answered, tick, aborted]);
        clearTimeout(timer);
        if (answer) {
          return new Response(answer.body, { status: answer.status, headers: answer.headers });
        }
        if (request.signal.aborted) return errorResponse(rpcId, new Error("client went away"));
        if (Date.now() > deadline) return gone("did not answer in time");
        if (!await this.#o.membership.alive(owner)) return gone("is gone");
      }
    } finally {
      this.#waiting.delete(message.id);
    }
  }

  #onAnswer(message: string): void {
    const answer = JSON.parse(message) as Answer;
    this.#waiting.get(answer.id)?.(answer);
  }

  async #onForwarded(message: string): Promise<void> {
    const f = JSON.parse(message) as Forwarded;
    let answer: Answer;
    try {
      if (!this.#serve) throw new GatewayError("UNSUPPORTED", "this instance has no modern door");
      this.counts.served++;
      const res = await this.#serve(
        new Request(f.url, { method: "POST", headers: f.headers, body: f.body }),
        f.identity,
      );
      answer = { id: f.id, status: res.status, headers: [...res.headers], body: await res.text() };
    } catch (err) {
      const res = errorResponse(null, err);
      answer = { id: f.id, status: res.status, headers: [...res.headers], body: await res.text() };
    }
    await this.#o.link.command.publish(this.#channel("reply", f.from), JSON.stringify(answer))
      .catch((err) => this.#o.log.warn("relay answer lost", { to: f.from, error: String(err) }));
  }

  /** Ends every forwarded wait (shutdown). */
  close(): void {
    this.#waiting.clear();
  }
}

function errorResponse(id: string | number | null, err: unknown): Response {
  return Response.json({ jsonrpc: "2.0", id, error: toJsonRpcError(err) });
}

/** The part of an identity a relayed request carries (see {@link RelayIdentity}). */
function relayIdentity(identity: RelayIdentity): RelayIdentity {
  const out: { -readonly [K in keyof RelayIdentity]: RelayIdentity[K] } = {
    tokenName: identity.tokenName,
    toolGlobs: identity.toolGlobs,
  };
  if (identity.profile !== undefined) out.profile = identity.profile;
  return out;
}
