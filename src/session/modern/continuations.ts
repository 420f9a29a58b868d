/**
 * Multi round-trip requests (MRTR) for 2026-07-28 clients. A modern client has no session to
 * receive server-to-client requests, so when an upstream asks for sampling, elicitation or
 * roots during a modern client's call, the call is parked here: the client gets an
 * `input_required` result (the upstream's requests as `inputRequests`, plus a sealed
 * `requestState`), and its retry with `inputResponses` hands the answers to the still-running
 * upstream call and waits for what comes next — the result, or another round.
 *
 * An upstream may name an input with `_meta["mcp-gateway/inputKey"]` on its request; the key is
 * kept when free, so a client can answer it up front (`inputResponses` on the first call, the
 * ephemeral style of the revision). A request for a capability the client did not declare in this
 * request's envelope is refused to the upstream with -32021 at once, as a 2025 session refuses
 * it; answers that do not fit the request's result schema are asked for again.
 *
 * `requestState` is sealed with the SDK's HMAC codec under a per-deployment key and bound to
 * the method and the caller's token (and profile endpoint), and it names one round of one parked call: a tampered,
 * expired, foreign or replayed state is refused. A parked call nobody continues is cancelled
 * upstream after `ttlMs`.
 *
 * A call whose client declared none of sampling, elicitation and roots can never be asked
 * anything, so it is never parked: it runs on its own request's signal, and an upstream request
 * during it is refused at once. That is the common call, and it pays for no parking.
 */
import { own } from "../../shared/by-name.ts";
import { randomBytes } from "../../runtime/hash.ts";
import {
  createRequestStateCodec,
  type InputRequest,
  inputRequired,
  type RequestStateCodec,
  type ServerContext,
} from "@modelcontextprotocol/server";
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type {
  CallContext,
  Caller,
  ChannelRequestOptions,
  ClientChannel,
} from "../../gateway/types.ts";
import { type Progress, signalOf } from "../../shared/call-context.ts";
import { GatewayError } from "../../shared/errors.ts";
import { askable, direct, type FlowRequest, refusal } from "./flow-request.ts";
import { childContext } from "../../gateway/mod.ts";

/** The `_meta` key an upstream names its input with. */
export const INPUT_KEY_META = "mcp-gateway/inputKey";
/**
 * How long the gateway waits for more requests of the same round once one arrived. An upstream
 * that asks several things at once writes them together, but each is handled on its own way in;
 * on a busy machine a collection pause between two of them outlasts a few milliseconds, and a
 * round answered early makes the client answer twice.
 */
const GATHER_MS = 40;

const RESULT_SCHEMAS: Record<string, { safeParse(v: unknown): { success: boolean } }> = {
  "sampling/createMessage": CreateMessageResultSchema,
  "elicitation/create": ElicitResultSchema,
  "roots/list": ListRootsResultSchema,
};

/**
 * True when `response` fits the result schema of `method` (an upstream's request method: looked
 * up as an own key, so `constructor` is no schema).
 */
export function fits(method: string, response: unknown): boolean {
  return own(RESULT_SCHEMAS, method)?.safeParse(response).success ?? true;
}

interface StatePayload {
  /** The parked call. */
  readonly c: string;
  /** The round this state answers. */
  readonly r: number;
}

interface Pending {
  readonly request: InputRequest;
  resolve(result: unknown): void;
  reject(err: Error): void;
}

/** The binding of a `requestState`: the method and the caller's token. */
function binding(method: string, tokenName: string): string {
  return `${method}\0${tokenName}`;
}

/**
 * One call in flight whose upstream may ask the client for input: the call's channel, whose
 * requests become `input_required` rounds of the flow.
 */
class Parked implements ClientChannel {
  readonly era = "modern";
  readonly askable = true;
  /** A flow is one call's: its own processes end with it. */
  readonly lasting = false;
  readonly closed = false;
  readonly id = crypto.randomUUID();
  readonly tokenName: string | null;
  /** The profile endpoint the call came to: a continuation must come to the same one. */
  readonly profile: string | null;
  readonly abort = new AbortController();
  round = 0;
  #next = 0;
  readonly pending = new Map<string, Pending>();
  result: Promise<unknown> | undefined;
  /** Answers the client sent before being asked (first call of an ephemeral flow). */
  early: Record<string, unknown>;
  #wake: (() => void) | undefined;
  /** The request serving the client right now; progress goes out on it. */
  serving: FlowRequest;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** The last progress notification sent: the answer waits for it, so it is never overtaken. */
  lastNotify: Promise<void> = Promise.resolve();

