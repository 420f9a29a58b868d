/**
 * One downstream session as pass-through sees it: the connection that reaches its client, what
 * the client declared, its logging level, its resource subscriptions and when it last did
 * something. It is also the key of the session's own processes of session-isolated servers.
 * Everything a session owns lives here, not in its connection: a lean 2025 session has none at
 * all (`src/session/legacy/streamable-session.ts`) and builds one when it needs it. The
 * connection is the 2025 door's SDK server (`src/session/legacy/server.ts`), which the core knows
 * only as a {@link ClientConnection}.
 */
import type {
  ClientCapabilities,
  Implementation,
  JSONRPCNotification,
  LoggingLevel,
  ProtocolRequest as Request,
} from "../../shared/protocol.ts";
import { GatewayError } from "../../shared/errors.ts";
import type { Caller, ChannelRequestOptions, ClientChannel } from "../types.ts";
import { missingCapability } from "./capabilities.ts";

/**
 * Whoever holds resource subscriptions through the hub: a 2025 session, or the 2026-07-28
 * door's `subscriptions/listen` streams as one.
 */
export interface ResourceSubscriber {
  /** The era it speaks: a 2025 session's subscriptions go to a server's 2025 side if it has one. */
  readonly era: "legacy" | "modern";
  /** Upstream subscription key (opaque to it) → the URI the client subscribed with. */
  readonly subscriptions: Map<string, string>;
  /** Delivers `notifications/resources/updated` (`uri` already the one the client knows). */
  resourceUpdated(params: { uri: string; [key: string]: unknown }): void;
  /** Whether its token reaches `server`; absent: admitted per URI by its front door. */
  sees?(server: string): boolean;
}

/**
 * How a session reaches its client: what its link asks of the door's server (the SDK's, in the
 * 2025 door), so the core sends requests and notifications without knowing whose server it is.
 */
export interface ClientConnection {
  /**
   * Sends a server-to-client request and answers the client's result (rejects when the client
   * answers an error, the request times out or `options.signal` aborts it).
   */
  request(req: Request, options: ChannelRequestOptions): Promise<unknown>;
  /**
   * Sends a notification, on the stream of `relatedRequestId` when given; one that cannot be
   * sent is dropped (a notification has no one to tell).
   */
  notify(method: string, params: Record<string, unknown>, relatedRequestId?: string | number): void;
  /** What the client declared at `initialize`, once it has. */
  capabilities(): ClientCapabilities | undefined;
  /** What the client said of itself at `initialize`, once it has. */
  clientInfo(): Implementation | undefined;
}

/**
 * A session that can be lean: without a connection (an SDK server) while it is idle (the 2025
 * door's streamable HTTP sessions, `src/session/legacy/streamable-session.ts`). Its link asks it
 * for one when a request to its client needs one.
 */
export interface LeanSession {
  /** Builds the session's connection (bound to its link) if it has none; throws once it closed. */
  wakeConnection(): ClientConnection;
  /** Writes `message` into the answer of fast-path request `id`; false when there is none. */
  routeRelated(id: string | number, message: JSONRPCNotification): boolean;
  /**
   * Sends `message`, related to no request, on the session's GET stream (kept for a resumed
   * stream), connection or not; dropped when the client never opened one.
   */
  sendOnStream(message: JSONRPCNotification): void;
  /** Its link has no request to the client left unanswered: the connection may not be needed. */
  settled(): void;
}

/**
 * The session side of pass-through; the hub holds one per open downstream session. It is the
 * channel of every call the session makes: what an upstream asks during one goes out through
 * the session's connection, on the stream of the request it belongs to.
 */
export class SessionLink implements ResourceSubscriber, ClientChannel {
  readonly era = "legacy";
  readonly askable = true;
  /** It outlives its calls: its own processes stay until it closes. */
  readonly lasting = true;
  /** Who the session is (read per use: the HTTP session id arrives after the server exists). */
  readonly caller: () => Caller;
  /** Activity tick from the hub: larger is more recent. */
  active = 0;
  /** Level the client set with `logging/setLevel`; unset = every message. */
  level: LoggingLevel | undefined;
  /** Upstream subscription key (opaque to it) → the URI the client subscribed with. */
  readonly subscriptions = new Map<string, string>();
  /**
   * Whether the session's token reaches `server` (its resources, completions and log messages);
   * the session's door sets it from the token's current globs. Unset: every server.
   */
  sees: (server: string) => boolean = SEES_ALL;
  #closed = false;
  #touch: (link: SessionLink) => void;
  #connection: ClientConnection | undefined;
  #client: { capabilities: ClientCapabilities; clientInfo: Implementation } | undefined;
  #asking = 0;
  /** Set by a session that can be lean: see {@link SessionLink.leanAs}. */
  #lean: LeanSession | undefined;

