/**
 * The first thing every request meets, before the lifecycle gate, auth or routing: a request
 * whose URL cannot be parsed, whose `Host` is not a host, or whose absolute-form target names
 * another authority than its `Host` gets `400`; anything a handler throws past its own error
 * handling becomes a bare JSON-RPC `500`. So no runtime error page, stack or file path ever
 * reaches a client, whatever bytes it sends.
 */
import type { Logger } from "../shared/log.ts";
import { messageOf } from "../shared/errors.ts";

type Fetch = (request: Request) => Response | Promise<Response>;

/** Longest `Host` accepted: a 253-character DNS name, a port, and IPv6 brackets. */
const MAX_HOST = 261;
/** RFC 3986 `host [":" port]`: an IP literal in brackets, or reg-name / IPv4 characters. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]+)(?::\d{0,5})?$/;

/** A JSON-RPC error answer with no id and nothing about the server's insides. */
export function plainError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", id: null, error: { code, message } }, { status });
}

/** How many `Host` values a front door remembers as valid (see {@link malformed}). */
const KNOWN_HOSTS_MAX = 32;

/**
 * Why `request` is malformed at the HTTP level, or `null` when it is fine. `known` holds `Host`
 * values seen to be valid and canonical for an `http:` target: a request with one of them whose
 * target is `http://` + that host + a path is fine without a parse (the URL parser fails only
 * in the scheme and the authority; a path, query or fragment never makes it fail). It is filled
 * here, up to {@link KNOWN_HOSTS_MAX} values, so a client sending many hosts only misses it.
 * `host` is the request's `Host`, when the caller has read it already.
 */
export function malformed(
  request: Request,
  known?: Set<string>,
  host: string | null = request.headers.get("host"),
): string | null {
  const target = request.url;
  if (
    host !== null && known?.has(host) && target.startsWith("http://") &&
    target.startsWith(host, 7) && target.charCodeAt(7 + host.length) === 47 // "/"
  ) {
    return null;
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return "the request target or Host header is not a valid URL";
  }
  if (host === null) return null;
  if (host.length > MAX_HOST || !HOST.test(host)) return "the Host header is not a valid host";
  // The common case, without a second parse: `Host` is the http target's host exactly as the URL
  // parser writes it, and parsing `http://` + that gives it back unchanged. (Not for https:
  // there `a:80` keeps its port, and `http://a:80` would not.)
  if (url.protocol === "http:" && host === url.host) {
    if (known !== undefined && known.size < KNOWN_HOSTS_MAX) known.add(host);
    return null;
  }
  let hostUrl: URL;
  try {
    hostUrl = new URL(`http://${host}`);
  } catch {
    return "the Host header is not a valid host";
  }
  if (hostUrl.host !== url.host) return "the request target names another host than Host";
  return null;
}

/**
 * An HTTP/1.0 request may come without `Host` — health checkers send such probes (HAProxy's
 * default `option httpchk` does). Some runtimes then hand over a relative URL (`/readyz`); a
 * `GET` or `HEAD` like that is read as addressed to this server, anything else stays malformed.
 */
function withoutHost(request: Request): Request {
  if (request.method !== "GET" && request.method !== "HEAD") return request;
  if (URL.canParse(request.url)) return request;
  // The path, whatever the runtime put before it (nothing, or a scheme with an empty host).
  const path = /^(?:[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]*)?(\/[^\s]*)$/.exec(request.url)?.[1];
  return path ? new Request(new URL(path, "http://localhost"), request) : request;
}

/** Wraps the server's fetch handler with the checks above and a last-resort error answer. */
export function frontDoor(handler: Fetch, log: Logger): (request: Request) => Promise<Response> {
  const known = new Set<string>();
  return async function frontDoor(incoming) {
    // `Host` is read once here, for both checks.
    const host = incoming.headers.get("host");
    const request = host === null ? withoutHost(incoming) : incoming;
    const problem = malformed(request, known, host);
    if (problem !== null) return plainError(400, -32600, `Bad Request: ${problem}`);
    try {
      return await handler(request);
    } catch (err) {
      log.error("request failed", { error: messageOf(err) });
      return plainError(500, -32603, "Internal error (details are in the gateway's log)");
    }
  };
}
