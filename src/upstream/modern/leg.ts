/**
 * The SDK v2 client's leg (see caller.ts): requests to a 2026-07-28 upstream, each one
 * stateless (the client attaches the per-request `_meta` envelope). An `input_required` answer
 * never reaches the frame: when the call brings its own relay (`input`), each round goes to the
 * client whose call it is and the request is retried with the answers here; otherwise the v2
 * client fulfils the rounds through the handlers the gateway registered on it.
 * The 2025 stateful requests (log level, resource subscriptions) are carried as that revision
 * offers them (stateful.ts). As with the 1.x leg, the frame owns the clock, results pass through unchecked here, and each
 * failure is named once.
 */
import {
  type Client as V2Client,
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError,
  SdkError,
  SdkErrorCode,
} from "@modelcontextprotocol/client";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { messageOf } from "../../shared/errors.ts";
import type { CallLeg, InputRelay, LegOptions, Progress } from "../caller.ts";
import { closed, notConnected, unavailable, UpstreamRpcError } from "../call-errors.ts";
import { ANY_RESULT, neverDelivered, SDK_TIMEOUT_MS } from "../sdk-leg.ts";
import type { StatefulMethods } from "./stateful.ts";
import { TASKS_EXTENSION } from "../../shared/tasks-extension.ts";
import { ExtensionTasks, type OnTaskStatus } from "./tasks.ts";

/**
 * The v2 client's requests by any method name. The SDK types the request of each method it
 * knows; the gateway sends any method a client asked for, and the frame checks the result.
 */
interface AnyMethod {
  callTool(
    params: Record<string, unknown> | undefined,
    options: V2RequestOptions,
  ): Promise<unknown>;
  request(
    request: { method: string; params?: Record<string, unknown> | undefined },
    schema: typeof ANY_RESULT,
    options: V2RequestOptions,
  ): Promise<unknown>;
}

/** What this leg passes with every request (a subset of the SDK's request options). */
interface V2RequestOptions {
  signal: AbortSignal | undefined;
  timeout: number;
  onprogress?: (progress: unknown) => void;
  allowInputRequired?: boolean;
}

/** Rounds one call may take before it is given up (the SDK's own default). */
const MAX_ROUNDS = 10;
/** The `_meta` key by which an input request's own key travels to the client's round. */
const INPUT_KEY_META = "mcp-gateway/inputKey";

interface InputRequired {
  resultType: "input_required";
  inputRequests?: Record<string, { method: string; params?: Record<string, unknown> }>;
  requestState?: string;
}

function isInputRequired(result: unknown): result is InputRequired {
  return (result as { resultType?: unknown } | null)?.resultType === "input_required";
}

/** Requests of one connected v2 client in the modern era. */
export class ModernLeg implements CallLeg {
  readonly kind = "modern";
  readonly #client: V2Client;
  readonly #anyMethod: AnyMethod;
  readonly #server: string;
  readonly #stateful: StatefulMethods;
  /** What the gateway declared to this server: a call's envelope narrows it to its client's. */
  readonly #offered: ClientCapabilities;
  readonly #tasks: ExtensionTasks;

