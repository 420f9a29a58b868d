/**
 * Era-neutral operations on prompts, resources and completions: what a front door (a 2025
 * session or a 2026-07-28 stateless request) asks of the core, as plain functions of the
 * gateway, the caller and the request's params. Tools go through {@link Gateway.callTool}.
 * Both front doors call these, so a prompt or a resource is served one way whatever the era.
 *
 * `prompts/get` and `resources/read` are recorded in flight like tool calls (when the options
 * name a session or an MRTR origin), so sampling, elicitation and roots requests an upstream
 * sends while serving them reach the client that asked.
 */
import type {
  CompleteParams,
  CompleteResult,
  GetPromptParams,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from "../shared/protocol.ts";
import { GatewayError } from "../shared/errors.ts";
import { filterContext, screenRpcError } from "./filters/mod.ts";
import type { Gateway } from "./gateway.ts";
import type { CallNotes } from "./call-records.ts";
import { resultSchemaOf } from "../upstream/mod.ts";
import type { PromptEntry } from "./catalog.ts";
import { downResourceServers, downServerNamed } from "./down-servers.ts";
import {
  exposeUri,
  resolveResource,
  resolveTemplate,
  type ResourceTarget,
} from "./passthrough/resource-index.ts";
import type { CallContext, Caller } from "./types.ts";

const NO_VALUES: CompleteResult = { completion: { values: [], hasMore: false } };

/** Prompts this caller may list (of its own catalog: see `Gateway.catalogOf`). */
export function listPrompts(gateway: Gateway, caller: Caller): Prompt[] {
  return gateway.catalogOf(caller).prompts.filter((p) => gateway.reachesPrompt(caller, p)).map((
    p,
  ) => p.prompt);
}

/** Resources this caller sees: those of the servers its token reaches. */
export function listResources(gateway: Gateway, caller: Caller): Resource[] {
  const index = gateway.resources;
  return index.resources.filter((r) => gateway.sees(caller, index.byUri.get(r.uri)!.server));
}

/** Resource templates this caller sees: those of the servers its token reaches. */
export function listTemplates(gateway: Gateway, caller: Caller): ResourceTemplate[] {
  const index = gateway.resources;
  return index.templates.filter((t) =>
    gateway.sees(caller, index.byTemplate.get(t.uriTemplate)!.server)
  );
}

/** `prompts/get` by exposed name, sent upstream under the upstream's name. */
export async function getPrompt(
  gateway: Gateway,
  params: GetPromptParams,
  options: CallContext,
): Promise<GetPromptResult> {
  const caller = options.caller;
  const own = gateway.viewOf(caller);
  const entry = own.catalog.promptsByName.get(params.name);
  if (!entry || !gateway.reachesPrompt(caller, entry)) {
    gateway.pins.refuseHeld(
      "prompt",
      params.name,
      (h) => gateway.reachesPrompt(caller, h.entry as PromptEntry),
      own.user,
    );
    throw downPrompt(gateway, caller, params.name) ??
      new GatewayError("PROMPT_NOT_FOUND", `unknown prompt "${params.name}"`);
  }
  return await gateway.calls.observed(
    "prompt",
    params.name,
    options,
    params.arguments,
    async (notes) => {
      notes.server = entry.server;
      // A prompt's messages reach a model as a tool result does: they pass the same filters.
      const ctx = filterContext("prompt", entry.server, params.name, options);
      const result = await requestOn(
        gateway,
        entry.server,
        "prompts/get",
        { ...params, name: entry.upstreamName },
        options,
      ).catch((err) => {
        throw screenRpcError(gateway.filters, gateway.config, ctx, err);
      }) as GetPromptResult;
      if (gateway.filters.none(gateway.config, entry.server)) return result;
      const screened = await gateway.filters.run(gateway.config, ctx, result);
      notes.filters.push(...screened.acted);
      return screened.value;
    },
  );
}

/**
 * Where an exposed URI is served, or RESOURCE_NOT_FOUND — also for a server the caller's token
 * does not reach, answered exactly like an unknown URI so a narrow token learns nothing of it.
 * A URI quarantine holds back (or one expanded from a held template) is refused with the reason.
 */
export function resourceTarget(gateway: Gateway, uri: string, caller: Caller): ResourceTarget {
  const index = gateway.resources;
  const target = resolveResource(index, uri);
  if (!target || !gateway.sees(caller, target.server)) {
    gateway.pins.refuseHeldResource(uri, (server) => gateway.sees(caller, server));
    throw downResource(gateway, caller, uri) ??
      new GatewayError("RESOURCE_NOT_FOUND", `no server offers resource "${uri}"`, {
        data: { uri },
      });
  }
  const listed = index.exposed.has(`${target.server}\0${target.uri}`);
  gateway.pins.refuseHeldResource(target.uri, (s) => s === target.server, listed);
  return target;
}

/**
 * The outage of the down server an unknown prompt name belongs to (by its prefix), when the
 * caller reaches that server: a client learns why, as a tool call to it would tell.
 */
function downPrompt(gateway: Gateway, caller: Caller, name: string): GatewayError | undefined {
  const separator = gateway.config.gateway.separator;
  // The caller's own upstreams: a per-user server's is the caller's connection (its own link).
  const match = downServerNamed(name, gateway.viewOf(caller).upstreams, separator, "prompts");
  return match && gateway.sees(caller, match.upstream.name)
    ? match.upstream.unavailable()
    : undefined;
}

/**
 * For a URI no server that is up offers: the outage of the one down server (that the caller
 * reaches, with none of its resources known) that may offer it, or all of theirs.
 */
function downResource(gateway: Gateway, caller: Caller, uri: string): GatewayError | undefined {
  const down = downResourceServers(gateway.viewOf(caller).upstreams)
    .filter((u) => gateway.sees(caller, u.name));
  if (down.length <= 1) return down[0]?.unavailable();
  const why = down.map((u) => u.unavailable().message).join("; ");
  return new GatewayError(
    "UPSTREAM_UNAVAILABLE",
    `no server that is up offers resource "${uri}", and ${down.length} that may are not up: ${why}`,
    { data: { uri, servers: down.map((u) => u.name) } },
  );
}

/** `resources/read` routed by URI; contents come back under the URIs the client knows. */
export async function readResource(
  gateway: Gateway,
  params: { uri: string; [key: string]: unknown },
  options: CallContext,
): Promise<ReadResourceResult> {
  return await gateway.calls.observed(
    "resource",
    params.uri,
    options,
    undefined,
    (notes) => {
      const target = resourceTarget(gateway, params.uri, options.caller);
      notes.server = target.server;
      return readFrom(gateway, target, params, options, notes);
    },
  );
}

/** Reads from the target's server, maps URIs back and screens the contents with its filters. */
async function readFrom(
  gateway: Gateway,
  target: ResourceTarget,
  params: { uri: string; [key: string]: unknown },
  options: CallContext,
  notes: CallNotes,
): Promise<ReadResourceResult> {
  const ctx = filterContext("resource", target.server, params.uri, options);
  const result = await requestOn(
    gateway,
    target.server,
    "resources/read",
    { ...params, uri: target.uri },
    options,
  ).catch((err) => {
    throw screenRpcError(gateway.filters, gateway.config, ctx, err);
  }) as ReadResourceResult;
  const exposed = params.uri === target.uri ? result : {
    ...result,
    contents: result.contents.map((c) => {
      const uri = c.uri === target.uri
        ? params.uri
        : exposeUri(gateway.resources, target.server, c.uri);
      return uri === c.uri ? c : { ...c, uri };
    }),
  };
  const screened = await gateway.filters.run(gateway.config, ctx, exposed);
  notes.filters.push(...screened.acted);
  return screened.value;
}

/**
 * `completion/complete` routed by its prompt or resource-template reference, to the process
 * that serves this caller (its own connection of a per-user server).
 */
export async function complete(
  gateway: Gateway,
  params: CompleteParams,
  context: CallContext,
): Promise<CompleteResult> {
  const caller = context.caller;
  const ref = params.ref;
  let target: { server: string; ref: typeof ref };
  if (ref.type === "ref/prompt") {
    const entry = gateway.catalogOf(caller).promptsByName.get(ref.name);
    if (!entry || !gateway.reachesPrompt(caller, entry)) {
      throw downPrompt(gateway, caller, ref.name) ??
        new GatewayError("PROMPT_NOT_FOUND", `unknown prompt "${ref.name}"`);
    }
    target = { server: entry.server, ref: { ...ref, name: entry.upstreamName } };
  } else {
    const found = resolveTemplate(gateway.resources, ref.uri);
    if (!found || !gateway.sees(caller, found.server)) {
      gateway.pins.refuseHeldResource(ref.uri, (server) => gateway.sees(caller, server));
      throw downResource(gateway, caller, ref.uri) ??
        new GatewayError("RESOURCE_NOT_FOUND", `no server offers "${ref.uri}"`);
    }
    gateway.pins.refuseHeldResource(found.uri, (s) => s === found.server);
    target = { server: found.server, ref: { ...ref, uri: found.uri } };
  }
  const shared = gateway.pool.get(target.server);
  if (!shared) throw new GatewayError("UPSTREAM_UNAVAILABLE", `server "${target.server}" is gone`);
  return await gateway.passthrough.serve(shared, context, async (upstream) => {
    if (!upstream.client) throw upstream.unavailable();
    if (!upstream.client.getServerCapabilities()?.completions) return NO_VALUES;
    return await upstream.request(
      "completion/complete",
      { ...params, ref: target.ref },
      resultSchemaOf("completion/complete"),
      context,
    ) as CompleteResult;
  }, undefined);
}

/**
 * Sends `method` to `server` for the call's caller — on the caller's own process of a
 * session-isolated server — with a 2026-07-28 upstream's input rounds going to the caller's
 * client.
 */
async function requestOn(
  gateway: Gateway,
  server: string,
  method: "prompts/get" | "resources/read",
  params: Record<string, unknown>,
  options: CallContext,
): Promise<unknown> {
  const upstream = gateway.pool.get(server);
  if (!upstream) throw new GatewayError("UPSTREAM_UNAVAILABLE", `server "${server}" is gone`);
  return await gateway.passthrough.serve(
    upstream,
    options,
    (serving) =>
      serving.request(
        method,
        params,
        resultSchemaOf(method),
        options,
        gateway.passthrough.inputRelay(serving, upstream, options),
      ),
    undefined,
  );
}
