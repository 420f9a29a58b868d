/**
 * One streamable HTTP session, lean while it is idle. An SDK `Server` with its handler table,
 * its transport and their maps and closures is most of what an open session used to hold, yet
 * an idle session needs none of it: `tools/call` and `tools/list` are answered without them
 * (`./fast-call.ts`, `./fast-list.ts`), its GET stream is written without them
 * (`./get-stream.ts`), and what the session owns — the client's capabilities, its log level,
 * subscriptions and processes — lives on its link. So the SDK side is built when a request needs
 * it (anything the fast paths do not answer, a DELETE, a request to the client; never to open
 * it: `./fast-open.ts`) and let go again once it holds nothing:
 * - no request in flight on it and no request to the client unanswered;
 * - no resource subscription and no task of the session's running;
 * - no stream the SDK's transport serves (a POST answer's stream resumed with `Last-Event-ID`).
 * An open GET stream holds no server: what is sent on it relates to no request (notifications,
 * requests to the client), so the session writes it itself, and once its client opened one,
 * what it sends with no stream open is kept for a resumed stream, server or not. A session
 * whose client never opened one has no stream the server could write to but its calls'
 * answers, so what it would send unrelated to those goes nowhere (see `SessionLink.notify`).
 * A rebuilt server and transport take up the session where `initialize` left it: the same id,
 * initialized, with the client's capabilities and info as it declared them.
 */
