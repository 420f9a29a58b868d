/**
 * The one transfer budget of a script run: the cumulative UTF-8 JSON bytes of every value handed
 * into the script (tool results, tool lists, host-function answers). The call broker is the only
 * place that charges it. A value that would pass it is refused and costs nothing, so a later,
 * smaller value may still fit; upstream side effects of the refused call may already have
 * happened.
 */
import { Buffer } from "node:buffer";
import { GatewayError } from "../../shared/errors.ts";

/** The call error code of a refused value (what `tools.call` answers in `error.code`). */
export const TOO_LARGE_CODE = "intermediate_result_too_large";

/** UTF-8 bytes of a value's JSON text: the unit of the budget. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value ?? null) ?? "null", "utf8");
}

/** A run's budget. */
export class TransferBudget {
  readonly limit: number;
  #used = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Bytes delivered so far. */
  get used(): number {
    return this.#used;
  }

  /** Charges `bytes` if they fit and returns true; otherwise charges nothing and returns false. */
  take(bytes: number): boolean {
    if (this.#used + bytes > this.limit) return false;
    this.#used += bytes;
    return true;
  }

  /** The error a value of `bytes` bytes is refused with (`data.code` is {@link TOO_LARGE_CODE}). */
  refusal(bytes: number): GatewayError {
    return new GatewayError(
      "TOO_LARGE",
      `${TOO_LARGE_CODE}: a result of ${bytes} bytes would pass the script's transfer budget ` +
        `of ${this.limit} bytes (${this.#used} used)`,
      { data: { code: TOO_LARGE_CODE } },
    );
  }
}
