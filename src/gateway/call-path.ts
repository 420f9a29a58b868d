/**
 * @module The one road of every tool call through the core, plain or task-augmented, from any
 * door or script: the {@link CallGate} admits it, a span wraps it when tracing is on, observers
 * are told how it ended, and it is routed to a local tool or to its upstream — on the caller's
 * own process of an isolated server, or the caller's own connection of a per-user one. The
 * call's {@link CallContext} is handed on as it came; only a span (its own `traceparent`) or a
 * view URI mapped back for the upstream makes a new one.
 */
import type { CallToolParams, CallToolResult, CreateTaskResult } from "../shared/protocol.ts";
import type { CallContext } from "../shared/call-context.ts";
import { GatewayError } from "../shared/errors.ts";
import type { CallGate, Release } from "./call-gate.ts";
import {
  type CallAnswer,
  type CallNotes,
  CallObservers,
  type CallRecord,
  type OperationKind,
} from "./call-records.ts";
import type { ToolEntry } from "./catalog.ts";
import { filterContext, screenProgress, screenRpcError } from "./filters/mod.ts";
import type { Gateway } from "./gateway.ts";
import { type CallOutcome, outageOf, outageResult } from "./outcome.ts";
import { withConnectRound } from "./passthrough/connect-round.ts";
import {
  exposeResultUris,
  exposeUri,
  upstreamRequestMeta,
  viewServerOf,
} from "./passthrough/mod.ts";
import { traced } from "./traced.ts";
import type { CallTracer } from "./tracing.ts";
import { childContext } from "./call-context.ts";

/** The call path of one gateway. */
export class CallPath {
  /** Per-token call rates and concurrency; `null`: every call is admitted. */
  #gate: CallGate | null = null;
  /** Set when telemetry is on: every call, script run and upstream request gets a span. */
  #tracer: CallTracer | null = null;
  /** Told about every finished call (metrics, status page, audit). */
  readonly #observers = new CallObservers();
  readonly #gateway: Gateway;

  constructor(gateway: Gateway) {
    this.#gateway = gateway;
  }

  /** Installs the gate every call passes (per-token call rates and concurrency). */
  setGate(gate: CallGate | null): void {
    this.#gate = gate;
  }

  /** Traces every tool call, script run and upstream request from now on (telemetry on). */
  setTracer(tracer: CallTracer): void {
    this.#tracer = tracer;
    this.#gateway.onStop(() => tracer.shutdown());
  }

  /** Registers an observer told about every finished tool call (metrics, status page). */
  observeCalls(observer: (call: CallRecord) => void): void {
    this.#observers.add(observer);
  }

  /** Registers an observer told about every tool call, prompt get and resource read (audit). */
  observeOperations(observer: (call: CallRecord) => void): void {
    this.#observers.addAll(observer);
  }

  /** Runs a prompt get or resource read under the observers (see `operations.ts`). */
  observed<R>(
    kind: Exclude<OperationKind, "tool">,
    name: string,
    context: CallContext,
    args: unknown,
    run: (notes: CallNotes) => Promise<R>,
  ): Promise<R> {
    return this.#observers.observe(kind, name, context, args, run);
  }

