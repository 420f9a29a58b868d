/**
 * Finished operations, told to observers: tool calls (metrics, the status page's journal) and,
 * for observers of every kind (the audit log), prompt gets and resource reads too. The core
 * only publishes: `ops` subscribes through `Gateway.calls.observeCalls` / `observeOperations`, and
 * with no observer an operation pays one length check.
 */
import type { CallToolResult } from "../shared/protocol.ts";
import { withoutLinkSecrets } from "../shared/connect-link.ts";
import { GatewayError, messageOf } from "../shared/errors.ts";
import { type Era, eraOf } from "./call-context.ts";
import type { CallContext } from "./types.ts";

/** What an operation was. */
export type OperationKind = "tool" | "prompt" | "resource";

/** One finished operation, for metrics, the status page and the audit log. */
export interface CallRecord {
  readonly kind: OperationKind;
  /** Exposed tool or prompt name, or the resource URI the client asked for. */
  readonly name: string;
  /** Upstream server, or `null` for local tools. */
  readonly server: string | null;
  readonly tokenName: string | null;
  /** The profile endpoint the call came to; `null` = the whole catalog's. */
  readonly profile: string | null;
  readonly sessionId: string | null;
  /** The era the client spoke; `local` for the command line and embedders. */
  readonly era: Era;
  /** Script runs this call is nested in (0: a client's own call). */
  readonly scriptDepth: number;
  readonly durationMs: number;
  /** `ok`, `tool_error` (an isError result), or `error` (thrown). */
  readonly outcome: "ok" | "tool_error" | "error";
  /** Why it failed: the thrown error's message, or the text of an `isError` result. */
  readonly error?: string;
  /** The `GatewayError` code of a thrown error (`TOOL_NOT_FOUND`: `name` came from the client). */
  readonly code?: string;
  readonly at: number;
  /** The arguments as the client sent them (observers decide what of them to keep). */
  readonly args?: unknown;
  /** The answer, for observers that measure it; absent when the operation threw. */
  readonly result?: unknown;
  /** Result filters that changed or blocked the answer, in order (empty: none acted). */
  readonly filters: readonly string[];
}

/** What the operation itself reports while it runs. */
export interface CallNotes {
  /** The upstream server it was routed to. */
  server: string | null;
  /** Filters that acted on its answer, in order. */
  readonly filters: string[];
}

/**
 * What a call answers: a tool result, or the `CreateTaskResult` of a task-augmented call (which
 * has no `isError`: its creation went well).
 */
export type CallAnswer = object;

/** True when `answer` is a tool result with `isError` set. */
export function isErrorAnswer(answer: CallAnswer): boolean {
  return (answer as { isError?: unknown }).isError === true;
}

/** How much of an `isError` result's text a call record keeps. */
const ERROR_TEXT_MAX = 500;

/** The observers of one gateway's operations. */
export class CallObservers {
  #tools: ((call: CallRecord) => void)[] = [];
  #all: ((call: CallRecord) => void)[] = [];

  /** Registers an observer told about every finished tool call. */
  add(observer: (call: CallRecord) => void): void {
    this.#tools.push(observer);
  }

  /** Registers an observer told about every finished tool call, prompt get and resource read. */
  addAll(observer: (call: CallRecord) => void): void {
    this.#all.push(observer);
  }

  /**
   * Runs one operation in context `options` and tells the observers how it ended; `run` is
   * handed that context, the name and the arguments (so one function can serve every call),
   * and reports the server it routed to and the filters that acted through the notes it is given.
   */
  async observe<R, A>(
    kind: OperationKind,
    name: string,
    options: CallContext,
    args: A,
    run: (notes: CallNotes, context: CallContext, name: string, args: A) => Promise<R>,
  ): Promise<R> {
    const notes: CallNotes = { server: null, filters: [] };
    if (this.#all.length === 0 && (kind !== "tool" || this.#tools.length === 0)) {
      return await run(notes, options, name, args);
    }
    const op: Operation = { kind, name, options, args, notes, started: performance.now() };
    try {
      const result = await run(notes, options, name, args);
      const failed = kind === "tool" && isErrorAnswer(result as CallAnswer);
      const error = failed ? errorText(result as CallToolResult) : undefined;
      const outcome = failed ? "tool_error" : "ok";
      this.#tell(kind, recordOf(op, outcome, error, undefined, result));
      return result;
    } catch (err) {
      // A filter that blocked or failed names the filters that acted before it, and itself.
      const acted = err instanceof GatewayError ? err.data?.filters : undefined;
      if (Array.isArray(acted)) notes.filters.splice(0, notes.filters.length, ...acted);
      // Refused before it was routed (a quarantined tool): the server the refusal names.
      const named = err instanceof GatewayError ? err.data?.server : undefined;
      if (notes.server === null && typeof named === "string") notes.server = named;
      const code = err instanceof GatewayError ? err.code : undefined;
      this.#tell(kind, recordOf(op, "error", messageOf(err), code, NONE));
      throw err;
    }
  }

  #tell(kind: OperationKind, call: CallRecord): void {
    if (kind === "tool") tell(this.#tools, call);
    tell(this.#all, call);
  }
}

function tell(observers: readonly ((call: CallRecord) => void)[], call: CallRecord): void {
  for (const o of observers) {
    try {
      o(call);
    } catch { /* an observer must never break a call */ }
  }
}

/** No result: the operation threw. */
const NONE = Symbol("no result");

/** One operation being observed: what its record is made from. */
interface Operation {
  readonly kind: OperationKind;
  readonly name: string;
  readonly options: CallContext;
  readonly args: unknown;
  readonly notes: CallNotes;
  readonly started: number;
}

type Building = { -readonly [K in keyof CallRecord]: CallRecord[K] };

/**
 * The record of one finished operation, its members set in one order (and the optional ones
 * only when present), so every record has the same shape and no spread of a temporary object.
 */
function recordOf(
  op: Operation,
  outcome: CallRecord["outcome"],
  error: string | undefined,
  code: string | undefined,
  result: unknown,
): CallRecord {
  const { kind, name, options, args, notes } = op;
  const caller = options.caller;
  const call = {
    kind,
    name,
    server: notes.server,
    tokenName: caller.tokenName,
    sessionId: caller.sessionId,
    profile: caller.profile,
    era: eraOf(options),
    scriptDepth: options.scriptDepth ?? 0,
    durationMs: performance.now() - op.started,
    outcome,
  } as Building;
  // Records are read by operators and observers, never only by the caller: no link secret.
  if (error !== undefined) call.error = withoutLinkSecrets(error);
  if (code !== undefined) call.code = code;
  call.at = Date.now();
  if (args !== undefined) call.args = args;
  if (result !== NONE) call.result = result;
  call.filters = notes.filters;
  return call;
}

/** The text blocks of an `isError` result, cut to {@link ERROR_TEXT_MAX} characters. */
function errorText(result: CallToolResult): string {
  const text = (result.content ?? []).map((c) => c.type === "text" ? c.text : `[${c.type}]`)
    .join("\n");
  return text.length > ERROR_TEXT_MAX ? `${text.slice(0, ERROR_TEXT_MAX)}…` : text;
}
