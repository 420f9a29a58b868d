/**
 * The bounded name a tool call is counted under. A client can send any tool name, and every new
 * name is a new series held for the life of the process (in `/metrics` and the console's
 * charts): calls to names the gateway does not know count as {@link UNKNOWN_TOOL_LABEL}, and
 * after a ceiling of distinct names every further one counts as {@link OTHER_TOOL_LABEL}.
 */
import type { CallRecord } from "../gateway/mod.ts";

/** The label of calls to names the gateway does not know (client-chosen names). */
export const UNKNOWN_TOOL_LABEL = "unknown";
/** The label of calls to known tools once the ceiling is reached. */
export const OTHER_TOOL_LABEL = "other";

/** The labels handed out so far, up to a ceiling. */
export class ToolLabels {
  readonly #seen = new Set<string>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  /**
   * The label of `call`. A `TOOL_NOT_FOUND` call carries whatever name the client sent; every
   * other call names a tool of the catalog (a `FORBIDDEN` one too: existence is checked first),
   * which the ceiling still bounds in case catalogs churn.
   */
  of(call: CallRecord): string {
    if (call.code === "TOOL_NOT_FOUND") return UNKNOWN_TOOL_LABEL;
    if (this.#seen.has(call.name)) return call.name;
    if (this.#seen.size >= this.#max) return OTHER_TOOL_LABEL;
    this.#seen.add(call.name);
    return call.name;
  }
}