  constructor(
    server: string,
    client: V2Client,
    stateful: StatefulMethods,
    offered: ClientCapabilities,
    onTaskStatus?: OnTaskStatus,
  ) {
    this.#server = server;
    this.#client = client;
    this.#anyMethod = client;
    this.#stateful = stateful;
    this.#offered = offered;
    this.#tasks = new ExtensionTasks(server, () => {
      const caps = client.getServerCapabilities() as { extensions?: Record<string, unknown> };
      return caps?.extensions?.[TASKS_EXTENSION] !== undefined;
    }, onTaskStatus);
  }

  send(method: string, params: Record<string, unknown> | undefined, options: LegOptions): void {
    this.#answer(method, params, options).then(
      (result) => options.answered(result),
      (err) => options.failed(err),
    );
  }

  /** What `method` answers, over as many input rounds as it takes; rejects with a named error. */
  async #answer(
    method: string,
    params: Record<string, unknown> | undefined,
    { signal, onprogress, input }: LegOptions,
  ): Promise<unknown> {
    if (!this.#client.transport) throw notConnected(this.#server);
    if (this.#stateful.handles(method)) {
      return await this.#stateful.answer(method, params).catch((err) => {
        throw this.#named(err);
      });
    }
    if (this.#tasks.handles(method)) {
      const relay = input &&
        ((key: string, m: string, p: Record<string, unknown> | undefined, s: AbortSignal) =>
          input(m, keyed(p, key), s));
      return await this.#tasks.answer(method, params, signal, this.#ask, relay);
    }
    const creating = this.#tasks.creates(method, params);
    if (creating) params = withoutTask(params);
    const options = {
      signal,
      timeout: SDK_TIMEOUT_MS,
      ...(onprogress ? { onprogress: (p: unknown) => onprogress(p as Progress) } : {}),
      // With the call's own relay, its rounds are answered here (below), by its own client.
      ...(input ? { allowInputRequired: true } : {}),
    };
    const once = (p: Record<string, unknown> | undefined) =>
      // callTool mirrors a tool's declared `Mcp-Param-*` headers on streamable HTTP.
      method === "tools/call"
        ? this.#anyMethod.callTool(p, options)
        : this.#anyMethod.request({ method, params: p }, ANY_RESULT, options);
    try {
      params = withClientCapabilities(
        this.#stateful.withLevel(params),
        this.#offered,
        input,
        creating,
      );
      let result: unknown = await once(params);
      for (let round = 1; input && isInputRequired(result); round++) {
        if (round > MAX_ROUNDS) {
          throw new UpstreamRpcError(this.#server, {
            code: -32603,
            message: `server "${this.#server}" still asked for input after ${MAX_ROUNDS} rounds`,
          });
        }
        const { inputRequests = {}, requestState } = result;
        const answers = await Promise.all(
          Object.entries(inputRequests).map(async ([key, req]) =>
            [key, await input(req.method, keyed(req.params, key), signal)] as const
          ),
        );
        result = await once({
          ...params,
          inputResponses: Object.fromEntries(answers),
          ...(requestState === undefined ? {} : { requestState }),
        });
      }
      return creating ? this.#tasks.created(result) : this.#tasks.listed(method, result);
    } catch (err) {
      throw this.#named(err);
    }
  }

  /** One request of the tasks extension, declaring it (tasks.ts). */
  readonly #ask = async (
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<unknown> => {
    try {
      const declared = withClientCapabilities(params, this.#offered, undefined, true);
      return await this.#anyMethod.request({ method, params: declared }, ANY_RESULT, {
        signal,
        timeout: SDK_TIMEOUT_MS,
      });
    } catch (err) {
      throw this.#named(err);
    }
  };

  #named(err: unknown): unknown {
    if (err instanceof SdkError) {
      if (err.code === SdkErrorCode.ConnectionClosed || err.code === SdkErrorCode.NotConnected) {
        return closed(this.#server);
      }
      // Local refusals (rounds exceeded, a result type it does not know, …): an error answer.
      return new UpstreamRpcError(this.#server, {
        code: -32603,
        message: err.message,
        data: { sdkCode: err.code },
      });
    }
    // The upstream's own JSON-RPC error, or the calling client's answer to an input round
    // (relayed handlers throw JSON-RPC shaped errors): code, message and data pass through.
    const code = (err as { code?: unknown } | null)?.code;
    if (err instanceof ProtocolError || (err instanceof Error && typeof code === "number")) {
      const e = err as Error & { code: number; data?: unknown };
      return new UpstreamRpcError(this.#server, {
        code: e.code,
        message: e.message.replace(/^MCP error -?\d+: /, ""),
        ...(e.data === undefined ? {} : { data: e.data }),
      });
    }
    return unavailable(this.#server, `could not be reached (${messageOf(err)})`, {
      ...(neverDelivered(err) ? { delivered: false } : {}),
    });
  }
}

/** `params` with the input request's own key in its `_meta`: a modern client's round keeps it. */
function keyed(params: Record<string, unknown> | undefined, key: string): Record<string, unknown> {
  const meta = params?._meta as Record<string, unknown> | undefined;
  return { ...params, _meta: { ...meta, [INPUT_KEY_META]: key } };
}

/** A task-augmented call's params without the 2025 `task` (the extension has no such param). */
function withoutTask(params: Record<string, unknown> | undefined): Record<string, unknown> {
  const { task: _task, ...rest } = params ?? {};
  return rest;
}

/**
 * `params` with an envelope declaring what the call's client can be asked: of what the gateway
 * offered the server, sampling and elicitation only as that client declared them (modes and
 * all), so the server asks only what will be answered — or refuses the call, as the revision
 * says, naming what is missing. A call with no client behind it keeps the connection's own.
 * `tasks`: the request declares the tasks extension too (a task's own requests, and a call that
 * may create one); no other request does, so a plain call never becomes a task.
 */
function withClientCapabilities(
  params: Record<string, unknown> | undefined,
  offered: ClientCapabilities,
  input: InputRelay | undefined,
  tasks = false,
): Record<string, unknown> | undefined {
  const theirs = input?.capabilities;
  if (!theirs && !tasks) return params;
  const { sampling: _s, elicitation: _e, ...rest } = offered;
  const narrowed: ClientCapabilities = theirs
    ? {
      ...rest,
      ...(theirs.sampling ? { sampling: theirs.sampling } : {}),
      ...(theirs.elicitation ? { elicitation: theirs.elicitation } : {}),
    }
    : offered;
  const extensions = (narrowed as { extensions?: Record<string, unknown> }).extensions;
  const declared = tasks
    ? { ...narrowed, extensions: { ...extensions, [TASKS_EXTENSION]: {} } }
    : narrowed;
  const meta = params?._meta as Record<string, unknown> | undefined;
  return { ...params, _meta: { ...meta, [CLIENT_CAPABILITIES_META_KEY]: declared } };
}
