/**
 * @module The one security chain. Every request but the health probes is judged here, in this
 * order: OAuth discovery (answered before any check), origin and host, auth (bearer tokens, OAuth
 * access tokens as their fallback, the status-page cookie on the status routes), the token's
 * request rate. Each step is a plain function over the request; {@link RequestChain.judge} runs
 * them and answers a refusal, or the identity. Hono's middleware ({@link RequestChain.middleware})
 * and the lean `POST /mcp` pre-dispatch (`../app.ts`) are both derived from it, so a check is
 * written once and no road can skip one. The stdio door has no HTTP request to judge: its caller
 * is the process that started the gateway, and its calls meet the call gate like every other.
 */
import type { MiddlewareHandler } from "hono";
import type { OAuthConfig } from "../../config/mod.ts";
import type { Gateway } from "../../gateway/mod.ts";
import { GatewayError } from "../../shared/errors.ts";
import type { AppEnv } from "../app.ts";
import { errorResponse } from "../error-answer.ts";
import { ANONYMOUS, type RequestIdentity } from "../../session/mod.ts";
import { addChallenge, discoveryAnswer } from "./oauth/mod.ts";

/** A request every check has let through with no one named yet (auth off). */

/**
 * One step of the chain: the identity so far (possibly replaced), or a thrown refusal (a
 * `GatewayError`). A step that needs no wait answers synchronously: the hot path pays no tick.
 */
export type Check = (
  request: Request,
  path: string,
  who: RequestIdentity,
) => RequestIdentity | Promise<RequestIdentity>;

/** What the chain is built from. */
export interface RequestChainOptions {
  gateway: Gateway;
  /** The live OAuth section (`null` = off): the discovery answers and the 401 challenge. */
  oauth: () => OAuthConfig | null;
  /** The checks, in order (origin/host, auth, rate). */
  checks: readonly Check[];
}

/** The ordered checks of every request, and the answers to what they refuse. */
export class RequestChain {
  readonly #gateway: Gateway;
  readonly #oauth: () => OAuthConfig | null;
  readonly #checks: readonly Check[];
  /** The chain as hono middleware (one handler): refusals answered, `identity` set. */
  readonly middleware: MiddlewareHandler<AppEnv>;

  constructor(options: RequestChainOptions) {
    this.#gateway = options.gateway;
    this.#oauth = options.oauth;
    this.#checks = options.checks;
    this.middleware = async (c, next) => {
      const request = c.req.raw;
      const judged = await this.judge(request, c.req.path);
      if (judged instanceof Response) return judged;
      c.set("identity", judged);
      await next();
      // A route's own refusal (a 401 of the sign-in form, a 403 for an OAuth scope).
      this.challenge(c.res, c.error, request);
      return undefined;
    };
  }

  /**
   * Judges `request` (at `path`, its URL's path): the answer when a step answers or refuses it
   * (the refusal with its challenge), else who sent it. A promise only once a check answers
   * one (a token verified remotely, a shared rate): most requests are judged without a tick.
   */
  judge(
    request: Request,
    path: string,
  ): Response | RequestIdentity | Promise<Response | RequestIdentity> {
    const discovery = discoveryAnswer(this.#oauth(), request.method, path);
    if (discovery !== null) return discovery;
    let who = ANONYMOUS;
    const checks = this.#checks;
    try {
      for (let i = 0; i < checks.length; i++) {
        const next = checks[i]!(request, path, who);
        if (next instanceof Promise) return this.#judgeFrom(i + 1, next, request, path);
        who = next;
      }
      return who;
    } catch (err) {
      return this.refusal(err, request, path);
    }
  }

  /** {@link judge} on from check `i`, once the check before it answered `pending`. */
  async #judgeFrom(
    i: number,
    pending: Promise<RequestIdentity>,
    request: Request,
    path: string,
  ): Promise<Response | RequestIdentity> {
    const checks = this.#checks;
    try {
      let who = await pending;
      for (; i < checks.length; i++) {
        const next = checks[i]!(request, path, who);
        who = next instanceof Promise ? await next : next;
      }
      return who;
    } catch (err) {
      return this.refusal(err, request, path);
    }
  }

  /** The answer to `err`, thrown while serving `request`: the error answer and its challenge. */
  refusal(err: unknown, request: Request, path: string): Response {
    const response = errorResponse(this.#gateway, err, path);
    this.challenge(response, err, request);
    return response;
  }

  /** Puts the auth challenge on an answer that refuses the request (401, OAuth's 403). */
  challenge(response: Response, err: unknown, request: Request): void {
    // Only a 401 or a 403 may get one: every other answer pays no closure for the header read
    // (nor, the closure being made in a function of its own, the scope it would keep).
    const status = response.status;
    if (status !== 401 && status !== 403) return;
    this.#challenge(response, err, request);
  }

  #challenge(response: Response, err: unknown, request: Request): void {
    addChallenge(this.#oauth(), response, err, () => request.headers.get("authorization"));
  }
}

/**
 * The body-size check of the routes that read a body (`/mcp`, `/message`), on the declared
 * length: `TOO_LARGE` when `Content-Length` states more than `max` bytes. A body of unstated
 * length is counted as it is read (hono's `bodyLimit` on those routes, the same refusal).
 */
export function checkDeclaredBody(request: Request, max: number): void {
  const declared = request.headers.get("content-length");
  if (declared !== null && parseInt(declared, 10) > max) throw tooLarge(max);
}

/** The refusal of a body over `max` bytes. */
export function tooLarge(max: number): GatewayError {
  return new GatewayError("TOO_LARGE", `request body over ${max} bytes`);
}
