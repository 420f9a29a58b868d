/**
 * One downstream session: an SDK `Server` whose handlers route through the {@link Gateway}.
 * Progress tokens are mapped per call, so each client sees only its own progress; a client's
 * cancellation aborts the upstream request, and a session that closes aborts all of its calls
 * (the SDK aborts every handler's signal on close). Resources, completions, logging and
 * server-to-client requests are passed through by `./passthrough/`.
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  RELATED_TASK_META_KEY,
  ResultSchema,
  type ServerCapabilities,
  type ServerRequest,
  type ServerResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { Gateway } from "../../gateway/mod.ts";
import { enterSessionCall } from "./enter.ts";
import { noteReleased } from "../../runtime/mod.ts";
import { getPrompt, listPrompts } from "../../gateway/operations.ts";
import { page } from "../../gateway/paging.ts";
import {
  type ClientConnection,
  rendersApps,
  type SessionLink,
} from "../../gateway/passthrough/mod.ts";
import { LazySchemaValidator } from "../../shared/schema-validator.ts";
import type { Caller } from "../../gateway/types.ts";
import { onWire } from "../../shared/errors.ts";
import { NAME, VERSION } from "../../version.ts";
import { installPassthrough } from "./install.ts";
import { callerOfRequest } from "./request-caller.ts";
import { watchLists } from "./rescope.ts";
import { registerTasks, tasksCapability } from "./tasks.ts";
import type { RawResults } from "./raw-results.ts";

/**
 * About what an open session holds (its server, transport and their maps and closures): what
 * its close gives the heap back, counted towards a compaction (`runtime/memory.ts`).
 */
const SESSION_BYTES = 32 * 1024;

/** What a 2025 session's server says it is. */
export const SERVER_INFO = { name: NAME, version: VERSION } as const;

/**
 * What a 2025 session's server offers, as it is now: resource subscriptions while some upstream
 * takes them, tasks while some upstream runs them (`tasks`: that capability, when known).
 */
export function sessionCapabilities(
  gateway: Gateway,
  tasks = tasksCapability(gateway),
): ServerCapabilities {
  return {
    tools: { listChanged: true },
    prompts: { listChanged: true },
    resources: {
      ...(gateway.passthrough.subscribable("legacy") ? { subscribe: true } : {}),
      listChanged: true,
    },
    logging: {},
    completions: {},
    ...(tasks ? { tasks } : {}),
  };
}

/** Options for {@link createSessionServer}. */
export interface SessionOptions {
  /** Items per page of the gateway's own lists. */
  pageSize?: number;
  /**
   * Whether the server tells its client of list changes (default: yes). A streamable session
   * watches them itself: its GET stream outlives its server (`./streamable-session.ts`).
   */
  listChanges?: boolean;
  /**
   * Where `tools/call` results that arrived as raw JSON are held for the transport, which writes
   * their answers from those bytes (`./raw-results.ts`); none by default.
   */
  rawResults?: RawResults;
}

/** One session's server, and how to let it go while the session stays open. */
export interface SessionServer {
  readonly server: Server;
  /** The server as its link reaches the client through it (see {@link clientConnection}). */
  readonly connection: ClientConnection;
  /**
   * Stops what the server listens to in the gateway (list changes, reloads) and unbinds it from
   * its link, without closing the session: a lean session lets its server go this way.
   */
  readonly release: () => void;
}

/**
 * Registers a new session with the core's pass-through state; its link is what the session owns
 * (client capabilities, log level, subscriptions, its own processes) whether or not it has a
 * server. `caller()` is the session's standing caller — what its stream is judged by (list
 * changes, log messages, resource updates) and what a request without its own caller is judged
 * as (see ./request-caller.ts); it is read per use (the session id arrives late), and its globs
 * should be the token's current ones (see `callerOf` in ../door.ts), so a reload re-scopes it.
 */
export function attachSession(gateway: Gateway, caller: () => Caller): SessionLink {
  const link = gateway.passthrough.attach(caller);
  // Resources, completions and log messages follow the servers the token reaches now.
  link.sees = (name) => gateway.sees(caller(), name);
  return link;
}

/**
 * A server for the session of `link` (see {@link attachSession}), bound to it. Its close ends
 * the session's pass-through state; its {@link SessionServer.release} does not.
 */
