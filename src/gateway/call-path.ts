/**
 * @module The one road of every tool call through the core, plain or task-augmented, from any
 * door or script: the {@link CallGate} admits it, a span wraps it when tracing is on, observers
 * are told how it ended, and it is routed to a local tool or to its upstream (`./upstream-call.ts`:
 * on the caller's own process of an isolated server, or its own connection of a per-user one). The
 * call's {@link CallContext} is handed on as it came; only a span (its own `traceparent`) or a
 * view URI mapped back for the upstream makes a new one.
 */
import type { CallToolParams, CallToolResult, CreateTaskResult } from "../shared/protocol.ts";
import type { CallContext } from "../shared/call-context.ts";
import type { CallGate, Release } from "./call-gate.ts";
import {
  type CallAnswer,
  type CallNotes,
  CallObservers,
  type CallRecord,
  type OperationKind,
} from "./call-records.ts";
import type { ToolEntry } from "./catalog.ts";
import type { LocalTool } from "./types.ts";
import type { Gateway } from "./gateway.ts";
import { type CallOutcome, outageOf } from "./outcome.ts";
import { viewServerOf } from "./passthrough/mod.ts";
import { traced } from "./traced.ts";
import type { CallTracer } from "./tracing.ts";
import { childContext } from "./call-context.ts";
import { UpstreamCalls } from "./upstream-call.ts";

/** The call path of one gateway. */
export class CallPath {
  /** Per-token call rates and concurrency; `null`: every call is admitted. */
  #gate: CallGate | null = null;
  /** Set when telemetry is on: every call, script run and upstream request gets a span. */
  #tracer: CallTracer | null = null;
  /** Told about every finished call (metrics, status page, audit). */
  readonly #observers = new CallObservers();
  readonly #gateway: Gateway;
  /** The calls routed to an upstream tool. */
  readonly #upstream: UpstreamCalls;

  constructor(gateway: Gateway) {
    this.#gateway = gateway;
    this.#upstream = new UpstreamCalls(gateway);
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
    return this.#gated(name, options, args, this.#routed);
  }

  /** {@link #route} as the observed run of a plain call: one function for every call. */
  readonly #routed = (
    notes: CallNotes,
    inner: CallContext,
    name: string,
    args: Record<string, unknown> | undefined,
  ): Promise<CallToolResult> => this.#route(name, args, inner, notes);

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
  #gated<T extends CallAnswer, A>(
    name: string,
    options: CallContext,
    args: A,
    run: ObservedRun<T, A>,
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
  async #held<T extends CallAnswer, A>(
    name: string,
    options: CallContext,
    args: A,
    run: ObservedRun<T, A>,
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
      return this.#tracedScript(this.#tracer, target, target.script, name, args, options);
    }
    notes.server = target.server;
    if (this.#tracer) return this.#tracedUpstream(this.#tracer, target, args, options, notes);
    return this.#upstream.call(target, args, options, notes);
  }

  // The traced roads are functions of their own: a closure in `#route` would make every call
  // pay the scope it holds, traced or not.

  #tracedScript(
    tracer: CallTracer,
    target: LocalTool,
    script: string,
    name: string,
    args: Record<string, unknown> | undefined,
    options: CallContext,
  ): Promise<CallToolResult> {
    const attributes = { "mcp.script": script };
    const run = (inner: CallContext) => target.call(args ?? {}, inner);
    return traced(tracer, "script", `script ${name}`, attributes, options, run);
  }

  #tracedUpstream(
    tracer: CallTracer,
    target: ToolEntry,
    args: Record<string, unknown> | undefined,
    options: CallContext,
    notes: CallNotes,
  ): Promise<CallToolResult> {
    const attributes = { "mcp.server": target.server, "mcp.upstream_tool": target.upstreamName };
    const run = (inner: CallContext) => this.#upstream.call(target, args, inner, notes);
    return traced(tracer, "upstream", `${target.server} tools/call`, attributes, options, run);
  }
}

/** An observed run: handed the call's name and arguments, so one function serves every call. */
type ObservedRun<T, A> = (
  notes: CallNotes,
  context: CallContext,
  name: string,
  args: A,
) => Promise<T>;
