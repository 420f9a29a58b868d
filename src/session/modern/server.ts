/**
 * The 2026-07-28 front door's server: one SDK v2 `Server` per HTTP request (the revision is
 * stateless), whose handlers route through the gateway core exactly as a 2025 session's do —
 * the same tool globs, the same catalog, the same call path. The SDK answers `server/discover`,
 * checks the per-request `_meta` envelope and the `Mcp-Method` / `Mcp-Name` headers against
 * the body, stamps `resultType`, and adds the cache fields from `cacheHints`. `tools/call`,
 * `prompts/get` and `resources/read` may answer `input_required` (see `./continuations.ts`).
 * A plain `tools/call` usually skips this server altogether (./fast-call.ts); both judge the
 * call as the caller the door made for the request (`callerOf` of ../door.ts) and build its
 * options with the core's `enterCall`.
 */
import { type AuthInfo, CLIENT_CAPABILITIES_META_KEY, Server } from "@modelcontextprotocol/server";
import { enterCall, type Gateway, LOCAL_CALLER } from "../../gateway/mod.ts";
import type { Caller } from "../../gateway/types.ts";
import {
  complete,
  getPrompt,
  listPrompts,
  listResources,
  listTemplates,
  readResource,
} from "../../gateway/operations.ts";
import { page } from "../../gateway/paging.ts";
import { rendersApps } from "../../gateway/passthrough/mod.ts";
import { NAME, VERSION } from "../../version.ts";
import type { Continuations } from "./continuations.ts";
import { CallerAuth } from "../caller-auth.ts";
import { flowRequest } from "./flow-request.ts";
import { handle } from "./handle.ts";
import { registerModernTasks } from "./tasks.ts";

/** The caller of a request: its `authInfo`'s (the door always makes one; else no token). */
function callerOfAuth(authInfo: AuthInfo | undefined): Caller {
  return CallerAuth.callerOf(authInfo) ?? LOCAL_CALLER;
}

/** Options of {@link createModernServer}. */
export interface ModernServerOptions {
  pageSize?: number;
  /** Cache lifetime of list results and `server/discover`, from how often the catalog changes. */
  ttlMs: () => number;
  continuations: Continuations;
}

/** Builds the per-request server. */
export function createModernServer(gateway: Gateway, options: ModernServerOptions): Server {
  const ttlMs = options.ttlMs();
  const hint = { ttlMs, cacheScope: "private" as const };
  const server = new Server({ name: NAME, version: VERSION }, {
    capabilities: {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: {
        ...(gateway.passthrough.subscribable("modern") ? { subscribe: true } : {}),
        listChanged: true,
      },
      completions: {},
    },
    cacheHints: {
      "tools/list": hint,
      "prompts/list": hint,
      "resources/list": hint,
      "resources/templates/list": hint,
      "server/discover": hint,
    },
    requestState: { verify: (state, ctx) => options.continuations.verify(state, ctx) },
  });
  const size = options.pageSize;
  const tasks = registerModernTasks(server, gateway, (ctx) => callerOfAuth(ctx.http?.authInfo));

  handle(server, "tools/list", (req, ctx) => {
    const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    const apps = rendersApps(envelope?.[CLIENT_CAPABILITIES_META_KEY]);
    const tools = gateway.listTools(callerOfAuth(ctx.http?.authInfo), undefined, apps);
    const { items, nextCursor } = page(tools, req.params?.cursor, size);
    return nextCursor ? { tools: items, nextCursor } : { tools: items };
  });

  handle(server, "tools/call", (req, ctx) => {
    const ready = CallerAuth.readyOf(ctx.http?.authInfo);
    if (ready !== undefined) return ready;
    const caller = callerOfAuth(ctx.http?.authInfo);
    // Progress is relayed by the continuation, on whichever request of the flow is current.
    const call = enterCall(caller, { meta: req.params._meta, signal: ctx.mcpReq.signal });
    return options.continuations.call(
      flowRequest(ctx),
      call,
      (withClient) => tasks.callTool(req.params, ctx, withClient),
    );
  });

  handle(server, "prompts/list", (req, ctx) => {
    const prompts = listPrompts(gateway, callerOfAuth(ctx.http?.authInfo));
    const { items, nextCursor } = page(prompts, req.params?.cursor, size);
    return nextCursor ? { prompts: items, nextCursor } : { prompts: items };
  });

  handle(server, "prompts/get", (req, ctx) => {
    const caller = callerOfAuth(ctx.http?.authInfo);
    return options.continuations.call(
      flowRequest(ctx),
      enterCall(caller, { meta: req.params._meta, signal: ctx.mcpReq.signal }),
      (call) => getPrompt(gateway, req.params, call),
    );
  });

  handle(server, "resources/list", (req, ctx) => {
    const visible = listResources(gateway, callerOfAuth(ctx.http?.authInfo));
    const { items, nextCursor } = page(visible, req.params?.cursor, size);
    return nextCursor ? { resources: items, nextCursor } : { resources: items };
  });

  handle(server, "resources/templates/list", (req, ctx) => {
    const visible = listTemplates(gateway, callerOfAuth(ctx.http?.authInfo));
    const { items, nextCursor } = page(visible, req.params?.cursor, size);
    return nextCursor ? { resourceTemplates: items, nextCursor } : { resourceTemplates: items };
  });

  handle(server, "resources/read", (req, ctx) =>
    options.continuations.call(
      flowRequest(ctx),
      enterCall(callerOfAuth(ctx.http?.authInfo), {
        meta: req.params._meta,
        signal: ctx.mcpReq.signal,
      }),
      (call) => readResource(gateway, req.params, call),
    ));

  handle(
    server,
    "completion/complete",
    (req, ctx) =>
      complete(
        gateway,
        req.params,
        enterCall(callerOfAuth(ctx.http?.authInfo), { signal: ctx.mcpReq.signal }),
      ),
  );

  return server;
}
