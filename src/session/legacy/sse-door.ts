/**
 * Legacy SSE (protocol 2024-11-05) as a door of its own, asked first: `GET /sse` (or
 * `/sse/<profile>`) opens a session with its one event stream, and `POST /message?sessionId=…`
 * carries that session's client messages (./sse-sessions.ts). It decides from the method and the
 * path alone, so a `/mcp` request costs it two comparisons, and no request of its paths ever
 * reaches another door (the 2026-07-28 classifier would read a `/message` body otherwise).
 */
import type { Door } from "../door.ts";
import type { SessionRegistry } from "./sessions.ts";

/** What the SSE door serves: a new session's stream, or one message of an open session. */
export type SseTicket = "open" | "message";

/** The path the legacy SSE endpoint event names: its sessions' messages are posted there. */
export const SSE_MESSAGE_PATH = "/message";

/** The legacy SSE door over the 2025 door's sessions. */
export function sseDoor(sessions: SessionRegistry): Door<SseTicket> {
  return {
    accepts: (request, path) => {
      if (request.method === "GET" && (path === "/sse" || path.startsWith("/sse/"))) return "open";
      if (request.method === "POST" && path === SSE_MESSAGE_PATH) return "message";
      return false;
    },
    fetch: async (request, identity, ticket) => {
      if (ticket === "open") return await sessions.openSse(identity, SSE_MESSAGE_PATH);
      const sessionId = new URL(request.url).searchParams.get("sessionId");
      return await sessions.handleSseMessage(request, sessionId, identity);
    },
  };
}
