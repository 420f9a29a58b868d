/**
 * The 2026-07-28 front door as a {@link Door}: it accepts what the SDK classifies as modern
 * (`classify`, ./classify.ts) and serves it with the modern front, handing on the body and the
 * classification the decision read. The revision has no sessions, so a request that carries
 * `Mcp-Session-Id` is declined from that header alone: it never reaches the classifier, and its
 * body is not read here.
 */
import type { Door } from "../door.ts";
import { type Classification, classify, type ModernTicket } from "./classify.ts";
import type { ModernFront } from "./front.ts";

export type { ModernTicket };

/**
 * The 2026-07-28 door over `front`. `maxBodyBytes` is read per request (the live config's
 * limit, which a reload may change); a body over it is refused before any door is asked.
 */
export function modernDoor(front: ModernFront, maxBodyBytes: () => number): Door<ModernTicket> {
  return {
    accepts: (request) =>
      request.headers.has("mcp-session-id")
        ? false
        : classify(request, maxBodyBytes()).then(admitted),
    fetch: (request, identity, ticket) => front.fetch(request, identity, ticket),
  };
}

/**
 * The ticket of a request classified as modern; for any other `false`, or the readable copy the
 * classifier made when it had read the body (the next door reads that one).
 */
function admitted(door: Classification): ModernTicket | Request | false {
  return door.modern ? door : door.request ?? false;
}