  /**
   * Calls a tool. Upstream outages and timeouts become `isError` results (the agent reads them);
   * unknown or forbidden tools throw, and so does a call the {@link CallGate} refuses.
   */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: CallContext,
  ): Promise<CallToolResult> {
    return this.#gated(
      name,
      options,
      args,
      (notes, inner) => this.#route(name, args, inner, notes),
    );
  }

  /**
   * Creates a task upstream for a task-augmented `tools/call` (either era). It is a call like
   * any other: the same gate (rate, concurrency), call record and span, and the same process
   * routing; the concurrency slot is held while the task is being created.
   */
  createTask(
    params: CallToolParams,
    options: CallContext,
  ): Promise<CreateTaskResult> {
    return this.#gated(
      params.name,
      options,
      params.arguments,
      (notes, inner) => this.#gateway.tasks.create(params, inner, notes),
    );
  }

  /**
   * The one road of every call, plain or task-augmented: the {@link CallGate} admits it, a span
   * wraps it when tracing is on, and observers are told how it ended. A call the gate admits at
   * once holding nothing, with no span, is its observed run alone: no frame of its own.
   */
  #gated<T extends CallAnswer>(
    name: string,
    options: CallContext,
    args: unknown,
    run: (notes: CallNotes, inner: CallContext) => Promise<T>,
  ): Promise<T> {
    // Every call passes here once, scripts' calls included: this is where limits count calls.
    let admitted: Release | Promise<Release>;
    try {
      admitted = this.#gate?.acquire(options.caller, {
        tool: name,
        local: this.#gateway.localByName.has(name),
      });
    } catch (err) {
      return this.#refused(name, options, args, err);
    }
    if (admitted === undefined && !this.#tracer) {
      return this.#observers.observe("tool", name, options, args, run);
    }
    return this.#held(name, options, args, run, admitted);
  }

  /** A refused call is still a call: observers (the audit log, metrics) record it and why. */
  #refused<T>(name: string, options: CallContext, args: unknown, err: unknown): Promise<T> {
    return this.#observers.observe("tool", name, options, args, () => {
      throw err;
    });
  }

  /** {@link #gated} for a call that holds a slot, waits for a shared gate, or is traced. */
  async #held<T extends CallAnswer>(
    name: string,
    options: CallContext,
    args: unknown,
    run: (notes: CallNotes, inner: CallContext) => Promise<T>,
    admitted: Release | Promise<Release>,
  ): Promise<T> {
    let release: Release;
    try {
      // A shared (cluster) gate answers a promise; an in-process one decides without a tick.
      release = typeof admitted === "object" ? await admitted : admitted;
    } catch (err) {
      return await this.#refused(name, options, args, err);
    }
    try {
      if (this.#tracer) {
        const caller = options.caller;
        const attributes = {
          "mcp.tool": name,
          "mcp.token": caller.tokenName ?? "",
          "mcp.profile": caller.profile ?? "",
        };
        return await traced(
          this.#tracer,
          "tool",
          `tools/call ${name}`,
          attributes,
          options,
          (inner) => this.#observers.observe("tool", name, inner, args, run),
        );
      }
      return await this.#observers.observe("tool", name, options, args, run);
    } finally {
      release?.();
    }
  }

  /**
   * Calls a tool and answers its typed outcome: an upstream outage comes back as data (kind and
   * server) instead of an `isError` text result, so scripts branch on it without reading text.
   */
  async callToolOutcome(
    name: string,
    args: Record<string, unknown> | undefined,
    options: CallContext,
  ): Promise<CallOutcome> {
    try {
      const result = await this.callTool(name, args, childContext(options, { outagesThrow: true }));
      return { kind: "result", result };
    } catch (err) {
      const outage = outageOf(err);
      if (outage) return outage;
      throw err;
    }
  }

  /**
   * Not async: its caller (`CallObservers.observe`) awaits it, so a refusal thrown here rejects
   * that call like any other, and a call pays no promise of its own for this step.
   */
  #route(
    name: string,
    args: Record<string, unknown> | undefined,
    options: CallContext,
    notes: CallNotes,
  ): Promise<CallToolResult> {
    const view = viewServerOf(options.meta);
    const target = this.#gateway.resolveTool(name, options.caller, options.internal, view);
    if ("call" in target) {
      if (!this.#tracer || !target.script) return target.call(args ?? {}, options);
      return traced(
        this.#tracer,
        "script",
        `script ${name}`,
        { "mcp.script": target.script },
        options,
        (inner) => target.call(args ?? {}, inner),
      );
    }
    notes.server = target.server;
    if (this.#tracer) {
      const attributes = { "mcp.server": target.server, "mcp.upstream_tool": target.upstreamName };
      return traced(
        this.#tracer,
        "upstream",
        `${target.server} tools/call`,
        attributes,
        options,
        (inner) => this.#callUpstream(target, args, inner, notes),
      );
    }
    return this.#callUpstream(target, args, options, notes);
  }

  async #callUpstream(
    target: ToolEntry,
    args: Record<string, unknown> | undefined,
    options: CallContext,
    notes: CallNotes,
  ): Promise<CallToolResult> {
    const upstream = this.#gateway.pool.get(target.server);
    // A server without filters (the common case) pays no screen: no context, no promise.
    const filters = this.#gateway.filters;
    const gatewayConfig = this.#gateway.config;
    const screen = filters.none(gatewayConfig, target.server) ? undefined : {
      ...filterContext("tool", target.server, target.name, options),
      ...(target.tool.outputSchema ? { outputSchema: target.tool.outputSchema } : {}),
    };
    if (screen) options = screenProgress(filters, gatewayConfig, screen, options);
    try {
      if (!upstream) {
        throw new GatewayError("UPSTREAM_UNAVAILABLE", `server "${target.server}" is gone`, {
          data: { server: target.server },
        });
      }
      // Tracked in flight, on the caller's own process of an `isolation: session` server, or
      // on the caller's own connection of a per-user server (whose connect link the client may
      // be asked to open within the call).
      const result = await withConnectRound(
        this.#gateway.passthrough,
        upstream,
        options,
        options.caller.tokenName,
        (identity) => this.#gateway.upstreamAuth.connectHint(upstream.config, identity),
        () =>
          this.#gateway.passthrough.serve(
            upstream,
            options,
            (serving) => {
              // A 2026-07-28 upstream's input rounds belong to this call: they go to its client.
              const input = this.#gateway.passthrough.inputRelay(serving, upstream, options);
              // The context goes on as it came; only a view URI of this server is mapped back.
              const meta = options.meta && upstreamRequestMeta(options.meta, target.server);
              const call = meta === options.meta ? options : childContext(options, { meta });
              return serving.callTool(target.upstreamName, args, call, input);
            },
          ),
      );
      let value = result;
      if (screen) {
        const screened = await filters.run(gatewayConfig, screen, result);
        notes.filters.push(...screened.acted);
        value = screened.value;
      }
      // Resource links name URIs as the client knows them (`ui://` views especially).
      return exposeResultUris(
        value,
        (uri) => exposeUri(this.#gateway.resources, target.server, uri),
      );
    } catch (err) {
      const outage = options.outagesThrow ? undefined : outageOf(err);
      if (outage) return outageResult(outage);
      throw screen ? screenRpcError(filters, gatewayConfig, screen, err) : err;
    }
  }
}
