/**
 * The call context, built in one place for every entry into `Gateway.callTool`: a 2025 session's
 * `tools/call` (through the SDK server or the HTTP fast path), a 2026-07-28 request, and the
 * calls a script makes. Each entry used to assemble `CallContext` by hand and they drifted (the
 * progress token, the `_meta` kept, the nesting depth); now each says what it has and this
 * function decides what the call carries.
 */
import { putOwn } from "../shared/by-name.ts";
import type { CallContext, Era, LazyCancellation, Progress } from "../shared/call-context.ts";
import type { Caller } from "../shared/caller.ts";
import type { ClientChannel } from "../shared/client-channel.ts";

export type { Era };

/** A context being built (the one handed on is read-only). */
type Building = { -readonly [K in keyof CallContext]: CallContext[K] };

/** What a layer may change of a context on its way down: anything but its caller. */
export type ContextChanges = Partial<Omit<Building, "caller">>;

const NO_ENTRY: CallEntry = Object.freeze({});

/**
 * The era of a call: set on calls a script makes (from the call the script serves), else its
 * client's; a call without a client is local.
 */
export function eraOf(options: CallContext): Era {
  return options.era ?? options.client?.era ?? "local";
}

/** A progress notification's params as the downstream client receives them. */
export interface ProgressParams {
  progressToken: string | number;
  progress: number;
  total?: number;
  message?: string;
  [key: string]: unknown;
}

/** What an entry knows about the request a call serves. */
export interface CallEntry {
  /**
   * The request's `params._meta` as the client sent it. Its `progressToken` is mapped out (the
   * gateway relays progress under the client's token through `progress`); everything else,
   * `traceparent` included, travels with the call to the upstream.
   */
  meta?: Record<string, unknown> | undefined;
  /** Aborted when the client cancels the request or its session ends. */
  signal?: AbortSignal | undefined;
  /**
   * Instead of `signal`: the call's cancellation, whose signal is made only when a layer reads
   * the context's `signal` (see `CallContext.cancellation`).
   */
  cancellation?: LazyCancellation | undefined;
  /** The client behind the request: sampling, elicitation and roots go back to it. */
  client?: ClientChannel | undefined;
  /** The downstream request id: server-to-client requests go out on its stream. */
  requestId?: string | number | undefined;
  /**
   * Sends one progress notification downstream. Given only by entries that relay progress
   * themselves; used when the client's `_meta` carries a progress token.
   */
  progress?: ((params: ProgressParams) => void) | undefined;
  /**
   * For a call a script makes: the call the script serves. The nested call keeps a lasting
   * client (a 2025 session) and the request id (so an upstream's sampling reaches that
   * client), is one level deeper, and carries only the script span's `traceparent` as `_meta`.
   * A flow's own channel stays with its own call.
   */
  parent?: CallContext | undefined;
  /** True for operator-written scripts (macros, `mcp-gateway run`): hidden tools reachable. */
  internal?: boolean | undefined;
}

/**
 * The one context of a call for `caller`, from what its entry knows (see {@link CallEntry}):
 * every entry — a tool call, a task, `prompts/get`, `resources/read`, `completion/complete`,
 * `tasks/result`, a script's nested call — is entered here. The caller is the door's own
 * object, kept as it is (a 2025 session's lasts between its requests): entering a call makes
 * this one context and nothing else.
 */
export function enterCall(caller: Caller, entry: CallEntry = NO_ENTRY): CallContext {
  const out: Building = { caller };
  // A lazy cancellation stands for the signal (read through `signalOf`): no getter here, the
  // context keeps one shape and a spread of it (`childContext`) makes nothing.
  if (entry.cancellation) out.cancellation = entry.cancellation;
  else if (entry.signal) out.signal = entry.signal;
  const parent = entry.parent;
  if (parent) {
    out.scriptDepth = (parent.scriptDepth ?? 0) + 1;
    out.era = eraOf(parent);
    if (parent.client?.lasting) out.client = parent.client;
    if (parent.requestId !== undefined) out.requestId = parent.requestId;
    // The script's span is the parent of the calls it makes (when tracing is on).
    const traceparent = parent.meta?.traceparent;
    if (traceparent !== undefined) out.meta = { traceparent };
  }
  if (entry.internal) out.internal = true;
  if (entry.client) out.client = entry.client;
  if (entry.requestId !== undefined) out.requestId = entry.requestId;
  const given = entry.meta;
  if (given) {
    let progressToken: unknown;
    let meta: Record<string, unknown> | undefined;
    // Own keys only, set as own keys: a client's `__proto__` key stays a key. Walked, not
    // listed: no array of the keys per call.
    for (const key in given) {
      if (!Object.hasOwn(given, key)) continue;
      if (key === "progressToken") progressToken = given[key];
      else putOwn(meta ??= {}, key, given[key]);
    }
    if (meta) out.meta = meta;
    const send = entry.progress;
    if (send && progressToken !== undefined) {
      out.onprogress = progressSink(send, progressToken as string | number);
      // A call that reports progress is alive: each report starts its clock again.
      out.resetTimeoutOnProgress = true;
    }
  }
  return out;
}

/**
 * The call's progress callback, reporting under the client's `token`. A function of its own:
 * the closure's scope would otherwise be made for every call that carries `_meta`.
 */
function progressSink(
  send: (params: ProgressParams) => void,
  token: string | number,
): (progress: Progress) => void {
  return (p) => send({ ...p, progressToken: token });
}

/**
 * The one way a layer changes a call's context on its way down (a span's own `traceparent`, a
 * longer clock, a flow's own channel and signal, a screened progress sink): a new context,
 * `changes` over `parent`. The parent is never edited, every field its entry set travels on
 * unless changed here, and the caller never changes (a call for another caller is entered
 * anew, with {@link enterCall}).
 */
export function childContext(parent: CallContext, changes: ContextChanges): CallContext {
  const child: Building = { ...parent, ...changes };
  // A new signal stands for the call's cancellation: the parent's lazy one goes with it.
  if (changes.signal && parent.cancellation && !changes.cancellation) {
    child.cancellation = undefined;
  }
  return child;
}
