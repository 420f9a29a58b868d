/**
 * One switch over the closed union of upstream kinds: a connected client for a stdio child, a
 * streamable HTTP endpoint, or a legacy SSE endpoint (tried after streamable HTTP when
 * `transport: auto`). The protocol era is chosen here too: unless `protocol: legacy`, the SDK v2
 * client probes with `server/discover` first and keeps a 2026-07-28 server (modern/); otherwise
 * the SDK 1.x client runs the 2025 `initialize` handshake (on the same stdio process).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { PriorDiscovery } from "@modelcontextprotocol/client";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { HttpServerConfig, ServerConfig, StdioServerConfig } from "../config/mod.ts";
import { GatewayError, messageOf } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";
import { LazySchemaValidator } from "../shared/schema-validator.ts";
import { NAME, VERSION } from "../version.ts";
import { childEnv } from "./child-env.ts";
import type { UpstreamCaller } from "./caller.ts";
import type { ProtocolEra, UpstreamClient } from "./client.ts";
import { unavailable } from "./call-errors.ts";
import { framed } from "./frame.ts";
import { LeanLeg } from "./lean-leg.ts";
import { notModern } from "./modern/era.ts";
import { preProbe } from "./modern/pre-probe.ts";
import { ProbeTransport } from "./modern/probe-transport.ts";
import { forget, knownEra, remember } from "./modern/verdicts.ts";
import { spawnSpec } from "./sandbox/mod.ts";
import { SdkLeg } from "./sdk-leg.ts";
import { StdioTransport } from "./stdio.ts";
import type { StreamCalls } from "./stream-calls.ts";

/**
 * What the gateway tells upstreams it can do: it relays these to the calling client, and refuses
 * at once what that client did not declare (a mode of elicitation included).
 */
export const UPSTREAM_CAPABILITIES: ClientCapabilities = {
  sampling: {},
  elicitation: { form: {}, url: {} },
};

/** The MCP Apps client capability, as ext-apps' `getUiCapability` reads it. */
export const UI_EXTENSION = {
  "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] },
} as const;

/**
 * The capabilities offered to one server: `roots` only when its config says where they come
 * from (a fixed list the gateway answers itself, or each session's client for a session-isolated
 * server); without `roots:` the server keeps the folders its own arguments give it. The MCP Apps
 * extension unless `apps: off`: one connection serves every client, present and future, so the
 * gateway offers what any of them may render (`auto`); a host that renders nothing ignores
 * `_meta.ui`, and tools for views only are kept from models (gateway/tool-views.ts). A session's
 * own process serves one client, so under `auto` it runs a config that follows that client
 * (./isolated.ts).
 */
export function capabilitiesFor(server: ServerConfig): ClientCapabilities {
  const apps = server.apps === "off" ? {} : { extensions: UI_EXTENSION };
  if (server.roots === null) return { ...UPSTREAM_CAPABILITIES, ...apps };
  return {
    ...UPSTREAM_CAPABILITIES,
    ...apps,
    roots: server.roots === "client" ? { listChanged: true } : {},
  };
}

/**
 * A connected client, the transport kind that worked, the protocol era it speaks, and the
 * caller chosen for it.
 */
export interface Connection {
  client: UpstreamClient;
  transport: Transport;
  kind: "stdio" | "streamable-http" | "sse";
  era: ProtocolEra;
  /** Every request to this upstream goes through it (chosen here, once per connection). */
  caller: UpstreamCaller;
}

/** One connect attempt as its owner controls it. */
export interface ConnectAttempt {
  /** Aborting ends the attempt at once and closes (kills) whatever it started. */
  signal?: AbortSignal;
  /** Told the stdio transport before it starts: its stderr and exit explain a failure. */
  onTransport?(transport: StdioTransport): void;
  /** The fetch of every HTTP request (an OAuth upstream's: it adds the access token). */
  fetch?: FetchLike;
  /** Told which call's stream carried each request of a 2025 streamable HTTP connection. */
  streams?: StreamCalls;
}

type Setup = (client: UpstreamClient) => void;
/** Transports an attempt opened: closed when it fails, times out or is stopped. */
type Opened = Set<{ close(): Promise<void> }>;

