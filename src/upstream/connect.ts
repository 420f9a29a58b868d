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
import { NAME, VERSION } from "../version.ts";
import { childEnv } from "./child-env.ts";
import type { UpstreamCaller } from "./caller.ts";
import { unavailable } from "./failure.ts";
import { framed } from "./frame.ts";
import { LeanLeg } from "./lean-leg.ts";
import { SdkLeg } from "./sdk-leg.ts";
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

/** A connected client, the transport kind that worked, and the caller chosen for it. */
export interface Connection {
  client: Client;
  transport: Transport;
  kind: "stdio" | "streamable-http" | "sse";
  /** Every request to this upstream goes through it (chosen here, once per connection). */
  caller: UpstreamCaller;
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
    const connected = await handshake(server, transport, setup, attempt.signal);
    return { ...connected, kind: "stdio", caller: leanCaller(server.name, transport) };
  }
  if (server.transport !== "sse") {
    try {
      const transport = new StreamableHTTPClientTransport(new URL(server.url), httpOptions(server));
      const connected = await handshake(server, transport, setup, attempt.signal);
      return { ...connected, kind: "streamable-http", caller: sdkCaller(server.name, connected) };
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
  const connected = await handshake(server, transport, setup, attempt.signal);
  return { ...connected, kind: "sse", caller: sdkCaller(server.name, connected) };
}

/** The lean caller of a stdio child: its answers are taken off the line before the SDK's. */
export function leanCaller(server: string, transport: StdioTransport): UpstreamCaller {
  const leg = new LeanLeg(server, (m) => transport.send(m));
  transport.tap = leg;
  return framed(leg, server);
}

/** The caller through the SDK client's `request` (HTTP and SSE upstreams). */
export function sdkCaller(server: string, connected: { client: Client }): UpstreamCaller {
  return framed(new SdkLeg(server, connected.client), server);
}

function stoppedError(server: ServerConfig): GatewayError {
  return unavailable(server.name, "was stopped");
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
