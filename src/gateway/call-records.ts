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
  readonly durationMs: number;
  /** `ok`, `tool_error` (an isError result), or `error` (thrown). */
  readonly outcome: "ok" | "tool_error" | "error";
  /** Why it failed: the thrown error's message, or the text of an `isError` result. */
  readonly error?: string;
  /** The `GatewayError` code of a thrown error (`TOOL_NOT_FOUND`: `name` came from the client). */
  readonly code?: string;
  readonly at: number;
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

/** The observers of one gateway's calls. */
export class CallObservers {
  #observers: ((call: CallRecord) => void)[] = [];

  /** Registers an observer told about every finished tool call. */
  add(observer: (call: CallRecord) => void): void {
    this.#observers.push(observer);
  }

  /**
   * Runs one call and tells every observer how it ended; `run` reports the upstream server it
   * routed to through `onServer` (local tools report none).
   */
  async observe<T extends CallAnswer>(
    name: string,
    caller: Caller,
    run: (onServer?: (server: string) => void) => Promise<T>,
  ): Promise<T> {
    if (this.#observers.length === 0) return await run();
    const started = performance.now();
    let server: string | null = null;
    const record = (outcome: CallRecord["outcome"], error?: string, code?: string) =>
      this.#tell({
        name,
        server,
        tokenName: caller.tokenName,
        durationMs: performance.now() - started,
        outcome,
        ...(error === undefined ? {} : { error }),
        ...(code === undefined ? {} : { code }),
        at: Date.now(),
      });
    try {
      const result = await run((s) => (server = s));
      if (isErrorAnswer(result)) record("tool_error", errorText(result as CallToolResult));
      else record("ok");
      return result;
    } catch (err) {
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
