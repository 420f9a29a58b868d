/**
 * MCP Apps test setup: two ext-apps servers (`test/fixtures/servers/apps.mjs`) that serve the
 * same `ui://charts/view.html` with different HTML behind one gateway — `a` spoken to on the
 * 2025 wire, `b` on 2026-07-28 — and clients of either protocol era with one interface.
 */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  CallToolResult,
  ClientCapabilities,
  ReadResourceResult,
  Resource,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { fixture } from "../../_helpers/gateway.ts";
import { MODERN } from "../../protocol/_modern.ts";

/** Token reaching every tool. */
export const FULL = "apps-full-token-0123456789";
/** Token reaching server a's tools only. */
export const NARROW = "apps-narrow-token-0123456789";

/** A stdio server entry running the apps fixture as `label` (`env`: more of its environment). */
export function appsServer(label: string, extra = "", env: Record<string, string> = {}): string {
  const vars = JSON.stringify({ APP_LABEL: label, ...env });
  const args = JSON.stringify([fixture("apps.mjs")]);
  return `{ command: node, args: ${args}, env: ${vars}${extra ? ", " + extra : ""} }`;
}

/** The gateway config of these tests. */
export const APPS_YAML = `
gateway:
  auth:
    tokens:
      - { name: full, token: ${FULL} }
      - { name: narrow, token: ${NARROW}, tools: ["a__*"] }
servers:
  a: ${appsServer("a", "protocol: legacy")}
  b: ${appsServer("b", "protocol: modern")}
  c: ${appsServer("c", "apps: off")}
`;

/** What the tests ask of a client, whatever its protocol era. */
export interface AppsClient {
  listTools(): Promise<{ tools: Tool[] }>;
  listResources(): Promise<{ resources: Resource[] }>;
  readResource(params: { uri: string }): Promise<ReadResourceResult>;
  callTool(params: {
    name: string;
    arguments?: Record<string, unknown>;
    _meta?: Record<string, unknown>;
  }): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** The two protocol eras a client may speak to the gateway. */
export const ERAS: readonly {
  era: string;
  /** The revision, for file names. */
  revision: string;
  /** `capabilities`: what the client declares (default none: not an Apps host). */
  connect(url: string, token: string, capabilities?: ClientCapabilities): Promise<AppsClient>;
}[] = [
  {
    era: "SDK 1.x (2025-11-25 session)",
    revision: "2025-11-25",
    async connect(url, token, capabilities = {}) {
      const client = new Client({ name: "apps-legacy", version: "1.0.0" }, { capabilities });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      return client as unknown as AppsClient;
    },
  },
  {
    era: "SDK v2 pinned to 2026-07-28",
    revision: MODERN,
    async connect(url, token, capabilities = {}) {
      const client = new ModernClient({ name: "apps-modern", version: "1.0.0" }, {
        capabilities: capabilities as never, // as never: 1.x capability type onto v2's
        versionNegotiation: { mode: { pin: MODERN } },
      });
      await client.connect(
        new ModernTransport(new URL(`${url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      return client as unknown as AppsClient;
    },
  },
];

/** An SDK client straight to the fixture (no gateway), to compare what passes through. */
export async function directClient(label: string): Promise<Client> {
  const client = new Client({ name: "apps-direct", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: "node",
      args: [fixture("apps.mjs")],
      env: { ...process.env as Record<string, string>, APP_LABEL: label },
      stderr: "ignore",
    }),
  );
  return client;
}

/** The `_meta.ui.resourceUri` of a tool. */
export function viewOf(tool: Tool | undefined): unknown {
  return (tool?._meta?.ui as { resourceUri?: unknown } | undefined)?.resourceUri;
}
