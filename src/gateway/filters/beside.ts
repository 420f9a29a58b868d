/**
 * What an upstream sends beside its results passes its server's built-in filters too
 * ({@link ResultScreen.beside}): a JSON-RPC error's message and `data`, a progress message, a
 * log message's `data`, a task's `statusMessage`. Only the upstream's own text is handed to the
 * filters — never a progress token, a task id or a level, which the gateway and the client
 * route by.
 */
import type { GatewayConfig } from "../../config/mod.ts";
import type { CallContext } from "../../shared/call-context.ts";
import { UpstreamRpcError } from "../../upstream/mod.ts";
import type { ResultScreen } from "./screen.ts";
import type { FilterContext } from "./types.ts";
import { childContext } from "../call-context.ts";

/** `err` with its message and `data` screened when it is an upstream's JSON-RPC error. */
export function screenRpcError(
  screen: ResultScreen,
  config: GatewayConfig,
  ctx: FilterContext,
  err: unknown,
): unknown {
  if (!(err instanceof UpstreamRpcError)) return err;
  const value = { message: err.message, ...(err.data === undefined ? {} : { data: err.data }) };
  const screened = screen.beside(config, { ...ctx, part: "error" }, value);
  if (screened === value) return err;
  return new UpstreamRpcError(err.server, { code: err.code, ...screened });
}

/** `options` whose progress reports pass the filters before they reach `onprogress`. */
export function screenProgress(
  screen: ResultScreen,
  config: GatewayConfig,
  ctx: FilterContext,
  options: CallContext,
): CallContext {
  const report = options.onprogress;
  if (!report) return options;
  const part = { ...ctx, part: "progress" as const };
  return childContext(options, {
    onprogress: (p) => {
      if (typeof p.message !== "string") return report(p);
      const { message } = screen.beside(config, part, { message: p.message });
      report(message === p.message ? p : { ...p, message });
    },
  });
}

/** A log notification's params with its `data` screened. */
export function screenLog<P extends { data?: unknown; logger?: string }>(
  screen: ResultScreen,
  config: GatewayConfig,
  server: string,
  params: P,
): P {
  if (params.data === undefined) return params;
  const ctx: FilterContext = {
    kind: "tool",
    part: "log",
    server,
    name: params.logger ?? server,
    depth: 0,
  };
  const value = { data: params.data };
  const screened = screen.beside(config, ctx, value);
  return screened === value ? params : { ...params, data: screened.data };
}

/** A task (or its status notification's params) with its `statusMessage` screened. */
export function screenTask<T extends { statusMessage?: string | undefined }>(
  screen: ResultScreen,
  config: GatewayConfig,
  ctx: FilterContext,
  task: T,
): T {
  if (typeof task.statusMessage !== "string") return task;
  const value = { statusMessage: task.statusMessage };
  const screened = screen.beside(config, { ...ctx, part: "task" }, value);
  return screened === value ? task : { ...task, statusMessage: screened.statusMessage };
}
