/**
 * The result screen: every tool result and resource read of a server with `filters` passes its
 * filters here, in order (the gateway's, then the server's), before any front door sees it; what
 * the server sends beside results (errors, notifications, task status) passes its built-in
 * filters ({@link ResultScreen.beside}, applied by `./beside.ts`). A
 * screened result never keeps the JSON text it arrived as (`shared/raw-json.ts`): the fast
 * paths then serialise the value the filters saw, so what a client parses is exactly what was
 * screened — an upstream cannot hide text from a filter in a duplicate JSON key that a client's
 * parser might read instead. Which filters acted is told to the call's note (call records,
 * audit) and to observers (metrics).
 */
import type { GatewayConfig, ServerConfig } from "../../config/mod.ts";
import { GatewayError } from "../../shared/errors.ts";
import { piiFilter } from "./pii.ts";
import { secretsFilter } from "./secrets.ts";
import { spotlightFilter } from "./spotlight.ts";
import type { CallContext } from "../types.ts";
import type { FilterContext, FilterEvent, JsonObject, ResultFilter, TextFilter } from "./types.ts";
import { signalOf } from "../../shared/call-context.ts";

/** Makes the filter of one Lua file (registered by the scripting room). */
export type LuaFilterFactory = (spec: { name: string; file: string }) => ResultFilter;

const BUILT_IN: Record<"secrets" | "pii" | "spotlight", TextFilter> = {
  secrets: secretsFilter,
  pii: piiFilter,
  spotlight: spotlightFilter,
};

/** The context of one screened call, from what the call carries. */
export function filterContext(
  kind: FilterContext["kind"],
  server: string,
  name: string,
  options: CallContext,
): FilterContext {
  const signal = signalOf(options);
  return {
    kind,
    server,
    name,
    caller: options.caller,
    ...(signal ? { signal } : {}),
    depth: options.scriptDepth ?? 0,
  };
}

/** A screened value and the filters that changed or blocked it, in order. */
export interface Screened<T> {
  readonly value: T;
  readonly acted: readonly string[];
}

/** The filters of every server of one config. */
export class ResultScreen {
  #chains = new Map<string, readonly ResultFilter[] | GatewayError>();
  /** Per server, its built-in filters: those that screen what comes beside results. */
  #besides = new Map<string, readonly TextFilter[]>();
  #config: GatewayConfig | null = null;
  #lua: LuaFilterFactory | null = null;
  #observers: ((event: FilterEvent) => void)[] = [];

  /** Installs the maker of Lua filters (the script host's); chains are built again. */
  useLua(factory: LuaFilterFactory): void {
    this.#lua = factory;
    this.#config = null;
  }

  /** Registers an observer told what each filter did (metrics). */
  observe(observer: (event: FilterEvent) => void): void {
    this.#observers.push(observer);
  }

  /**
   * True when `server` has no filters: the call path then skips {@link run} and its promise.
   * A chain that failed to build is not empty (`run` throws its error).
   */
  none(config: GatewayConfig, server: string): boolean {
    try {
      return this.#chain(config, server).length === 0;
    } catch {
      return false;
    }
  }

  /**
   * Runs the server's filters over `value`. Without filters it answers `value` untouched (the
   * fast paths keep its raw text); with them, a new object in every case (see the module
   * comment). Throws the first filter's refusal or failure.
   */
  async run<T extends object>(
    config: GatewayConfig,
    ctx: FilterContext,
    value: T,
  ): Promise<Screened<T>> {
    const chain = this.#chain(config, ctx.server);
    if (chain.length === 0) return { value, acted: [] };
    const acted: string[] = [];
    let current = value as unknown as JsonObject;
    for (const filter of chain) {
      let next: JsonObject;
      try {
        next = await filter.apply(current, ctx);
      } catch (err) {
        acted.push(filter.name);
        const blocked = err instanceof GatewayError && err.code === "FILTER_BLOCKED";
        this.#tell(eventOf(filter, ctx, blocked ? "blocked" : "failed"));
        throw withActed(err, acted, filter.name, ctx);
      }
      if (next !== current) {
        acted.push(filter.name);
        this.#tell(eventOf(filter, ctx, "changed"));
        current = next;
      }
    }
    // A fresh object: no raw JSON text travels past a screen.
    const out = (current === (value as unknown) ? { ...current } : current) as unknown as T;
    return { value: out, acted };
  }

  /**
   * Runs the server's built-in filters, in order, over what it sent beside a result (an error,
   * a notification, a task's status; `ctx.part` says which). Synchronous, and answers `value`
   * itself when the server has none or nothing changed. Lua filters screen results only.
   */
  beside<T extends object>(config: GatewayConfig, ctx: FilterContext, value: T): T {
    this.#fresh(config);
    let chain = this.#besides.get(ctx.server);
    if (chain === undefined) {
      const specs = config.servers.find((s) => s.name === ctx.server)?.filters ?? [];
      chain = specs.flatMap((spec) => spec.kind === "builtin" ? [BUILT_IN[spec.name]] : []);
      this.#besides.set(ctx.server, chain);
    }
    let current = value as unknown as JsonObject;
    for (const filter of chain) {
      const next = filter.apply(current, ctx);
      if (next !== current) {
        this.#tell(eventOf(filter, ctx, "changed"));
        current = next;
      }
    }
    return current as unknown as T;
  }

  #fresh(config: GatewayConfig): void {
    if (this.#config === config) return;
    this.#chains.clear();
    this.#besides.clear();
    this.#config = config;
  }

  #chain(config: GatewayConfig, server: string): readonly ResultFilter[] {
    this.#fresh(config);
    let chain = this.#chains.get(server);
    if (chain === undefined) {
      chain = build(config.servers.find((s) => s.name === server), this.#lua);
      this.#chains.set(server, chain);
    }
    if (chain instanceof GatewayError) throw chain;
    return chain;
  }

  #tell(event: FilterEvent): void {
    for (const o of this.#observers) {
      try {
        o(event);
      } catch { /* an observer never breaks a call */ }
    }
  }
}

function eventOf(
  filter: ResultFilter,
  ctx: FilterContext,
  action: FilterEvent["action"],
): FilterEvent {
  return { filter: filter.name, server: ctx.server, kind: ctx.kind, name: ctx.name, action };
}

/** The filters of one server, or the error every call to it fails with (a Lua file unread). */
function build(
  server: ServerConfig | undefined,
  lua: LuaFilterFactory | null,
): readonly ResultFilter[] | GatewayError {
  if (!server) return [];
  try {
    return server.filters.map((spec) => {
      if (spec.kind === "builtin") return BUILT_IN[spec.name];
      if (!lua) {
        throw new GatewayError("INTERNAL", `filter ${spec.name}: no script host runs Lua filters`);
      }
      return lua(spec);
    });
  } catch (err) {
    return err instanceof GatewayError
      ? err
      : new GatewayError("CONFIG_INVALID", `servers.${server.name}.filters: ${String(err)}`);
  }
}

/** The error a filter threw, naming the call and carrying which filters acted. */
function withActed(
  err: unknown,
  acted: string[],
  filter: string,
  ctx: FilterContext,
): GatewayError {
  const what = `${ctx.kind} "${ctx.name}"`;
  if (err instanceof GatewayError) {
    return new GatewayError(err.code, `${what}: ${err.message}`, {
      cause: err,
      data: { ...err.data, filter, filters: acted, server: ctx.server },
    });
  }
  return new GatewayError("INTERNAL", `${what}: filter ${filter} failed: ${String(err)}`, {
    cause: err,
    data: { filter, filters: acted, server: ctx.server },
  });
}
