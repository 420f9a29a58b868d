/**
 * @module The era probe of a stdio upstream, sent before the SDK v2 client is loaded. Most
 * stdio servers speak only 2025: they answer `server/discover` with an error, exit, or stay
 * silent. By the v2 client's own probe rules for stdio in pin mode (`classifyProbeOutcome`)
 * each of those is the "not 2026-07-28" verdict — except `-32022` (unsupported version), which
 * may carry a corrective offer. So the gateway sends the same probe itself, and loads the v2
 * client (~3 MiB of RSS with its share of the SDK's v2 schemas) only when the answer could be
 * a 2026-07-28 offer. A result is handed to the client as its `prior` (the client validates it
 * with its own schema and checks the offered revisions, the same two checks its probe makes);
 * a `-32022` is the client's to probe again and judge.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ServerConfig } from "../../config/mod.ts";
import type { Logger } from "../../shared/log.ts";
import { NAME, VERSION } from "../../version.ts";
import { MODERN_REVISION } from "./era.ts";
import { completed } from "./lenient.ts";
import type { ProbeTransport } from "./probe-transport.ts";

/**
 * What the pre-probe found: no 2026-07-28 server; a `server/discover` result for the v2 client
 * to judge; or an answer the v2 client must probe for itself.
 */
export type PreProbe = { kind: "legacy" } | { kind: "result"; result: unknown } | {
  kind: "ask-sdk";
};

const LEGACY: PreProbe = { kind: "legacy" };

/** The v2 client's unsupported-protocol-version code: its answer may offer another revision. */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** The probe's id: a string, so it never meets the numeric ids of the handshake that follows. */
const PROBE_ID = "mcp-gateway-era-probe";

/**
 * Sends `server/discover` on `probe` (started here) with the envelope the v2 client sends, and
 * waits up to `timeoutMs`. `legacy` when the answer is an error other than `-32022`, when none
 * comes in time, or when the process ends; the result (read leniently, as the v2 client reads
 * it: ./lenient.ts), or `ask-sdk` for a `-32022`.
 */
export async function preProbe(
  server: ServerConfig,
  probe: ProbeTransport,
  capabilities: Record<string, unknown>,
  timeoutMs: number,
  log?: Logger,
): Promise<PreProbe> {
  await probe.start();
  let settle!: (verdict: PreProbe) => void;
  const verdict = new Promise<PreProbe>((resolve) => (settle = resolve));
  const timer = setTimeout(() => settle(LEGACY), timeoutMs);
  probe.onmessage = (message) => {
    const answer = completed(message, server, log) as {
      id?: unknown;
      result?: unknown;
      error?: { code?: unknown };
    };
    if (answer.id !== PROBE_ID) return;
    if ("result" in answer) settle({ kind: "result", result: answer.result });
    else if (answer.error?.code === UNSUPPORTED_PROTOCOL_VERSION) settle({ kind: "ask-sdk" });
    else settle(LEGACY);
  };
  probe.onclose = () => settle(LEGACY);
  try {
    await probe.send(
      {
        jsonrpc: "2.0",
        id: PROBE_ID,
        method: "server/discover",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": MODERN_REVISION,
            "io.modelcontextprotocol/clientInfo": { name: NAME, version: VERSION },
            "io.modelcontextprotocol/clientCapabilities": capabilities,
          },
        },
      } as JSONRPCMessage,
    ).catch(() => settle(LEGACY));
    return await verdict;
  } finally {
    clearTimeout(timer);
    probe.onmessage = undefined;
    probe.onclose = undefined;
  }
}
