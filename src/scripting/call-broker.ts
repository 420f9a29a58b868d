/**
 * Parent side of one run's requests: tool calls through the {@link ToolBridge}, the tool list,
 * and host functions. Every call gets the run's abort signal and its own deadline (the script's),
 * so a promise that never settles cannot hold a script past its time limit. Results count
 * against the run's transfer budget; the one that would pass it is answered with
 * `intermediate_result_too_large` instead.
 */
import { GatewayError, messageOf } from "../shared/errors.ts";
import type { ReplyMessage, RequestMessage } from "./protocol.ts";
import type { HostFunction, ToolBridge } from "./types.ts";

/** What a broker needs to know about its run. */
export interface BrokerOptions {
  bridge?: ToolBridge;
  hostFunctions?: Record<string, HostFunction>;
  deadline: number;
  transferBytes: number;
  signal: AbortSignal;
}

function errorReply(id: number, err: unknown): ReplyMessage {
  const code = err instanceof GatewayError
    ? String(err.data?.code ?? err.code)
    : typeof (err as { code?: unknown })?.code === "string"
    ? (err as { code: string }).code
    : "ERROR";
  return { t: "reply", id, ok: false, error: { code, message: messageOf(err) } };
}

/** Answers the requests of one run. */
export class CallBroker {
  /** JSON bytes of results delivered to the script so far. */
  bytesIn = 0;
  #opts: BrokerOptions;

  constructor(opts: BrokerOptions) {
    this.#opts = opts;
  }

  /** Runs one request and resolves with its reply (never rejects). */
  async answer(m: RequestMessage): Promise<ReplyMessage> {
    try {
      const value = await this.#withDeadline(m, this.#dispatch(m));
      const size = JSON.stringify(value ?? null).length;
      if (this.bytesIn + size > this.#opts.transferBytes) {
        throw new GatewayError(
          "TOO_LARGE",
          `intermediate_result_too_large: a result of ${size} bytes would pass the script's ` +
            `transfer budget of ${this.#opts.transferBytes} bytes (${this.bytesIn} used)`,
          { data: { code: "intermediate_result_too_large" } },
        );
      }
      this.bytesIn += size;
      return { t: "reply", id: m.id, ok: true, value };
    } catch (err) {
      return errorReply(m.id, err);
    }
  }

  #dispatch(m: RequestMessage): Promise<unknown> {
    const { bridge, hostFunctions, signal, deadline } = this.#opts;
    switch (m.kind) {
      case "tool":
        if (!bridge) {
          throw new GatewayError("TOOL_NOT_FOUND", "no tools are available to this script");
        }
        return bridge.callTool(String(m.name), (m.args ?? {}) as Record<string, unknown>, signal);
      case "list":
        return Promise.resolve(bridge ? bridge.listTools() : []);
      case "host": {
        const fn = hostFunctions?.[String(m.name)];
        if (!fn) throw new GatewayError("INVALID_ARGUMENTS", `no host function named ${m.name}`);
        return Promise.resolve(
          fn(m.args, { signal, remainingMs: Math.max(0, deadline - Date.now()) }),
        );
      }
    }
  }

  #withDeadline<T>(m: RequestMessage, work: Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const what = m.kind === "tool"
      ? `tool ${m.name}`
      : m.kind === "host"
      ? `host function ${m.name}`
      : "tool list";
    const expiry = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new GatewayError(
              "UPSTREAM_TIMEOUT",
              `${what} did not answer before the script's time limit`,
            ),
          ),
        // Just past the script's own deadline: the worker then reports the time limit itself,
        // and this only matters if the worker failed to.
        Math.max(0, this.#opts.deadline - Date.now()) + 50,
      );
    });
    return Promise.race([work, expiry]).finally(() => clearTimeout(timer));
  }
}