  /** The capabilities the flow's client declared (each request of a flow declares the same). */
  get capabilities(): FlowRequest["capabilities"] {
    return this.serving.capabilities;
  }

  constructor(request: FlowRequest, caller: Caller) {
    this.serving = request;
    this.tokenName = caller.tokenName;
    this.profile = caller.profile;
    this.early = { ...request.inputResponses };
  }

  /** A flow carries no notifications between its rounds. */
  notify(): void {}

  /** Called by the pass-through relay for a server request the upstream sends during the call. */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    _options?: ChannelRequestOptions,
  ): Promise<unknown> {
    const refused = refusal(this.serving.capabilities, method, params);
    if (refused) return Promise.reject(refused);
    const { [INPUT_KEY_META]: hint, ...meta } = (params?._meta ?? {}) as Record<string, unknown>;
    const wanted = typeof hint === "string" && hint !== "" ? hint : undefined;
    const key = wanted && !this.pending.has(wanted) ? wanted : `input-${++this.#next}`;
    if (Object.hasOwn(this.early, key) && fits(method, this.early[key])) {
      const answer = this.early[key];
      delete this.early[key];
      return Promise.resolve(answer);
    }
    const { _meta: _, ...rest } = params ?? {};
    const sent = Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
    return new Promise((resolve, reject) => {
      this.pending.set(key, {
        request: { method, params: sent } as InputRequest,
        resolve,
        reject,
      });
      this.wake();
    });
  }

  /** Resolves when something changed: a server request arrived, or the call settled. */
  changed(): Promise<void> {
    return new Promise((resolve) => (this.#wake = resolve));
  }

  wake(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/** Options of {@link Continuations}. */
export interface ContinuationOptions {
  /** HMAC key for `requestState` (≥ 32 bytes); random per process when absent. */
  key?: string;
  /** How long a parked call waits for the client's retry. */
  ttlMs: number;
  /** Cluster hook: this instance's id, written as `<owner>~` before every state it mints. */
  owner?: string;
}

/** The parked calls of one gateway. */
export class Continuations {
  #codec: RequestStateCodec<StatePayload>;
  #parked = new Map<string, Parked>();
  #ttlMs: number;
  #owner: string | undefined;

  constructor(options: ContinuationOptions) {
    this.#ttlMs = options.ttlMs;
    this.#owner = options.owner;
    this.#codec = createRequestStateCodec<StatePayload>({
      key: options.key ?? randomBytes(32),
      ttlSeconds: Math.max(1, Math.ceil(options.ttlMs / 1000)),
      bind: (ctx) => binding(ctx.mcpReq.method, ctx.http?.authInfo?.clientId ?? ""),
    });
  }

  /** Calls parked right now. */
  get size(): number {
    return this.#parked.size;
  }

  /** The SDK's `requestState.verify` hook: integrity, expiry and binding. */
  verify(state: string, ctx: ServerContext): Promise<StatePayload> {
    // Cluster hook: the owner prefix only routes the retry; the seal after it is what counts.
    return this.#codec.verify(state.slice(state.indexOf("~") + 1), ctx);
  }

  /**
   * Runs an upstream operation (a tool call, `prompts/get`, `resources/read`) for a modern
   * client, or continues the parked one its `requestState` names. Answers with the result, or
   * with `input_required` while the upstream waits for the client.
   */
  async call<R>(
    request: FlowRequest,
    options: CallContext,
    run: (options: CallContext) => Promise<R>,
  ): Promise<R | ReturnType<typeof inputRequired>> {
    const state = request.state as StatePayload | undefined;
    let parked: Parked;
    if (state && typeof state === "object") {
      parked = this.#resume(state, options.caller, request);
    } else if (!askable(request.capabilities)) {
      // Nothing to continue: no parking, no controller of its own, no wait on the signal —
      // the request's own signal cancels the call (the client went away).
      return await direct(request, options, run);
    } else {
      parked = new Parked(request, options.caller);
      this.#parked.set(parked.id, parked);
      // A client that asked for progress gets it on whichever request of the flow is serving
      // it now (each retry carries its own progress token).
      parked.result = run(childContext(options, {
        signal: parked.abort.signal,
        client: parked,
        ...(request.progress
          ? { onprogress: (p) => this.#progress(parked, p), resetTimeoutOnProgress: true }
          : {}),
      }));
      parked.result.then(() => parked.wake(), () => parked.wake());
    }
    return await this.#answer(parked, request, signalOf(options));
  }

  #resume(state: StatePayload, caller: Caller, request: FlowRequest): Parked {
    const parked = this.#parked.get(state.c);
    if (!parked) {
      throw new GatewayError(
        "INVALID_ARGUMENTS",
        "the call this request continues is no longer waiting (it finished, timed out or the " +
          "gateway restarted); send the call again without requestState",
      );
    }
    if (
      parked.tokenName !== caller.tokenName || parked.profile !== caller.profile ||
      state.r !== parked.round
    ) {
      throw new GatewayError("INVALID_ARGUMENTS", "requestState does not continue this call");
    }
    parked.serving = request;
    const responses = request.inputResponses ?? {};
    for (const [key, pending] of parked.pending) {
      // A missing or malformed answer leaves the request pending: the next round asks again.
      const own = Object.hasOwn(responses, key);
      if (!own || !fits(pending.request.method, responses[key])) continue;
      parked.pending.delete(key);
      pending.resolve(responses[key]);
    }
    return parked;
  }

  async #answer<R>(
    parked: Parked,
    request: FlowRequest,
    signal: AbortSignal | undefined,
  ): Promise<R | ReturnType<typeof inputRequired>> {
    clearTimeout(parked.timer);
    let settled = false;
    void parked.result!.then(() => (settled = true), () => (settled = true));
    // Let answers just handed over reach the upstream before deciding what comes next.
    if (!settled && parked.pending.size === 0) {
      // One abort listener for the whole wait, removed after it (calls are many; aborts rare).
      let onAbort!: () => void;
      const aborted = new Promise<void>((resolve) => (onAbort = resolve));
      signal?.addEventListener("abort", onAbort, { once: true });
      const finished = parked.result!.then(() => {}, () => {});
      try {
        while (!settled && parked.pending.size === 0) {
          await Promise.race([parked.changed(), finished, aborted]);
          if (signal?.aborted) break;
        }
      } finally {
        signal?.removeEventListener("abort", onAbort);
      }
    }
    // An upstream often asks several things at once: let the rest of the burst arrive.
    for (let quiet = false, n = 0; !settled && !quiet && n < 10; n++) {
      const before = parked.pending.size;
      await new Promise((r) => setTimeout(r, GATHER_MS));
      quiet = parked.pending.size === before;
    }
    if (settled || parked.pending.size === 0) {
      this.#parked.delete(parked.id);
      const result = await parked.result! as R;
      await parked.lastNotify;
      return result;
    }
    parked.round++;
    parked.timer = setTimeout(() => this.#expire(parked), this.#ttlMs);
    const inputRequests: Record<string, InputRequest> = {};
    for (const [key, p] of parked.pending) inputRequests[key] = p.request;
    const sealed = await this.#codec.mint(
      { c: parked.id, r: parked.round },
      bindingContext(request.method, parked.tokenName ?? ""),
    );
    const requestState = this.#owner ? `${this.#owner}~${sealed}` : sealed;
    return inputRequired({ inputRequests, requestState });
  }

  #progress(parked: Parked, p: Progress): void {
    const send = parked.serving.progress;
    if (send) parked.lastNotify = send(p).catch(() => {});
  }

  #expire(parked: Parked): void {
    this.#parked.delete(parked.id);
    const err = new GatewayError("UPSTREAM_TIMEOUT", "the client did not continue the call");
    for (const p of parked.pending.values()) p.reject(err);
    parked.pending.clear();
    parked.abort.abort(err);
  }

  /** Cancels every parked call (shutdown). */
  close(): void {
    for (const parked of [...this.#parked.values()]) this.#expire(parked);
  }
}

/**
 * What the codec's `bind` reads at mint time (it is ours, above): the method and the token, as
 * the SDK's context carries them at verify time.
 */
function bindingContext(method: string, tokenName: string): ServerContext {
  // as never: the codec hands it only to `bind`, which reads these two fields
  return { mcpReq: { method }, http: { authInfo: { clientId: tokenName } } } as never;
}
