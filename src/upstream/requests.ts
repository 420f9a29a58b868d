/**
 * @module The requests of one upstream in flight: each goes out through its connection's caller
 * under the resend rule (`./resend.ts`), counted until it settles (a graceful drain waits for
 * the count), marked as its call's own on a 2025 streamable HTTP connection (what the server asks
 * on that call's stream goes to that call's client, `./stream-calls.ts`), and a failure under a
 * credential that needs a login is told as how to log in.
 *
 * A request allocates one promise here and no closure: the two settle handlers are made once, and
 * the marking's closure is made only for the calls that are marked.
 */
import type { CallContext } from "../shared/call-context.ts";
import type { RequestTerms } from "./caller.ts";
import { type Line, send } from "./resend.ts";
import { sendingFor } from "./stream-calls.ts";
import type { UpstreamCore } from "./upstream-core.ts";

/** The requests of one upstream (its own connection, or its 2025 side's). */
export class Requests {
  #inFlight = 0;
  readonly #core: UpstreamCore;
  readonly #line: Line;

  constructor(core: UpstreamCore, line: Line) {
    this.#core = core;
    this.#line = line;
  }

  /** Requests sent and not yet settled. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Sends `method`; rejects with the errors of `./call-errors.ts`, or the login to do. */
  send(
    method: string,
    params: Record<string, unknown> | undefined,
    call: CallContext,
    terms: RequestTerms,
  ): Promise<unknown> {
    this.#inFlight++;
    let sent: Promise<unknown>;
    try {
      sent = call.client && this.#core.streams
        ? this.#marked(method, params, call, terms)
        : send(this.#line, method, params, call, terms);
    } catch (err) {
      sent = Promise.reject(err);
    }
    return sent.then(this.#sent, this.#unsent);
  }

  /** Sent as `call`'s own, so its stream's requests are known as its (`./stream-calls.ts`). */
  #marked(
    method: string,
    params: Record<string, unknown> | undefined,
    call: CallContext,
    terms: RequestTerms,
  ): Promise<unknown> {
    return sendingFor(call, method, () => send(this.#line, method, params, call, terms));
  }

  readonly #sent = (result: unknown): unknown => {
    this.#inFlight--;
    return result;
  };

  readonly #unsent = (err: unknown): never => {
    this.#inFlight--;
    // The credential failed under this call (a refused refresh, a 401): say how to log in.
    const credential = this.#core.credential;
    if (credential?.needsLogin) throw credential.loginError();
    throw err;
  };
}
