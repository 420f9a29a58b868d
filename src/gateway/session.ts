/**
 * One downstream session: an SDK `Server` whose handlers route through the {@link Gateway}.
 * Progress tokens are mapped per call, so each client sees only its own progress; a client's
 * cancellation aborts the upstream request, and a session that closes aborts all of its calls
 * (the SDK aborts every handler's signal on close). Resources, completions, logging and
 * server-to-client requests are passed through by `./passthrough/`.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { onWire } from "../shared/errors.ts";
import { NAME, VERSION } from "../version.ts";
import type { Gateway } from "./gateway.ts";
import { getPrompt, listPrompts } from "./operations.ts";
import { page } from "./paging.ts";
import type { SessionLink } from "./passthrough/link.ts";
import { installPassthrough, registerTasks, tasksCapability } from "./passthrough/mod.ts";
import { watchScope } from "./rescope.ts";
import type { Caller, CallOptions } from "./types.ts";

/** Options for {@link createSessionServer}. */
export interface SessionOptions {
  /** Items per page of the gateway's own lists. */
  pageSize?: number;
}

/** Hooks for rooms that extend a session (pass-through of resources, logging, sampling...). */
export type SessionExtension = (server: Server, gateway: Gateway, caller: () => Caller) => void;

const extensions: SessionExtension[] = [];

/** Registers an extension applied to every new session server. */
export function extendSessions(ext: SessionExtension): void {
  extensions.push(ext);
}

const links = new WeakMap<Server, SessionLink>();

/** The pass-through link of a session server (the HTTP fast path routes calls with it). */
export function sessionLinkOf(server: Server): SessionLink | undefined {
  return links.get(server);
}

/**
 * A server for one session; `caller()` is read per request (the session id arrives late), and
 * its globs should be the token's current ones (see `liveCaller`), so a reload re-scopes it.
 */
export function createSessionServer(
  gateway: Gateway,
  caller: () => Caller,
  options: SessionOptions = {},
): Server {
  const tasks = tasksCapability(gateway);
  const server = new Server(
    { name: NAME, version: VERSION },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        logging: {},
        completions: {},
        ...(tasks ? { tasks } : {}),
      },
    },
  );

  const hub = gateway.passthrough;
  const link = hub.attach(server, caller);
  // Resources, completions and log messages follow the servers the token reaches now.
  link.sees = (name) => gateway.sees(caller(), name);
  links.set(server, link);
  server.oninitialized = () => hub.touch(link);

  server.setRequestHandler(ListToolsRequestSchema, (req) =>
    onWire(() => {
      const { items, nextCursor } = page(
        gateway.listTools(caller()),
        req.params?.cursor,
        options.pageSize,
      );
      return nextCursor ? { tools: items, nextCursor } : { tools: items };
    }));

  server.setRequestHandler(CallToolRequestSchema, (req, extra) =>
    onWire(() => {
      const { progressToken, ...meta } = req.params._meta ?? {};
      hub.touch(link);
      if (req.params.task) {
        return gateway.tasks.create(req.params, caller(), {
          signal: extra.signal,
          session: link,
          requestId: extra.requestId,
        }) as never;
      }
      const callOptions: CallOptions = {
        signal: extra.signal,
        session: link,
        requestId: extra.requestId,
      };
      if (Object.keys(meta).length > 0) callOptions.meta = meta;
      if (progressToken !== undefined) {
        callOptions.onprogress = (p) => {
          void extra.sendNotification({
            method: "notifications/progress",
            params: { ...p, progressToken },
          }).catch(() => {});
        };
      }
      return gateway.callTool(req.params.name, req.params.arguments, caller(), callOptions);
    }));

  server.setRequestHandler(ListPromptsRequestSchema, (req) =>
    onWire(() => {
      const { items, nextCursor } = page(
        listPrompts(gateway, caller()),
        req.params?.cursor,
        options.pageSize,
      );
      return nextCursor ? { prompts: items, nextCursor } : { prompts: items };
    }));

  server.setRequestHandler(
    GetPromptRequestSchema,
    (req, extra) =>
      onWire(() =>
        getPrompt(gateway, caller(), req.params, {
          signal: extra.signal,
          session: link,
          requestId: extra.requestId,
        })
      ),
  );

  installPassthrough(server, gateway, link, options.pageSize);
  if (tasks) registerTasks(server, gateway, link);
  for (const ext of extensions) ext(server, gateway, caller);

  const unsubscribe = gateway.subscribe({
    toolsChanged: () => void server.sendToolListChanged().catch(() => {}),
    promptsChanged: () => void server.sendPromptListChanged().catch(() => {}),
    resourcesChanged: () => void server.sendResourceListChanged().catch(() => {}),
  });
  const unwatch = watchScope(server, gateway, link, caller);
  const prevClose = server.onclose;
  server.onclose = () => {
    unsubscribe();
    unwatch();
    hub.detach(link);
    prevClose?.();
  };
  return server;
}