/**
 * Connects to one upstream, giving up after `connectTimeoutMs` for the whole attempt: the era
 * probe of `protocol: auto` (a share of that time on stdio) and the handshake after it.
 */
export async function connectUpstream(
  server: ServerConfig,
  log: Logger,
  setup: Setup,
  attempt: ConnectAttempt = {},
): Promise<Connection> {
  const aborted = attempt.signal?.aborted ? stoppedError(server) : undefined;
  if (aborted) throw aborted;
  const opened: Opened = new Set();
  const known = knownEra(server);
  // One clock for the probe and the handshake: a silent server is down after connectTimeout.
  const deadline = server.connectTimeoutMs;
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
      deadline,
    );
  });
  // A stop during the handshake must not wait for its timeout: the child is killed now.
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => reject(stoppedError(server));
    attempt.signal?.addEventListener("abort", onAbort, { once: true });
  });
  const work = server.kind === "stdio"
    ? connectStdio(server, log, setup, attempt, opened)
    : connectHttp(server, log, setup, attempt, opened);
  try {
    const conn = await Promise.race([work, timeout, stopped]);
    return conn;
  } catch (err) {
    if (known && server.protocol !== "legacy") forget(server); // probe again next time
    work.catch(() => {}); // settled after the race was lost: nothing left to report
    await Promise.all([...opened].map((t) => t.close().catch(() => {})));
    throw err;
  } finally {
    clearTimeout(timer);
    if (onAbort) attempt.signal?.removeEventListener("abort", onAbort);
  }
}

async function connectStdio(
  server: StdioServerConfig,
  log: Logger,
  setup: Setup,
  attempt: ConnectAttempt,
  opened: Opened,
): Promise<Connection> {
  const spawnOne = () => {
    // A sandboxed server's command line is bwrap's (upstream/sandbox/); the rest is the same.
    const t = new StdioTransport({ ...spawnSpec(server, childEnv(server, process.env)), log });
    attempt.onTransport?.(t);
    opened.add(t);
    return t;
  };
  let transport = spawnOne();
  const known = knownEra(server);
  if (known?.kind !== "legacy") {
    const probe = new ProbeTransport(transport);
    // The SDK v2 client is loaded only when the server may offer 2026-07-28 (./modern/pre-probe.ts).
    const found = known ??
      await preProbe(server, probe, capabilitiesFor(server), probeTimeoutMs(server), log);
    const prior = found.kind === "result"
      ? { kind: "modern", discover: found.result } as PriorDiscovery
      : found.kind === "modern"
      ? found
      : undefined;
    const modern = found.kind === "legacy"
      ? null
      : await (await import("./modern/negotiate.ts")).connectModern(
        server,
        probe,
        capabilitiesFor(server),
        setup,
        { probeTimeoutMs: probeTimeoutMs(server), log, ...(prior ? { prior } : {}) },
      );
    if (modern) {
      probe.keep();
      if (modern.discover) remember(server, { kind: "modern", discover: modern.discover });
      return { ...modern, kind: "stdio", era: "modern" };
    }
    if (probe.ended) {
      // Some servers exit on any request before `initialize`; others exit at start whatever
      // they are sent. Either way this start failed (its exit is the reason); the next start
      // of this config skips the probe, so neither kind is spawned twice per attempt.
      remember(server, { kind: "legacy" });
      throw new GatewayError(
        "UPSTREAM_UNAVAILABLE",
        "the server process ended during the server/discover probe",
      );
    }
    if (server.protocol === "modern") throw notModern(server);
    remember(server, { kind: "legacy" });
    transport = probe.release();
    log.debug("no 2026-07-28 offer; speaking the 2025 protocol");
  }
  const connected = await handshake(server, transport, setup, opened);
  return { ...connected, kind: "stdio", era: "legacy", caller: leanCaller(server.name, transport) };
}

