/**
 * Parent side of one run's requests: tool calls through the {@link ToolBridge}, the tool list,
 * and host functions. Every call gets the run's abort signal and its own deadline (the script's),
 * so a promise that never settles cannot hold a script past its time limit. This is the one
 * place the run's {@link TransferBudget} is charged: every answer handed into the script is
 * measured here, and the one that would pass the budget is answered with
 * `intermediate_result_too_large` instead, at no cost.
 */
import { GatewayError, messageOf } from "../../shared/errors.ts";
import type { TransferBudget } from "./budget.ts";
import { jsonBytes } from "./budget.ts";
import type { ReplyMessage, RequestMessage } from "../protocol.ts";
import type { HostCallContext, HostFunction, ToolBridge } from "./types.ts";

/** What a broker needs to know about its run. */
export interface BrokerOptions {
  bridge?: ToolBridge;
  hostFunctions?: Record<string, HostFunction>;
  deadline: number;
  budget: TransferBudget;
  signal: AbortSignal;
}

/** The `{ code, message }` of a failed answer: a call code from `data.code`, else the error code. */
function errorReply(run: number, id: number, err: unknown): ReplyMessage {
  const code = err instanceof GatewayError
    ? String(err.data?.code ?? err.code)
    : typeof (err as { code?: unknown })?.code === "string"
    ? (err as { code: string }).code
    : "ERROR";
  return { t: "reply", run, id, ok: false, error: { code, message: messageOf(err) } };
}

/** Answers the requests of one run. */
export class CallBroker {
  #opts: BrokerOptions;

  constructor(opts: BrokerOptions) {
    this.#opts = opts;
  }

  /** Runs one request and resolves with its reply (never rejects). */
  async answer(m: RequestMessage): Promise<ReplyMessage> {
    const told: Array<(delivered: boolean) => void> = [];
    const ctx: HostCallContext = {
      signal: this.#opts.signal,
      remainingMs: Math.max(0, this.#opts.deadline - Date.now()),
      onDelivery: (fn) => told.push(fn),
    };
    let reply: ReplyMessage;
    let delivered = false;
    try {
      const value = await this.#withDeadline(m, this.#dispatch(m, ctx));
      const bytes = jsonBytes(value);
      if (!this.#opts.budget.take(bytes)) throw this.#opts.budget.refusal(bytes);
      delivered = true;
      reply = { t: "reply", run: m.run, id: m.id, ok: true, value };
    } catch (err) {
      reply = errorReply(m.run, m.id, err);
    }
    for (const fn of told) {
      try {
        fn(delivered);
      } catch { /* a trace hook must not break the reply */ }
    }
    return reply;
  }

  #dispatch(m: RequestMessage, ctx: HostCallContext): Promise<unknown> {
    const { bridge, hostFunctions } = this.#opts;
    switch (m.kind) {
      case "tool":
        if (!bridge) {
          throw new GatewayError("TOOL_NOT_FOUND", "no tools are available to this script");
        }
        return bridge.callTool(String(m.name), (m.args ?? {}) as Record<string, unknown>, ctx);
      case "list":
        return Promise.resolve(bridge ? bridge.listTools() : []);
      case "host": {
        const fn = hostFunctions?.[String(m.name)];
        if (!fn) throw new GatewayError("INVALID_ARGUMENTS", `no host function named ${m.name}`);
        return Promise.resolve(fn(m.args, ctx));
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
