/**
 * Lua result filters (`filters: [{ lua: FILE }]`): the file defines `function filter(result,
 * ctx)` and runs in the script sandbox with its limits (time, memory), on a fresh environment
 * per call, so a filter never sees another call's data. It returns the result (possibly
 * changed); raising an error blocks the call with the error's text as the reason. A filter that
 * hits a limit, crashes or returns no table fails the call: the result never passes unscreened.
 * `ctx` holds `kind` ("tool", "resource" or "prompt"), `server`, `tool`, `uri` or `prompt`, and `token` (the
 * caller's token name, never its value).
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import type { FilterContext, JsonObject, ResultFilter } from "../../gateway/mod.ts";
import { MAX_DEPTH, type ScriptHost } from "../../scripting/mod.ts";
import { GatewayError, messageOf } from "../../shared/errors.ts";
import { sameJson } from "./same-json.ts";

/** Loads the file in the run's environment, then hands the call's data to its `filter`. */
const FILTER_MAIN = String.raw`
local src, file, result, ctx = FILTER_SOURCE, FILTER_FILE, FILTER_RESULT, FILTER_CTX
FILTER_SOURCE, FILTER_FILE, FILTER_RESULT, FILTER_CTX = nil, nil, nil, nil
local chunk, err = load(src, '=' .. file)
if not chunk then error(err, 0) end
chunk()
if type(filter) ~= 'function' then
  return { problem = file .. ' defines no function filter(result, ctx)' }
end
local out = filter(result, ctx)
if type(out) ~= 'table' then
  return { problem = 'filter returned ' .. type(out) .. '; return the result (a table)' }
end
return { result = out }
`;

/** A Lua file as a {@link ResultFilter}. */
export class LuaFilter implements ResultFilter {
  readonly name: string;
  readonly #host: ScriptHost;
  readonly #file: string;
  readonly #source: string;

  /** Reads the file now (on each config load): a missing file fails the config's calls. */
  constructor(host: ScriptHost, spec: { name: string; file: string }) {
    this.name = spec.name;
    this.#host = host;
    this.#file = basename(spec.file);
    try {
      this.#source = readFileSync(spec.file, "utf8");
    } catch (err) {
      throw new GatewayError(
        "CONFIG_INVALID",
        `filter ${spec.name}: cannot read ${spec.file}: ${messageOf(err)}`,
      );
    }
  }

  async apply(value: JsonObject, ctx: FilterContext): Promise<JsonObject> {
    const outcome = await this.#host.run(FILTER_MAIN, {
      globals: {
        FILTER_SOURCE: this.#source,
        FILTER_FILE: this.#file,
        FILTER_RESULT: value,
        FILTER_CTX: {
          kind: ctx.kind,
          server: ctx.server,
          [ctx.kind === "resource" ? "uri" : ctx.kind]: ctx.name,
          ...(ctx.caller && ctx.caller.tokenName !== null ? { token: ctx.caller.tokenName } : {}),
        },
      },
      chunkName: "filter",
      // On its call's depth: a filter never waits for a slot its own caller's script holds.
      depth: Math.min(ctx.depth, MAX_DEPTH),
      owner: ctx.caller?.tokenName ?? null,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    if (outcome.ok) {
      const { result, problem } = outcome.value as { result?: unknown; problem?: string };
      if (typeof result !== "object" || result === null || Array.isArray(result)) {
        throw new GatewayError("SCRIPT_ERROR", `filter ${this.name}: ${problem ?? "no result"}`);
      }
      // Unchanged by the filter: the object that arrived goes on (same key order, same text).
      return sameJson(result, value) ? value : result as JsonObject;
    }
    if (outcome.limit) {
      throw new GatewayError(
        outcome.limit === "crash" ? "SCRIPT_ERROR" : "SCRIPT_LIMIT",
        `filter ${this.name} stopped: ${outcome.message}`,
        { data: { limit: outcome.limit } },
      );
    }
    // The filter's own error() is its verdict: the call is refused with that reason.
    const reason = outcome.line === undefined
      ? outcome.message
      : outcome.message.replace(/^[^:\n]*:\d+: /, "");
    throw new GatewayError("FILTER_BLOCKED", `blocked by filter ${this.name}: ${reason}`, {
      data: { reason },
    });
  }
}