async function connectHttp(
  server: HttpServerConfig,
  log: Logger,
  setup: Setup,
  attempt: ConnectAttempt,
  opened: Opened,
): Promise<Connection> {
  const known = knownEra(server);
  if (known?.kind !== "legacy" && server.transport !== "sse") {
    // An HTTP upstream's era probe is the SDK v2 client's, which is loaded for it.
    const { connectModern, modernHttpTransport } = await import("./modern/negotiate.ts");
    const transport = modernHttpTransport(server, attempt.fetch);
    opened.add(transport);
    const modern = await connectModern(server, transport, capabilitiesFor(server), setup, {
      log,
      ...(known ? { prior: known } : {}),
    });
    if (modern) {
      if (modern.discover) remember(server, { kind: "modern", discover: modern.discover });
      return { ...modern, kind: "streamable-http", era: "modern" };
    }
    opened.delete(transport);
    await transport.close().catch(() => {});
    if (server.protocol === "modern") throw notModern(server);
    remember(server, { kind: "legacy" });
    log.debug("no 2026-07-28 offer; speaking the 2025 protocol");
  }
  // The SDK's HTTP transports are imported for the first HTTP upstream: they bring its OAuth
  // client (and its OAuth schemas), which a gateway of stdio upstreams never needs.
  if (server.transport !== "sse") {
    try {
      const { StreamableHTTPClientTransport } = await import(
        "@modelcontextprotocol/sdk/client/streamableHttp.js"
      );
      const viaFetch = attempt.streams?.fetch(attempt.fetch ?? fetch) ?? attempt.fetch;
      const transport = new StreamableHTTPClientTransport(
        new URL(server.url),
        httpOptions(server, viaFetch),
      );
      const connected = await handshake(server, transport, setup, opened);
      return {
        ...connected,
        kind: "streamable-http",
        era: "legacy",
        caller: sdkCaller(server.name, connected),
      };
    } catch (err) {
      if (
        server.transport === "streamable-http" || !mayBeLegacySse(err) || attempt.signal?.aborted
      ) throw err;
      log.info("streamable HTTP refused; trying legacy SSE", { error: messageOf(err) });
    }
  }
  const viaFetch = attempt.fetch ?? fetch;
  const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
  const transport = new SSEClientTransport(new URL(server.url), {
    ...httpOptions(server, attempt.fetch),
    eventSourceInit: {
      fetch: (url, init) =>
        viaFetch(url, {
          ...init,
          headers: { ...server.headers, ...(init?.headers as Record<string, string>) },
        }),
    },
  });
  const connected = await handshake(server, transport, setup, opened);
  return { ...connected, kind: "sse", era: "legacy", caller: sdkCaller(server.name, connected) };
}

/** The lean caller of a stdio child: its answers are taken off the line before the SDK's. */
export function leanCaller(server: string, transport: StdioTransport): UpstreamCaller {
  const leg = new LeanLeg(server, (m) => transport.write(m));
  transport.tap = leg;
  return framed(leg, server);
}

/** The caller through the SDK client's `request` (HTTP and SSE upstreams). */
export function sdkCaller(server: string, connected: { client: Client }): UpstreamCaller {
  return framed(new SdkLeg(server, connected.client), server);
}

/** How long a stdio server may stay silent on `server/discover` before it counts as 2025. */
export function probeTimeoutMs(server: ServerConfig): number {
  return Math.min(5_000, Math.ceil(server.connectTimeoutMs / 3));
}

function stoppedError(server: ServerConfig): GatewayError {
  return unavailable(server.name, "was stopped");
}

function httpOptions(server: HttpServerConfig, viaFetch: FetchLike | undefined) {
  return {
    requestInit: { headers: { ...server.headers } },
    ...(viaFetch ? { fetch: viaFetch } : {}),
  };
}

/** 4xx answers (404/405) are what a legacy SSE-only server gives a streamable HTTP POST. */
function mayBeLegacySse(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === "number" ? code >= 400 && code < 500 : true;
}

/** The 2025 `initialize` handshake on the SDK 1.x client. */
async function handshake(
  server: ServerConfig,
  transport: Transport,
  setup: Setup,
  opened: Opened,
): Promise<{ client: Client; transport: Transport }> {
  const client = new Client({ name: NAME, version: VERSION }, {
    capabilities: capabilitiesFor(server),
    jsonSchemaValidator: new LazySchemaValidator(),
  });
  setup(client);
  opened.add(transport);
  try {
    await client.connect(transport, { timeout: server.connectTimeoutMs });
    return { client, transport };
  } catch (err) {
    opened.delete(transport);
    await transport.close().catch(() => {});
    throw err;
  }
}