  /** `touch`: marks the session the most recently active one (it is asked something). */
  constructor(caller: () => Caller, touch: (link: SessionLink) => void = () => {}) {
    this.caller = caller;
    this.#touch = touch;
  }

  /**
   * The session's connection when it has one: server-to-client requests and notifications go
   * through it. A lean session has none.
   */
  get connection(): ClientConnection | undefined {
    return this.#connection;
  }

  /** Binds the session's connection (`undefined`: the session let it go and is lean again). */
  bind(connection: ClientConnection | undefined): void {
    this.#connection = connection;
  }

  /** Makes this the link of a session that can be lean (see {@link LeanSession}). */
  leanAs(session: LeanSession): void {
    this.#lean = session;
  }

  /** Records what the client declared at `initialize` (a lean session has no connection to ask). */
  introduce(capabilities: ClientCapabilities, clientInfo: Implementation): void {
    this.#client = { capabilities, clientInfo };
  }

  /** What the client said of itself at `initialize`, when {@link introduce}d. */
  get clientInfo(): Implementation | undefined {
    return this.#client?.clientInfo ?? this.#connection?.clientInfo();
  }

  /** Requests to the client still unanswered: a session asking something cannot be lean. */
  get asking(): number {
    return this.#asking;
  }

  /**
   * Asks the session's client, after checking it declared it can answer: the connection would
   * send the request regardless, and the client would fail it less clearly.
   */
  async request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: ChannelRequestOptions,
  ): Promise<unknown> {
    const req: Request = { method, ...(params ? { params } : {}) };
    const missing = missingCapability(this.capabilities, req);
    if (missing) {
      throw new GatewayError(
        "UNSUPPORTED",
        `the client of the calling session did not declare ${missing}, so it cannot answer ` +
          `${method} from server "${options.server}"`,
        { data: { server: options.server, method, capability: missing } },
      );
    }
    this.#touch(this);
    // A closed session has no connection to ask; a lean one builds its own.
    const connection = this.#connection ??
      (this.#closed ? undefined : this.#lean?.wakeConnection());
    if (!connection) {
      throw new GatewayError(
        "UNSUPPORTED",
        `the calling session has closed, so it cannot answer ${method} from server ` +
          `"${options.server}"`,
        { data: { server: options.server, method } },
      );
    }
    this.#asking++;
    try {
      return await connection.request({ method, params: sessionParams(req) }, options);
    } finally {
      if (--this.#asking === 0) this.#lean?.settled();
    }
  }

  notify(
    method: string,
    params: Record<string, unknown>,
    relatedRequestId?: string | number,
  ): void {
    if (this.#closed) return;
    const lean = this.#lean;
    if (lean && relatedRequestId === undefined) {
      lean.sendOnStream({ method, params, jsonrpc: "2.0" });
      return;
    }
    const connection = this.#connection;
    if (connection) {
      connection.notify(method, params, relatedRequestId);
      return;
    }
    // Lean, a message related to a request: the requests a lean session has in flight are its
    // fast-path calls, whose answers it goes into (laid out as its server writes it).
    if (relatedRequestId !== undefined) {
      lean?.routeRelated(relatedRequestId, { method, params, jsonrpc: "2.0" });
    }
  }

  /** What the client declared at `initialize` (empty before it). */
  get capabilities(): ClientCapabilities {
    return this.#client?.capabilities ?? this.#connection?.capabilities() ?? {};
  }

  /** True once the session has closed. */
  get closed(): boolean {
    return this.#closed;
  }

  resourceUpdated(params: { uri: string; [key: string]: unknown }): void {
    this.notify("notifications/resources/updated", params);
  }

  /** Marks the session closed; the hub stops routing to it. */
  close(): void {
    this.#closed = true;
  }
}

/** Every server: one function for every link that is not told otherwise. */
const SEES_ALL = () => true;

/**
 * `req`'s params as a 2025 session reads them. A 2026-07-28 URL elicitation names no
 * `elicitationId` (its input key names it), which 2025-11-25 requires: one is made up.
 */
function sessionParams(req: Request): Request["params"] {
  const params = req.params;
  if (req.method !== "elicitation/create" || params?.mode !== "url") return params;
  if (typeof params.elicitationId === "string") return params;
  return { ...params, elicitationId: crypto.randomUUID() };
}
