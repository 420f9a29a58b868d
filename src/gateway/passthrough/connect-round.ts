/**
 * A per-user server's connect link offered inside the call that needs it: a 2025-11-25 client
 * that declared `elicitation.url` gets an `elicitation/create` in URL mode, a 2026-07-28 client
 * the same as an `input_required` round of its call; once the client accepts and the login's
 * callback has arrived, the 2025 session hears `notifications/elicitation/complete` for its
 * elicitation and the call is sent again, once. Any other client (or a declined or
 * unanswered elicitation) gets the tool error that names the link.
 */
import { GatewayError } from "../../shared/errors.ts";
import { acceptsElicitation } from "../../shared/protocol-checks.ts";
import { LOGIN_TTL_MS, type UpstreamCredential } from "../../upstream/oauth/mod.ts";
import type { Upstream } from "../../upstream/mod.ts";
import type { CallContext } from "../types.ts";
import type { PassthroughHub } from "./hub.ts";
import { missingCapability } from "./capabilities.ts";
import { answerRound } from "./server-requests.ts";
import { signalOf } from "../../shared/call-context.ts";

/**
 * True when a call of `identity` to `upstream` may fail for want of a login that a connect
 * link mends: only an OAuth upstream's credential names one, and only for a named identity.
 * Every other call needs no round (a caller may then skip {@link withConnectRound}).
 */
export function mayOfferConnect(upstream: Upstream, identity: string | null): boolean {
  const config = upstream.config;
  return identity !== null && config.kind === "http" && config.oauth !== null;
}

/**
 * Runs `attempt`; when it fails for want of this identity's login and the client behind `call`
 * can open a URL, asks it to, waits for the login, and runs `attempt` once more.
 */
export function withConnectRound<T>(
  hub: PassthroughHub,
  upstream: Upstream,
  call: CallContext,
  identity: string | null,
  credential: (identity: string) => UpstreamCredential | undefined,
  attempt: () => Promise<T>,
): Promise<T> {
  if (identity === null || !mayOfferConnect(upstream, identity)) return attempt();
  return connectRound(hub, upstream, call, identity, credential, attempt);
}

async function connectRound<T>(
  hub: PassthroughHub,
  upstream: Upstream,
  call: CallContext,
  identity: string,
  credential: (identity: string) => UpstreamCredential | undefined,
  attempt: () => Promise<T>,
): Promise<T> {
  try {
    return await attempt();
  } catch (err) {
    const url = err instanceof GatewayError ? err.data?.connectUrl : undefined;
    if (typeof url !== "string") throw err;
    const client = call.client;
    if (!client || client.closed || !client.askable) throw err;
    const params = {
      mode: "url",
      message: `Connect your account for server ${upstream.name}, then come back.`,
      url,
      elicitationId: crypto.randomUUID(),
    };
    const request = { method: "elicitation/create", params };
    // A client that did not declare URL elicitation gets the error naming the link, unasked
    // (every channel would refuse to ask it).
    if (missingCapability(client.capabilities ?? {}, request)) throw err;
    const own = credential(identity);
    if (!own) throw err;
    const loggedIn = own.nextLogin();
    const signal = signalOf(call) ?? new AbortController().signal;
    const answer = await answerRound(hub, upstream, call, request.method, params, signal)
      .catch(() => null);
    if (!acceptsElicitation(answer)) throw err;
    await waitFor(loggedIn, signal);
    // The client may close the page it opened (a channel without such notices drops it).
    client.notify(
      "notifications/elicitation/complete",
      { elicitationId: params.elicitationId },
      call.requestId,
    );
    return await attempt();
  }
}

/** `done`, or a rejection when `signal` aborts or the login's lifetime passes. */
function waitFor(done: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new GatewayError("UPSTREAM_TIMEOUT", "the login did not complete in time")),
      LOGIN_TTL_MS,
    );
    const stop = () => {
      clearTimeout(timer);
      reject(new GatewayError("UPSTREAM_UNAVAILABLE", "the call was cancelled"));
    };
    signal.addEventListener("abort", stop, { once: true });
    void done.then(() => {
      clearTimeout(timer);
      signal.removeEventListener("abort", stop);
      resolve();
    });
  });
}
