/**
 * Raw event-stream clients for the stream-guard tests: the bytes of a 2025 `GET /mcp` and of a
 * 2026-07-28 `subscriptions/listen`, sent over a socket the test controls — one that stops
 * reading (as a stuck client does) and can later read on to see whether the stream ended.
 */
import { connect, type Socket } from "node:net";
import { httpBytes } from "../security/_http.ts";

const MODERN = "2026-07-28";

/** The request bytes of a 2025 session's `GET /mcp` stream. */
export function getStreamBytes(sessionId: string, headers: Record<string, string> = {}) {
  return httpBytes("GET", "/mcp", {
    host: "127.0.0.1",
    accept: "text/event-stream",
    "mcp-session-id": sessionId,
    ...headers,
  });
}

/** The request bytes of a 2026-07-28 `subscriptions/listen` for `uris` (tool list changes too). */
export function listenBytes(uris: string[], headers: Record<string, string> = {}) {
  return httpBytes("POST", "/mcp", {
    host: "127.0.0.1",
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN,
    "mcp-method": "subscriptions/listen",
    ...headers,
  }, listenBody(uris));
}

/** The JSON body of a `subscriptions/listen` for `uris`. */
export function listenBody(uris: string[]): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "subscriptions/listen",
    params: {
      notifications: { toolsListChanged: true, resourceSubscriptions: uris },
      _meta: {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": { name: "stream-test", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  });
}

/** A request whose response the client reads only when told to. */
export interface RawStream {
  /** Bytes read so far. */
  readonly text: string;
  /** Stops reading: the socket's buffers fill and the server meets back-pressure. */
  pause(): void;
  /** Reads on; resolves true once the server ends the response (or the socket) within `ms`. */
  ended(ms: number): Promise<boolean>;
  close(): void;
}

/** Sends `bytes` to 127.0.0.1:`port` and reads the response as it comes (until paused). */
export function rawStream(port: number, bytes: Uint8Array): RawStream {
  const socket: Socket = connect({ host: "127.0.0.1", port });
  let text = "";
  let done = false;
  const finished = new Promise<void>((resolve) => {
    const end = () => {
      done = true;
      resolve();
    };
    socket.on("end", end);
    socket.on("close", end);
    socket.on("error", end);
  });
  socket.on("data", (d: Buffer) => {
    text += d.toString("utf8");
    // A chunked response ends with its zero-length chunk, whether or not the socket closes.
    if (text.endsWith("\r\n0\r\n\r\n")) socket.destroy();
  });
  socket.write(bytes);
  return {
    get text() {
      return text;
    },
    pause: () => void socket.pause(),
    async ended(ms) {
      socket.resume();
      if (done) return true;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)));
      const result = await Promise.race([finished.then(() => true as const), late]);
      clearTimeout(timer);
      return result;
    },
    close: () => void socket.destroy(),
  };
}
