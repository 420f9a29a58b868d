/**
 * One switch over the closed union of upstream kinds: a connected SDK `Client` for a stdio
 * child, a streamable HTTP endpoint, or a legacy SSE endpoint (tried after streamable HTTP when
 * `transport: auto`).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { HttpServerConfig, ServerConfig } from "../config/mod.ts";
import { GatewayError, messageOf } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";
import { LazySchemaValidator } from "../shared/schema-validator.ts";
import { NAME, VERSION } from "../version.ts";
import { childEnv } from "./child-env.ts";
import { StdioTransport } from "./stdio.ts";

/** What the gateway tells upstreams it can do: it relays these to the calling client. */
export const UPSTREAM_CAPABILITIES: ClientCapabilities = {
  sampling: {},
  elicitation: {},
};

/**
 * The capabilities offered to one server: `roots` only when its config says where they come
 * from (a fixed list the gateway answers itself, or each session's client for a session-isolated
 * server); without `roots:` the server keeps the folders its own arguments give it.
 */
export function capabilitiesFor(server: ServerConfig): ClientCapabilities {
  if (server.roots === null) return UPSTREAM_CAPABILITIES;
  return {
    ...UPSTREAM_CAPABILITIES,
    roots: server.roots === "client" ? { listChanged: true } : {},
  };
}

/** A connected client and the transport kind that worked. */
export interface Connection {
  client: Client;
  transport: Transport;
  kind: "stdio" | "streamable-http" | "sse";
}

/** One connect attempt as its owner controls it. */
export interface ConnectAttempt {
  /** Aborting ends the attempt at once and closes (kills) whatever it started. */
  signal?: AbortSignal;
  /** Told the stdio transport before it starts: its stderr and exit explain a failure. */
  onTransport?(transport: StdioTransport): void;
}

/** Connects to one upstream, giving up after `connectTimeoutMs`. */
export async function connectUpstream(
  server: ServerConfig,
  log: Logger,
  setup: (client: Client) => void,
  attempt: ConnectAttempt = {},
): Promise<Connection> {
  const aborted = attempt.signal?.aborted ? stoppedError(server) : undefined;
  if (aborted) throw aborted;
  if (server.kind === "stdio") {
    const transport = new StdioTransport({ ...server, env: childEnv(server, process.env), log });
    attempt.onTransport?.(transport);
    return { ...(await handshake(server, transport, setup, attempt.signal)), kind: "stdio" };
  }
  if (server.transport !== "sse") {
    try {
      const transport = new StreamableHTTPClientTransport(new URL(server.url), httpOptions(server));
      return {
        ...(await handshake(server, transport, setup, attempt.signal)),
        kind: "streamable-http",
      };
    } catch (err) {
      if (
        server.transport === "streamable-http" || !mayBeLegacySse(err) || attempt.signal?.aborted
      ) throw err;
      log.info("streamable HTTP refused; trying legacy SSE", { error: messageOf(err) });
    }
  }
  const transport = new SSEClientTransport(new URL(server.url), {
    requestInit: { headers: { ...server.headers } },
    eventSourceInit: {
      fetch: (url, init) =>
        fetch(url, {
          ...init,
          headers: { ...server.headers, ...(init?.headers as Record<string, string>) },
        }),
    },
  });
  return { ...(await handshake(server, transport, setup, attempt.signal)), kind: "sse" };
}

function stoppedError(server: ServerConfig): GatewayError {
  return new GatewayError("UPSTREAM_UNAVAILABLE", `server "${server.name}" was stopped`);
}

function httpOptions(server: HttpServerConfig) {
  return { requestInit: { headers: { ...server.headers } } };
}

/** 4xx answers (404/405) are what a legacy SSE-only server gives a streamable HTTP POST. */
function mayBeLegacySse(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === "number" ? code >= 400 && code < 500 : true;
}

async function handshake(
  server: ServerConfig,
  transport: Transport,
  setup: (client: Client) => void,
  signal: AbortSignal | undefined,
): Promise<{ client: Client; transport: Transport }> {
  const client = new Client({ name: NAME, version: VERSION }, {
    capabilities: capabilitiesFor(server),
    jsonSchemaValidator: new LazySchemaValidator(),
  });
  setup(client);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new GatewayError(
            "UPSTREAM_TIMEOUT",
            `no answer to the MCP handshake within ${server.connectTimeoutMs}ms`,
          ),
        ),
      server.connectTimeoutMs,
    );
  });
  // A stop during the handshake must not wait for its timeout: the child is killed now.
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => reject(stoppedError(server));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    await Promise.race([
      client.connect(transport, { timeout: server.connectTimeoutMs }),
      timeout,
      stopped,
    ]);
    return { client, transport };
  } catch (err) {
    await transport.close().catch(() => {});
    throw err;
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}
