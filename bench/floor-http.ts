/**
 * The HTTP half both floors share (`./floor.ts`, `./floor-core.ts`): `Bun.serve` on `--listen`,
 * answering by itself what the bench's clients need beyond their calls — `initialize` with an
 * `Mcp-Session-Id` that later requests must present, `server/discover` for a 2026-07-28 client,
 * 202 for notifications, DELETE — and handing every other request to `call`. No auth, no
 * validation. It imports nothing, so a floor costs no more memory than its own code. Prints
 * `{"port":N}` on stdout once listening. It is bench code, so it may use `Bun.*`.
 */

/** The slice of Bun's API used here (the project compiles without Bun's type package). */
declare const Bun: {
  serve(options: {
    hostname: string;
    port: number;
    fetch(request: Request): Promise<Response>;
  }): { port: number };
};

/** A JSON-RPC request as a floor reads it. */
export type FloorMessage = {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
};

/**
 * Serves `call` for every request but the ones above; `sessionId` is the request's
 * `Mcp-Session-Id` (`null` for a 2026-07-28 request).
 */
export function serveFloor(
  name: string,
  call: (message: FloorMessage, sessionId: string | null) => Promise<Response>,
): void {
  const listen = process.argv[process.argv.indexOf("--listen") + 1] ?? "127.0.0.1:0";
  const serverInfo = { name, version: "1.0.0" };
  const sessions = new Set<string>();
  const server = Bun.serve({
    hostname: listen.slice(0, listen.lastIndexOf(":")),
    port: Number(listen.split(":").pop()),
    async fetch(request) {
      const sid = request.headers.get("mcp-session-id");
      if (sid !== null && !sessions.has(sid)) return new Response(null, { status: 404 });
      if (request.method === "DELETE") {
        if (sid) sessions.delete(sid);
        return new Response(null, { status: 200 });
      }
      if (request.method !== "POST") return new Response(null, { status: 405 });
      const message = await request.json() as FloorMessage;
      if (message.id === undefined) return new Response(null, { status: 202 });
      if (message.method === "initialize") {
        const session = crypto.randomUUID();
        sessions.add(session);
        return jsonAnswer({
          jsonrpc: "2.0",
          id: message.id,
          result: {
            protocolVersion: message.params?.protocolVersion,
            capabilities: { tools: {} },
            serverInfo,
          },
        }, { "mcp-session-id": session });
      }
      if (message.method === "server/discover") {
        return jsonAnswer({
          jsonrpc: "2.0",
          id: message.id,
          result: {
            supportedVersions: ["2026-07-28"],
            capabilities: { tools: {} },
            serverInfo,
            resultType: "complete",
          },
        });
      }
      return await call(message, sid);
    },
  });
  console.log(JSON.stringify({ port: server.port }));
}

/** `body` as a JSON answer. */
export function jsonAnswer(body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    headers: { "content-type": "application/json", ...headers },
  });
}
