/**
 * Finished tool calls, told to observers (metrics, the status page's journal). The core only
 * publishes: `ops` subscribes through `Gateway.observeCalls`, and with no observer a call pays
 * one length check.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { GatewayError, messageOf } from "../shared/errors.ts";
import type { Caller } from "./types.ts";

/** One finished tool call, for metrics and the status page. */
export interface CallRecord {
  readonly name: string;
  /** Upstream server, or `null` for local tools. */
  readonly server: string | null;
  readonly tokenName: string | null;
  /** The profile endpoint the call came to; `null` = the whole catalog's. */
  readonly profile: string | null;
  readonly durationMs: number;
  /** `ok`, `tool_error` (an isError result), or `error` (thrown). */
  readonly outcome: "ok" | "tool_error" | "error";
  /** Why it failed: the thrown error's message, or the text of an `isError` result. */
  readonly error?: string;
  /** The `GatewayError` code of a thrown error (`TOOL_NOT_FOUND`: `name` came from the client). */
  readonly code?: string;
  /** Result filters that changed or blocked the result, in order (absent: none acted). */
  readonly filters?: readonly string[];
  readonly at: number;
}

/** What a call reports while it runs: the server it routed to, the filters that acted. */
export interface CallNote {
  server(name: string): void;
  filters(names: readonly string[]): void;
}

/** How much of an `isError` result's text a call record keeps. */
const ERROR_TEXT_MAX = 500;

/** The observers of one gateway's calls. */
export class CallObservers {
  #observers: ((call: CallRecord) => void)[] = [];

  /** Registers an observer told about every finished tool call. */
  add(observer: (call: CallRecord) => void): void {
    this.#observers.push(observer);
  }

  /**
   * Runs one call and tells every observer how it ended; `run` reports the upstream server it
   * routed to and the filters that acted through its {@link CallNote} (local tools report none).
   */
  async observe(
    name: string,
    caller: Caller,
    run: (note?: CallNote) => Promise<CallToolResult>,
  ): Promise<CallToolResult> {
    if (this.#observers.length === 0) return await run();
    const started = performance.now();
    let server: string | null = null;
    let filters: readonly string[] = [];
    const record = (outcome: CallRecord["outcome"], error?: string, code?: string) =>
      this.#tell({
        name,
        server,
        tokenName: caller.tokenName,
        profile: caller.profile,
        durationMs: performance.now() - started,
        outcome,
        ...(error === undefined ? {} : { error }),
        ...(code === undefined ? {} : { code }),
        ...(filters.length === 0 ? {} : { filters }),
        at: Date.now(),
      });
    const note: CallNote = { server: (s) => (server = s), filters: (f) => (filters = f) };
    try {
      const result = await run(note);
      if (result.isError) record("tool_error", errorText(result));
      else record("ok");
      return result;
    } catch (err) {
      // A filter that blocked or failed names the filters that acted before it, and itself.
      const acted = err instanceof GatewayError ? err.data?.filters : undefined;
      if (Array.isArray(acted)) filters = acted as string[];
      record("error", messageOf(err), err instanceof GatewayError ? err.code : undefined);
      throw err;
    }
  }

  #tell(call: CallRecord): void {
    for (const o of this.#observers) {
      try {
        o(call);
      } catch { /* an observer must never break a call */ }
    }
  }
}

/** The text blocks of an `isError` result, cut to {@link ERROR_TEXT_MAX} characters. */
function errorText(result: CallToolResult): string {
  const text = (result.content ?? []).map((c) => c.type === "text" ? c.text : `[${c.type}]`)
    .join("\n");
  return text.length > ERROR_TEXT_MAX ? `${text.slice(0, ERROR_TEXT_MAX)}…` : text;
}