import {
  type HandleRequestOptions,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type {
  ClientCapabilities,
  Implementation,
  JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import { noteReleased } from "../../runtime/mod.ts";
import type { ClientConnection, LeanSession, SessionLink } from "../../gateway/passthrough/mod.ts";
import type { StreamGuardOptions } from "../../shared/stream-guard.ts";
import type { RequestIdentity } from "../door.ts";
import { type Activity, newActivity, trackStream } from "./activity.ts";
import { FastCalls } from "./fast-call.ts";
import { GetStream } from "./get-stream.ts";
import { watchLists } from "./rescope.ts";
import { createSessionServer, type SessionServer } from "./server.ts";
import { sessionLink, type SessionTable } from "./session-table.ts";
import { SessionTransport } from "./session-transport.ts";

/** About what a lean session's close gives the heap back (`runtime/memory.ts`). */
const LEAN_SESSION_BYTES = 2 * 1024;

/** The SDK side of a session while it is built. */
interface Built extends SessionServer {
  readonly transport: WebStandardStreamableHTTPServerTransport;
}

/**
 * What the SDK's transport and server keep of an `initialize` they answered, set on a rebuilt
 * pair that answers none. The SDK has no public way to take up a session it did not open; these
 * fields are what its `initialize` handling sets (the transport's session check reads the first
 * two, the server's capability checks and `getClientVersion` the last two).
 */
interface TakenUp {
  transport: { sessionId?: string; _initialized: boolean };
  server: { _clientCapabilities?: ClientCapabilities; _clientVersion?: Implementation };
}

/** See the module comment. */
export class StreamableSession implements LeanSession {
  readonly kind = "streamable-http";
  readonly id: string = crypto.randomUUID();
  readonly link: SessionLink;
  readonly tokenName: string | null;
  /** The profile whose endpoint opened it; its requests must come to the same endpoint. */
  readonly profile: string | null;
  /** Who last presented a request on the session: its standing caller follows it. */
  readonly standing: { who: RequestIdentity };
  /** Requests in flight and open streams; a session is never idle while any remain. */
  readonly activity: Activity = newActivity();
  /** `tools/call` requests answered on the fast path. */
  readonly fast: FastCalls = new FastCalls();
  readonly #table: SessionTable;
  /** The owner its events are stored under (`./event-store.ts`). */
  readonly #owner: string = crypto.randomUUID();
  #built: Built | undefined;
  /** SDK requests (`handleRequest`) under way. */
  #entering = 0;
  /** Its GET stream, once its client opened one. */
  #stream: GetStream | undefined;
  /** Streams the SDK's transport serves (resumed POST answer streams), still open. */
  #sdkStreams = 0;
  /** Stops watching its lists; set while it has a server or a GET stream (see `#watch`). */
  #unwatch: (() => void) | undefined;
  #opened = false;
  #ended = false;

  constructor(table: SessionTable, who: RequestIdentity) {
    this.#table = table;
    this.tokenName = who.tokenName;
    this.profile = who.profile ?? null;
    this.standing = { who };
    this.link = sessionLink(table, this.id, this.standing);
    this.link.leanAs(this);
  }

  /** Whether the SDK transport took its `initialize` and gave it its id. */
  get opened(): boolean {
    return this.#opened;
  }

  /** Whether the SDK side is built now (tests, the bench). */
  get built(): boolean {
    return this.#built !== undefined;
  }

  /**
   * Hands `req` to the session's SDK transport (built if the session is lean): an `initialize`
   * that opens the session, or a request on it the fast paths do not answer.
   */
  async handle(req: Request, options: HandleRequestOptions): Promise<Response> {
    const { transport } = this.#wake();
    this.#entering++;
    try {
      return await transport.handleRequest(req, options);
    } finally {
      this.#entering--;
      this.#settle();
    }
  }

  /**
   * Answers a GET: the session's own event stream (`./get-stream.ts`), counted as activity and
   * guarded as `guard` says while it is open, or the refusal. A resume of a POST answer's
   * stream is the SDK transport's, and holds the server while it is open.
   */
  async openStream(
    req: Request,
    options: HandleRequestOptions,
    guard: Omit<StreamGuardOptions, "onEnd">,
  ): Promise<Response> {
    const stream = this.#stream ?? new GetStream(this.#table.events.scoped(this.#owner), this.id);
    const own = await stream.open(req);
    if (own) {
      if (!own.ok) return own;
      if (!this.#stream && !this.#ended) {
        this.#stream = stream;
        this.#watch();
      }
      // The stream's writer asks its guard before making events the guard would drop.
      const pressure = stream.pressure;
      return trackStream(this.activity, own, pressure ? { ...guard, pressure } : guard);
    }
    this.#sdkStreams++;
    const response = await this.handle(req, options).catch((err) => {
      this.#sdkStreams--;
      throw err;
    });
    return trackStream(this.activity, response, guard, () => {
      this.#sdkStreams--;
      this.#settle();
    });
  }

  sendOnStream(message: JSONRPCMessage): void {
    this.#stream?.send(message);
  }

  wakeConnection(): ClientConnection {
    return this.#wake().connection;
  }

  routeRelated(id: string | number, message: JSONRPCMessage): boolean {
    return this.fast.route(id, message);
  }

  settled(): void {
    this.#settle();
  }

  /** Records the client's `initialize` params: what a rebuilt server is told it declared. */
  introduce(params: { capabilities: ClientCapabilities; clientInfo: Implementation }): void {
    this.link.introduce(params.capabilities, params.clientInfo);
  }

  /** Opens the session without a server: its `initialize` was answered on the fast path. */
  openLean(): void {
    if (!this.#opened && !this.#built) this.#open();
  }

  /** Ends the session: its server closes if it is built, else its lean state is let go. */
  async close(): Promise<void> {
    const built = this.#built;
    if (built) await built.server.close();
    else this.#end();
  }

  #wake(): Built {
    if (this.#built) return this.#built;
    if (this.#ended) throw new Error("Not connected: the session has closed");
    const table = this.#table;
    const { opts } = table;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => this.id,
      // Replay stays within this session: its events are stored under an owner of its own.
      eventStore: table.events.scoped(this.#owner),
      maxRequestBodySize: opts.maxBodyBytes,
      // Answers sent as event streams tell the client how long to wait before resuming a broken
      // one with GET and `Last-Event-ID` (the priming event's `retry`).
      ...(table.gateway.config.gateway.streamAnswers ? { retryInterval: RESUME_AFTER_MS } : {}),
      onsessioninitialized: () => this.#open(),
      onsessionclosed: () => void table.sessions.delete(this.id),
    });
    const pageSize = opts.pageSize;
    const made = createSessionServer(
      table.gateway,
      this.link,
      pageSize === undefined ? { listChanges: false } : { pageSize, listChanges: false },
    );
    this.#watch();
    const wire = new SessionTransport(
      transport,
      this.activity,
      this.fast.route,
      (message) => Promise.resolve(this.#stream?.send(message)),
    );
    wire.onclose = () => this.#end();
    wire.onanswered = () => this.#settle();
    if (this.#opened) {
      const taken = { transport, server: made.server } as unknown as TakenUp;
      taken.transport.sessionId = this.id;
      taken.transport._initialized = true;
      taken.server._clientCapabilities = this.link.capabilities;
      taken.server._clientVersion = this.link.clientInfo;
    }
    // Connected at once: the SDK wires the transport before its (immediate) start resolves.
    void made.server.connect(wire).catch(() => {});
    this.#built = { ...made, transport };
    return this.#built;
  }

  /** Lets the SDK side go when the session holds nothing of it (see the module comment). */
  #settle(): void {
    const built = this.#built;
    if (!built || !this.#opened || this.#ended || this.#entering > 0) return;
    const link = this.link;
    if (this.activity.pending.size > 0 || this.#sdkStreams > 0 || link.asking > 0) return;
    if (link.subscriptions.size > 0 || this.#table.gateway.tasks.runsFor(link)) return;
    this.#built = undefined;
    built.release();
    // Without a server or a stream, nothing could tell its client of a list change.
    if (!this.#stream) this.#stopWatching();
  }

  /**
   * Watches the session's lists (changes it can see, re-scoping reloads) while it has a server
   * (a re-scope drops its subscriptions) or a GET stream (its client is told): once for both.
   */
  #watch(): void {
    if (this.#unwatch || this.#ended) return;
    this.#unwatch = watchLists(
      this.#table.gateway,
      this.link,
      this.link.caller,
      (method) => this.sendOnStream({ method, jsonrpc: "2.0" }),
    );
  }

  #stopWatching(): void {
    this.#unwatch?.();
    this.#unwatch = undefined;
  }

  #open(): void {
    this.#opened = true;
    const { gateway, sessions } = this.#table;
    sessions.set(this.id, this);
    gateway.log.debug("session opened", {
      kind: "streamable-http",
      tokenName: this.tokenName,
      profile: this.profile,
    });
  }

  /** The session ended (its server closed, or it was closed lean): everything it held goes. */
  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.fast.abortAll();
    this.#stream?.close();
    this.#stopWatching();
    this.#table.events.forget(this.#owner);
    if (this.#table.sessions.get(this.id) === this) this.#table.sessions.delete(this.id);
    if (this.#built) return; // the server's own close detaches the link
    this.#table.gateway.passthrough.detach(this.link);
    noteReleased(LEAN_SESSION_BYTES);
  }
}

/** The streamable session `s`, if it is one. */
export function isStreamable(s: unknown): s is StreamableSession {
  return s instanceof StreamableSession;
}

/** How long a client waits before resuming a broken answer stream (`gateway.streamAnswers`). */
const RESUME_AFTER_MS = 1_000;
