/**
 * The one way the gateway fetches a document it will parse — OAuth protected-resource and
 * authorization-server metadata, JWKS, client registrations, token responses — from a server it
 * does not control. Each document is bounded:
 * - in **scheme**: `https:`, or `http:` only to a loopback host (tests and local issuers). A
 *   `file:` or `data:` URL named by a hostile server's `resource_metadata` is never read, and no
 *   redirect leaves these schemes;
 * - in **time**: the whole exchange, redirects and body included;
 * - in **bytes**: the body is read up to the bound and refused past it, so a server that answers
 *   with an endless or huge document costs the gateway that bound, not its memory.
 */
import { GatewayError } from "./errors.ts";
import { isLoopback } from "./loopback.ts";

/** A fetch function in the shape the SDK's OAuth client and jose take. */
export type DocumentFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** The bounds of {@link documentFetch}. */
export interface DocumentBounds {
  /** Most bytes one document's body may have. */
  maxBytes: number;
  /** Most milliseconds one fetch may take, body included. */
  timeoutMs: number;
}

/** Metadata, keys and token answers are small: a generous bound for each. */
export const DOCUMENT_BOUNDS: DocumentBounds = { maxBytes: 1024 * 1024, timeoutMs: 15_000 };

const MAX_REDIRECTS = 5;

/** Why `url` may not be fetched as a document, or `null`. */
export function documentUrlProblem(url: URL): string | null {
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && isLoopback(url.hostname)) return null;
  return url.protocol === "http:"
    ? `${url.href} is plain http beyond loopback (only https is fetched)`
    : `${url.href} is not an https URL`;
}

/** A fetch bounded as the module comment says. */
export function documentFetch(bounds: DocumentBounds = DOCUMENT_BOUNDS): DocumentFetch {
  return async (input, init) => {
    const signal = init?.signal
      ? AbortSignal.any([init.signal, AbortSignal.timeout(bounds.timeoutMs)])
      : AbortSignal.timeout(bounds.timeoutMs);
    let url = new URL(String(input instanceof Request ? input.url : input));
    let request: RequestInit = { ...init, signal, redirect: "manual" };
    for (let hop = 0;; hop++) {
      const problem = documentUrlProblem(url);
      if (problem) throw new GatewayError("FORBIDDEN", `refused to fetch ${problem}`);
      const res = await fetch(url, request);
      const location = res.headers.get("location");
      if (res.status < 300 || res.status > 399 || location === null) {
        return await bounded(res, url, bounds, signal);
      }
      await res.body?.cancel().catch(() => {});
      if (hop >= MAX_REDIRECTS) {
        throw new GatewayError(
          "UPSTREAM_ERROR",
          `${url.href}: more than ${MAX_REDIRECTS} redirects`,
        );
      }
      url = new URL(location, url);
      // A 303 (and a 301/302 after a POST, as browsers do) continues as a GET without a body.
      if (
        res.status === 303 ||
        ((res.status === 301 || res.status === 302) && request.method === "POST")
      ) {
        const { body: _body, ...rest } = request;
        request = { ...rest, method: "GET" };
      }
    }
  };
}

/** `res` with its body read whole, at most `bounds.maxBytes` of it. */
async function bounded(
  res: Response,
  url: URL,
  bounds: DocumentBounds,
  signal: AbortSignal,
): Promise<Response> {
  const tooLarge = () =>
    new GatewayError(
      "TOO_LARGE",
      `${url.href} answered with a document over ${bounds.maxBytes} bytes`,
    );
  const declared = Number(res.headers.get("content-length") ?? "");
  if (declared > bounds.maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    const reader = res.body.getReader();
    for (;;) {
      if (signal.aborted) {
        await reader.cancel().catch(() => {});
        throw signal.reason;
      }
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > bounds.maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.byteLength;
  }
  const headers = new Headers(res.headers);
  headers.delete("content-encoding");
  headers.delete("content-length");
  const answer = new Response(res.status === 204 || res.status === 304 ? null : body, {
    status: res.status,
    statusText: res.statusText,
    headers,
  });
  // The SDK reads `url` of some answers (where a metadata document came from).
  Object.defineProperty(answer, "url", { value: url.href });
  return answer;
}

/** The bounded fetch of the OAuth client's documents (login, refresh, exchange). */
export const fetchDocument: DocumentFetch = documentFetch();

/** The gateway's own issuer metadata and keys: the same bounds, 5 s. */
export const fetchIssuerDocument: DocumentFetch = documentFetch({
  ...DOCUMENT_BOUNDS,
  timeoutMs: 5_000,
});
