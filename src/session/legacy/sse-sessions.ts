/**
 * Legacy SSE sessions (protocol 2024-11-05): `GET /sse` opens one, with its one event stream,
 * and `POST /message?sessionId=…` carries its client's messages (transport: `./sse.ts`).
 */
import { callerOf, type RequestIdentity } from "../door.ts";
import { newActivity } from "./activity.ts";
import { authInfoOf } from "../caller-auth.ts";
import { SessionTransport } from "./session-transport.ts";
import { createSessionServer } from "./server.ts";
import {
  sessionLink,
  type SessionTable,
  shareRefusal,
  type SseSession,
  streamGuard,
} from "./session-table.ts";
import { jsonError, SseSessionTransport } from "./sse.ts";
import { guardStream } from "../../shared/stream-guard.ts";

/** Handles `GET /sse`: opens a legacy session whose endpoint is `messagePath`. */
export async function openSse(
  table: SessionTable,
  who: RequestIdentity,
  messagePath: string,
): Promise<Response> {
  const { gateway } = table;
  const share = shareRefusal(table, who);
  if (share) return share;
  const transport = new SseSessionTransport(messagePath);
  const standing = { who };
  const link = sessionLink(table, transport.sessionId, standing);
  const { server } = createSessionServer(gateway, link, { rawResults: transport.rawResults });
  const session: SseSession = {
    id: transport.sessionId,
    kind: "sse",
    link,
    transport,
    close: () => server.close(),
    tokenName: who.tokenName,
    profile: who.profile ?? null,
    standing,
    // The event stream alone does not keep a legacy session alive (it is open for the
    // session's whole life): it idles out like a streamable one, counting messages posted
    // and answers sent; a request in flight keeps it.
    activity: newActivity(),
  };
  table.sessions.set(session.id, session);
  gateway.log.debug("session opened", { kind: "sse", tokenName: who.tokenName });
  // Its one event stream carries answers too: only progress and log messages may be dropped.
  const response = guardStream(transport.response(), streamGuard(table, "sse", who));
  const wire = new SessionTransport(transport, session.activity);
  await server.connect(wire);
  wire.onclose = chain(wire.onclose, () => table.sessions.delete(session.id));
  return response;
}

/** Handles `POST /message?sessionId=…` as `who`. */
export function handleSseMessage(
  table: SessionTable,
  req: Request,
  sessionId: string | null,
  who: RequestIdentity,
): Promise<Response> | Response {
  const { gateway } = table;
  const s = sessionId ? table.sessions.get(sessionId) : undefined;
  if (s?.kind !== "sse") return jsonError(404, -32001, "Session not found");
  if (s.tokenName !== who.tokenName) {
    return jsonError(403, -32003, "Session belongs to another token");
  }
  s.activity.lastSeen = Date.now();
  // `/message` names no profile: the session's own (the `/sse/<profile>` it was opened on)
  // narrows every request posted to it.
  const asSession = { ...who, profile: s.profile };
  s.standing.who = asSession;
  return s.transport.handlePost(
    req,
    gateway.config.gateway.maxBatch,
    authInfoOf(callerOf(gateway, asSession, () => s.id)),
  );
}

function chain(first: (() => void) | undefined, second: () => void): () => void {
  return () => {
    first?.();
    second();
  };
}