export function createSessionServer(
  gateway: Gateway,
  link: SessionLink,
  options: SessionOptions = {},
): SessionServer {
  const tasks = tasksCapability(gateway);
  const server = new Server(
    SERVER_INFO,
    {
      capabilities: sessionCapabilities(gateway, tasks),
      // Not an Ajv instance per session (the SDK's default, ~8 ms of CPU per `initialize`):
      // the shared one, compiling the schema of an elicitation answer when one is checked.
      jsonSchemaValidator: new LazySchemaValidator(),
    },
  );

  const hub = gateway.passthrough;
  const caller = link.caller;
  const connection = clientConnection(server);
  link.bind(connection);
  server.oninitialized = () => hub.touch(link);

  // Each request is judged by the token that presented it (./request-caller.ts).
  const requestCaller = (extra: { authInfo?: AuthInfo | undefined }) =>
    callerOfRequest(extra, caller);

  server.setRequestHandler(ListToolsRequestSchema, (req, extra) =>
    onWire(() => {
      const { items, nextCursor } = page(
        gateway.listTools(requestCaller(extra), undefined, rendersApps(link.capabilities)),
        req.params?.cursor,
        options.pageSize,
      );
      return nextCursor ? { tools: items, nextCursor } : { tools: items };
    }));

  server.setRequestHandler(CallToolRequestSchema, (req, extra) =>
    // A task-augmented call answers CreateTaskResult, which the SDK's tools/call result admits.
    onWire<ServerResult>(() => {
      hub.touch(link);
      if (req.params.task) {
        return gateway.createTask(req.params, enterSessionCall(link, req.params._meta, extra));
      }
      const callOptions = enterSessionCall(
        link,
        req.params._meta,
        extra,
        (params) =>
          void extra.sendNotification({ method: "notifications/progress", params }).catch(
            () => {},
          ),
      );
      const called = gateway.callTool(req.params.name, req.params.arguments, callOptions);
      return options.rawResults && !relatedToTask(req.params._meta)
        ? options.rawResults.keepOn(called, extra.requestId, extra.signal)
        : called;
    }));

  server.setRequestHandler(ListPromptsRequestSchema, (req, extra) =>
    onWire(() => {
      const { items, nextCursor } = page(
        listPrompts(gateway, requestCaller(extra)),
        req.params?.cursor,
        options.pageSize,
      );
      return nextCursor ? { prompts: items, nextCursor } : { prompts: items };
    }));

  server.setRequestHandler(
    GetPromptRequestSchema,
    (req, extra) =>
      onWire(() => getPrompt(gateway, req.params, enterSessionCall(link, req.params._meta, extra))),
  );

  installPassthrough(server, gateway, link, options.pageSize);
  if (tasks) registerTasks(server, gateway, link);

  // Told only of changes to what this session's token is shown.
  const unwatch = options.listChanges === false
    ? undefined
    : watchLists(gateway, link, caller, (method) =>
      void server.notification({ method }).catch(() => {}));
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    unwatch?.();
    if (link.connection === connection) link.bind(undefined);
  };
  const prevClose = server.onclose;
  server.onclose = () => {
    release();
    hub.detach(link);
    prevClose?.();
    noteReleased(SESSION_BYTES);
  };
  return { server, connection, release };
}

/**
 * `server` as a session's link reaches its client through it. The SDK's server correlates each
 * request with the client's answer, times it out and checks the answer is a result; the link
 * has already checked the client declared it can answer.
 */
function clientConnection(server: Server): ClientConnection {
  return {
    request: (req, options) =>
      server.request(
        // Any of the three server-to-client requests; the client's answer is checked by the SDK.
        req as ServerRequest,
        ResultSchema,
        {
          signal: options.signal,
          timeout: options.timeoutMs,
          ...(options.relatedRequestId === undefined
            ? {}
            : { relatedRequestId: options.relatedRequestId }),
        },
      ),
    notify: (method, params, relatedRequestId) =>
      void server.notification(
        { method, params },
        relatedRequestId === undefined ? undefined : { relatedRequestId },
      ).catch(() => {}),
    capabilities: () => server.getClientCapabilities(),
    clientInfo: () => server.getClientVersion(),
  };
}

/**
 * True when a request's `_meta` ties it to a task: its answer goes to the task's message queue,
 * not straight to the transport, so a raw result held for it would wait for a send by its id.
 */
function relatedToTask(meta: Record<string, unknown> | undefined): boolean {
  return meta?.[RELATED_TASK_META_KEY] !== undefined;
}
