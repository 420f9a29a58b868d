/**
 * @module Which process serves a request for its caller, and the record of it in flight: the
 * server's shared process, the caller's own connection of a per-user server, or the client's
 * own process of an `isolation: session` server. Tool calls, task creations, `prompts/get`,
 * `resources/read` and completions all go through {@link serveOn} (`PassthroughHub.serve`).
 */
import { GatewayError } from "../../shared/errors.ts";
import type { Upstream, UpstreamPool } from "../../upstream/mod.ts";
import { authModeOf } from "../../upstream/oauth/mod.ts";
import type { CallContext, ClientChannel } from "../types.ts";
import { rendersApps } from "./app-uris.ts";
import type { CallsInFlight } from "./calls-in-flight.ts";

/**
 * Runs `fn` (handed `job`: what it needs of the request, so a hot caller's `fn` can be a
 * function made once rather than a closure per request) on the process that serves a request
 * to `shared` for whoever it is for, recorded
 * in `calls` as in flight on the server while it runs when a client is behind it (a 2025
 * session or a 2026-07-28 request flow), so the upstream's sampling, elicitation and roots
 * requests meanwhile reach that client. For a server with `isolation: session` the process is
 * the caller's own — a session's (started on its first call, stopped when the session closes)
 * or a request flow's (an MRTR flow is the revision's unit of a client's work: started for the
 * request, stopped when it ends); otherwise, and for requests with no client behind them (the
 * CLI), the shared one. Under `apps: auto` a caller's own process is offered the MCP Apps
 * extension only when its client declared it. The caller's token (`options.caller`) holds at
 * most the server's `maxSessionsPerToken` such processes.
 */
export async function serveOn<T, J>(
  pool: UpstreamPool,
  calls: CallsInFlight,
  shared: Upstream,
  options: CallContext,
  fn: (serving: Upstream, job: J) => Promise<T>,
  job: J,
): Promise<T> {
  const track = options.client !== undefined;
  // The options object is the in-flight record: no allocation beyond what routing needs.
  if (track) calls.track(shared.name, options);
  let done: (() => void) | undefined;
  let own: Upstream | undefined;
  try {
    // A server every caller shares (no session isolation, no per-user connection: see
    // `servingOf`) is served on its own process, with no wait here.
    const config = shared.config;
    if (config.isolation !== "session" && (config.kind !== "http" || config.oauth === null)) {
      return await fn(shared, job);
    }
    const serving = await servingOf(pool, shared, options);
    done = serving.done;
    if (track && serving.user) {
      own = serving.upstream;
      calls.trackOn(own, options);
    }
    return await fn(serving.upstream, job);
  } finally {
    if (track) calls.untrack(shared.name, options);
    if (own) calls.untrackOn(own, options);
    done?.();
  }
}

/** The process {@link serveOn} runs on, and what ends it when it is a request flow's own. */
async function servingOf(
  pool: UpstreamPool,
  shared: Upstream,
  options: CallContext,
): Promise<{ upstream: Upstream; done?: () => void; user?: true }> {
  const config = shared.config;
  const { tokenName, subjectToken } = options.caller;
  // The server's auth mode says whether the caller has a connection of its own.
  const personal = config.kind === "http"
    ? authModeOf(config)?.connectionFor(
      config,
      { identity: tokenName, subjectToken },
      (identity, token) => pool.forUser(config, identity, token),
    )
    : undefined;
  if (personal) return { upstream: await personal, user: true };
  if (config.isolation !== "session") return { upstream: shared };
  const client = options.client;
  if (!client) return { upstream: shared };
  if (client.closed) {
    throw new GatewayError(
      "UPSTREAM_UNAVAILABLE",
      `the session closed, so it has no process of server "${shared.name}"`,
      { data: { server: shared.name } },
    );
  }
  const own = await isolatedOf(pool, shared, client, tokenName);
  // One call's channel: its process ends with the call.
  if (!client.lasting) {
    return { upstream: own, done: () => void pool.isolated.release(client) };
  }
  // A lasting one's stays until it closes, when its door releases it (or now, if it did).
  if (client.closed) void pool.isolated.release(client);
  return { upstream: own };
}

/** `owner`'s own process of a session-isolated server, offered Apps as its client declared. */
function isolatedOf(
  pool: UpstreamPool,
  shared: Upstream,
  owner: ClientChannel,
  tokenName: string | null,
): Promise<Upstream> {
  const apps = rendersApps(owner.capabilities);
  return pool.isolated.acquire(shared.config, owner, tokenName, undefined, apps);
}
