/**
 * @module The request serving a 2026-07-28 flow right now, as the continuations read it
 * ({@link FlowRequest}), made from the SDK's context or by the `tools/call` fast path; and the
 * road of a call whose client can be asked nothing ({@link direct}), which needs no parking.
 */
import { CLIENT_CAPABILITIES_META_KEY, type ServerContext } from "@modelcontextprotocol/server";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { childContext, missingCapability } from "../../gateway/mod.ts";
import type { CallContext, ClientChannel } from "../../gateway/types.ts";
import type { Progress } from "../../shared/call-context.ts";
import { WireError } from "../../shared/errors.ts";

/** The JSON-RPC code of MissingRequiredClientCapabilityError. */
const MISSING_CAPABILITY = -32021;

/** `"elicitation.url"` → `{ elicitation: { url: {} } }`. */
function capabilityObject(path: string): Record<string, unknown> {
  return path.split(".").reduceRight<Record<string, unknown>>((inner, k) => ({ [k]: inner }), {});
}

/**
 * The request serving a flow right now, as far as the flow reads it; the rest of what the call
 * carries (its signal above all) is its {@link CallContext}. The SDK path makes it from the
 * SDK's context ({@link flowRequest}); the `tools/call` fast path (./fast-call.ts) from the
 * body it parsed.
 */
export interface FlowRequest {
  /** The request's method: a `requestState` is bound to it (and to the caller's token). */
  readonly method: string;
  /** What the client declared in this request's envelope: it may be asked nothing else. */
  readonly capabilities: ClientCapabilities | undefined;
  /** Answers the request carries: to the last round, or up front (ephemeral style). */
  readonly inputResponses?: Record<string, unknown> | undefined;
  /** The `requestState` it continues, as the SDK verified it; absent on a first call. */
  readonly state?: unknown;
  /** Sends one progress notification on this request; absent when its client wants none. */
  readonly progress?: ((progress: Progress) => Promise<void>) | undefined;
}

/** The capabilities in a request's `_meta` envelope, when they are an object. */
export function envelopeCapabilities(
  envelope: Record<string, unknown> | undefined,
): ClientCapabilities | undefined {
  const caps = envelope?.[CLIENT_CAPABILITIES_META_KEY];
  return typeof caps === "object" && caps !== null ? caps as ClientCapabilities : undefined;
}

/** The {@link FlowRequest} of an SDK handler's request. */
export function flowRequest(ctx: ServerContext): FlowRequest {
  const req = ctx.mcpReq;
  const token = req._meta?.progressToken as string | number | undefined;
  return {
    method: req.method,
    capabilities: envelopeCapabilities(req.envelope as Record<string, unknown> | undefined),
    inputResponses: req.inputResponses,
    state: req.requestState(),
    progress: token === undefined ? undefined : (p) =>
      req.notify({
        method: "notifications/progress",
        params: { ...p, progressToken: token },
      }),
  };
}

/** True when the client of `caps` can be asked something during a call. */
export function askable(caps: ClientCapabilities | undefined): boolean {
  return caps !== undefined && (caps.sampling !== undefined || caps.elicitation !== undefined ||
    caps.roots !== undefined);
}

/** Why the client of `caps` cannot be asked `method`, or undefined when it can. */
export function refusal(
  caps: ClientCapabilities | undefined,
  method: string,
  params: Record<string, unknown> | undefined,
): WireError | undefined {
  const missing = missingCapability(caps ?? {}, { method, ...(params ? { params } : {}) });
  if (!missing) return undefined;
  return new WireError({
    code: MISSING_CAPABILITY,
    message: `the client did not declare ${missing}, so it cannot answer ${method}`,
    data: { requiredCapabilities: capabilityObject(missing) },
  });
}

/**
 * The channel of a call whose client can be asked nothing: each request is refused as a parked
 * call would refuse it. One per call, since session isolation keys a call's process on it.
 */
class Unaskable implements ClientChannel {
  readonly era = "modern";
  readonly askable = false;
  readonly lasting = false;
  readonly closed = false;
  /**
   * What its client declared: nothing it could be asked, but maybe extensions (MCP Apps) that
   * decide what its own process of a session-isolated server is offered.
   */
  readonly capabilities: ClientCapabilities;
  constructor(capabilities: ClientCapabilities | undefined) {
    this.capabilities = capabilities ?? {};
  }
  notify(): void {}
  request(method: string, params: Record<string, unknown> | undefined): Promise<unknown> {
    return Promise.reject(
      refusal(undefined, method, params) ??
        new WireError({ code: -32601, message: `a 2026-07-28 client cannot be asked ${method}` }),
    );
  }
}

/**
 * A fresh channel for a call whose client can be asked nothing (one per call, see above), with
 * what that client declared.
 */
export function unaskable(capabilities: ClientCapabilities | undefined): ClientChannel {
  return new Unaskable(capabilities);
}

/**
 * Runs a call whose client can be asked nothing, on the context its door built. Progress, when
 * asked for, goes out on the one request; the answer waits for the last report to be sent.
 */
export async function direct<R>(
  request: FlowRequest,
  options: CallContext,
  run: (options: CallContext) => Promise<R>,
): Promise<R> {
  const send = request.progress;
  if (!send) {
    return await run(childContext(options, { client: new Unaskable(request.capabilities) }));
  }
  let last = Promise.resolve();
  const result = await run(childContext(options, {
    client: new Unaskable(request.capabilities),
    onprogress: (p) => void (last = send(p).catch(() => {})),
    resetTimeoutOnProgress: true,
  }));
  await last;
  return result;
}
