/** Shapes of the result filters: what a filter is given, what it answers, what it reports. */
import type { Caller } from "../types.ts";

/** A JSON object as an upstream sent it (a tool result, a resource read or a prompt). */
export type JsonObject = Record<string, unknown>;

/** What a filter screens: a tool result, a resource read, or a prompt's messages. */
export type FilteredKind = "tool" | "resource" | "prompt";

/**
 * What is screened: a `result` (a tool result, a task's result, a resource read, a prompt) or
 * what an upstream sends beside results — a JSON-RPC `error` (`{ message, data }`), a `progress`
 * message (`{ message }`), a `log` message (`{ data }`) or a `task`'s status (`{ statusMessage }`).
 * Only the built-in filters screen the parts beside results (see {@link ResultFilter.beside}).
 */
export type ScreenedPart = "result" | "error" | "progress" | "log" | "task";

/** What one filter run knows about the call it screens; never another call's data. */
export interface FilterContext {
  readonly kind: FilteredKind;
  /** Absent: `result`. */
  readonly part?: ScreenedPart;
  readonly server: string;
  /**
   * The exposed tool or prompt name, or the resource URI the client asked for; for a log
   * message, its logger.
   */
  readonly name: string;
  /** Absent only for a log message, which no call carries. */
  readonly caller?: Caller;
  /** The tool's declared output schema, when known: `spotlight` leaves strings it constrains. */
  readonly outputSchema?: unknown;
  readonly signal?: AbortSignal;
  /** Script runs the call is nested in: a Lua filter runs on worker slots of this depth. */
  readonly depth: number;
}

/**
 * One filter. `apply` answers the same object when it changed nothing, a new one otherwise,
 * and throws a `GatewayError` to block (`FILTER_BLOCKED`) or when it failed (`SCRIPT_LIMIT`,
 * `SCRIPT_ERROR`): a result a filter could not screen never reaches the client.
 */
export interface ResultFilter {
  /** `secrets`, `pii`, `spotlight` or `lua:<file>`: how metrics and call records name it. */
  readonly name: string;
  /**
   * True for the built-in filters, which also screen errors, notifications and task status
   * (synchronously: a notification is never held back waiting for a screen). A Lua filter's
   * contract is `filter(result, ctx)`: it sees results and resource reads only.
   */
  readonly beside?: boolean;
  apply(value: JsonObject, ctx: FilterContext): JsonObject | Promise<JsonObject>;
}

/** A built-in filter: synchronous, and run on every part (see {@link ScreenedPart}). */
export interface TextFilter extends ResultFilter {
  readonly beside: true;
  apply(value: JsonObject, ctx: FilterContext): JsonObject;
}

/** What a filter did to one result, told to observers (metrics). */
export interface FilterEvent {
  readonly filter: string;
  readonly server: string;
  readonly kind: FilteredKind;
  /** The exposed tool name or the resource URI. */
  readonly name: string;
  /** `changed`: it rewrote the result; `blocked`: it refused it; `failed`: it broke or hit a limit. */
  readonly action: "changed" | "blocked" | "failed";
}
