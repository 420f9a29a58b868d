/**
 * The load clients' connections, shared by `./client.ts` (one cell) and `./paired-client.ts`
 * (windows alternating between servers): SDK 1.x sessions over streamable HTTP or the 2025 SSE
 * transport, a stdio child, or SDK v2 clients pinned to 2026-07-28 for the stateless era.
 */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { LoadSpec } from "./load.ts";

/** What a call loop needs of a client, whichever SDK line it comes from. */
export interface Caller {
  callTool(
    params: { name: string; arguments: Record<string, unknown> },
  ): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** The callers of one target, and how to end them (HTTP sessions with DELETE, then close). */
export interface Callers {
  callers: Caller[];
  close(): Promise<void>;
}

/**
 * One SDK client per session; stdio has one session per process, so its loops share one. A
 * 2026-07-28 client has no session: each of its loops is one client sending stateless requests.
 */
export async function connectCallers(
  target: LoadSpec["target"],
  sessions: number,
): Promise<Callers> {
  const made: Caller[] = [];
  // HTTP sessions, ended with DELETE so servers do not keep them until idle expiry.
  const transports: StreamableHTTPClientTransport[] = [];
  const close = async () => {
    await Promise.all(transports.map((t) => t.terminateSession().catch(() => {})));
    await Promise.all([...new Set(made)].map((c) => c.close().catch(() => {})));
  };
  const each = (connect: () => Promise<Caller>) =>
    Promise.all(Array.from({ length: sessions }, async () => {
      const caller = await connect();
      made.push(caller);
      return caller;
    }));
  const make = () => new Client({ name: "bench-client", version: "1.0.0" });
  if (target.kind === "stdio") {
    const client = make();
    await client.connect(
      new StdioClientTransport({ command: target.command, args: target.args, stderr: "ignore" }),
    );
    made.push(client);
    return { callers: Array.from({ length: sessions }, () => client), close };
  }
  const url = new URL(target.url);
  if (target.kind === "sse") {
    return {
      callers: await each(async () => {
        const client = make();
        await client.connect(new SSEClientTransport(url));
        return client;
      }),
      close,
    };
  }
  if (target.era === "2026-07-28") {
    return {
      callers: await each(async () => {
        const client = new ModernClient({ name: "bench-client", version: "1.0.0" }, {
          versionNegotiation: { mode: { pin: "2026-07-28" } },
        });
        await client.connect(new ModernTransport(url));
        return client;
      }),
      close,
    };
  }
  return {
    callers: await each(async () => {
      const client = make();
      const transport = new StreamableHTTPClientTransport(url);
      await client.connect(transport);
      transports.push(transport);
      return client;
    }),
    close,
  };
}
