/**
 * Era negotiation with one upstream, on the SDK v2 client: it probes with `server/discover`
 * pinned to 2026-07-28 and, when the server offers it, becomes the connection's client. When
 * it does not (a 2025-only server answers the probe with an error, or stays silent on stdio),
 * the caller falls back to the 1.x client's `initialize` — which is `protocol: auto`; under
 * `protocol: modern` the mismatch is the error, naming the server and the setting.
 */
import {
  Client as V2Client,
  type DiscoverResult,
  type PriorDiscovery,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { HttpServerConfig, ServerConfig } from "../../config/mod.ts";
import type { Logger } from "../../shared/log.ts";
import { NAME, VERSION } from "../../version.ts";
import type { UpstreamClient } from "../client.ts";
import type { UpstreamCaller } from "../caller.ts";
import { framed } from "../frame.ts";
import { ModernClient } from "./client.ts";
import { MODERN_REVISION } from "./era.ts";
import { isEraMismatch, startError } from "./errors.ts";
import { lenientResults } from "./lenient.ts";
import { listenForChanges } from "./listen.ts";
import { ModernLeg } from "./leg.ts";
import { StatefulMethods } from "./stateful.ts";

export { MODERN_REVISION, notModern } from "./era.ts";

/** A modern connection, or the verdict that the server is not one (`null`). */
export type ModernOutcome =
  | {
    client: ModernClient;
    transport: Transport;
    caller: UpstreamCaller;
    discover?: DiscoverResult;
  }
  | null;

/**
 * Probes `transport` (started by the v2 client) and connects to it when the server speaks
 * 2026-07-28 (or adopts a kept verdict, `prior`, with no probe). `setup` registers the gateway's handlers before any request goes out. Resolves
 * `null` when the server is not modern; rejects on anything else (auth, outage, timeout).
 */
export async function connectModern(
  server: ServerConfig,
  transport: Transport,
  capabilities: Record<string, unknown>,
  setup: (client: UpstreamClient) => void,
  { probeTimeoutMs = server.connectTimeoutMs, prior, log }: {
    probeTimeoutMs?: number;
    /** Where a dropped change stream is told. */
    log?: Logger;
    /** A kept modern verdict: adopted with no round trip. */
    prior?: PriorDiscovery;
  } = {},
): Promise<ModernOutcome> {
  const v2 = new V2Client({ name: NAME, version: VERSION }, {
    capabilities,
    versionNegotiation: {
      mode: { pin: MODERN_REVISION },
      probe: { timeoutMs: probeTimeoutMs },
    },
    // The gateway's own reader guards against endless cursors (lists.ts).
    listMaxPages: 0,
  });
  const client = new ModernClient(v2);
  setup(client);
  lenientResults(transport, server, log);
  try {
    // as never: 1.x transport, v2's own declaration of it
    await v2.connect(transport as never, {
      timeout: server.connectTimeoutMs,
      ...(prior?.kind === "modern" ? { prior } : {}),
    });
    if (log) listenForChanges(v2, log);
    const discover = v2.getDiscoverResult();
    return {
      client,
      transport,
      caller: framed(
        new ModernLeg(
          server.name,
          v2,
          new StatefulMethods(server.name, v2, log),
          capabilities as ClientCapabilities,
          (task) => client.taskStatus(task),
        ),
        server.name,
      ),
      ...(discover ? { discover } : {}),
    };
  } catch (err) {
    if (isEraMismatch(err)) return null;
    throw startError(err);
  }
}

/** A v2 streamable HTTP transport for `server` (its configured headers on every request). */
export function modernHttpTransport(server: HttpServerConfig, viaFetch?: FetchLike): Transport {
  return new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: { ...server.headers } },
    ...(viaFetch ? { fetch: viaFetch } : {}),
  }) as unknown as Transport;
}
