/**
 * Pass-through test harness: the same test body runs against a gateway over streamable HTTP
 * (many sessions on one gateway) and over stdio (one gateway process per client), with SDK
 * clients that declare sampling, elicitation and roots.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ClientCapabilities, Notification } from "@modelcontextprotocol/sdk/types.js";
import { selfCommand } from "../../../src/runtime/mod.ts";
import { ROOT, settledStart, startTestGateway, type TestGateway } from "../../_helpers/gateway.ts";

export { fixture, nodeServer, textOf, waitFor } from "../../_helpers/gateway.ts";

/** What the test clients declare unless a test says otherwise. */
export const FULL_CAPS: ClientCapabilities = {
  sampling: {},
  elicitation: { form: {} },
  roots: { listChanged: true },
};

/** YAML for the reference "everything" server as an upstream. */
export const EVERYTHING = `{ command: node, args: [${
  JSON.stringify(join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"))
}, stdio], timeout: 30s }`;

/** A connected client and how to end it. */
export interface Connected {
  client: Client;
  /** Ends the session the way the transport can: DELETE over HTTP, closing stdin over stdio. */
  end(): Promise<void>;
}

/** One way of reaching a gateway. */
export interface Harness {
  readonly kind: "http" | "stdio";
  /** The in-process gateway (HTTP only). */
  readonly gateway: TestGateway | null;
  connect(caps?: ClientCapabilities): Promise<Connected>;
  close(): Promise<void>;
}

/** Starts a gateway over HTTP: every `connect` opens a session on it. */
export async function httpHarness(yaml: string): Promise<Harness> {
  const gw = await startTestGateway(yaml);
  const clients: Client[] = [];
  return {
    kind: "http",
    gateway: gw,
    async connect(caps = FULL_CAPS) {
      const client = new Client({ name: "pt-http", version: "1.0.0" }, { capabilities: caps });
      const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`));
      await client.connect(transport);
      clients.push(client);
      return {
        client,
        end: async () => {
          await transport.terminateSession();
          await client.close();
        },
      };
    },
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      await gw.stop();
    },
  };
}

/** Writes the config; every `connect` starts a gateway process with `--stdio`. */
export function stdioHarness(yaml: string): Harness {
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-pt-"));
  const file = join(dir, "gateway.yaml");
  // Each process serves once its upstreams started, as the in-process harness does.
  writeFileSync(file, settledStart(yaml));
  const clients: Client[] = [];
  return {
    kind: "stdio",
    gateway: null,
    async connect(caps = FULL_CAPS) {
      const [command, ...args] = selfCommand();
      const client = new Client({ name: "pt-stdio", version: "1.0.0" }, { capabilities: caps });
      await client.connect(
        new StdioClientTransport({
          command: command!,
          args: [...args, "--stdio", "--config", file, "--log-level", "error"],
          stderr: "ignore",
        }),
      );
      clients.push(client);
      return { client, end: () => client.close() };
    },
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
    },
  };
}

/** Both harness kinds, for `for (const make of HARNESSES)`. */
export const HARNESSES: readonly { kind: string; open(yaml: string): Promise<Harness> }[] = [
  { kind: "streamable HTTP", open: httpHarness },
  { kind: "stdio", open: (yaml) => Promise.resolve(stdioHarness(yaml)) },
];

/** Records every notification matching `schema` that a client receives. */
export function record(
  client: Client,
  schema: Parameters<Client["setNotificationHandler"]>[0],
): Notification[] {
  const seen: Notification[] = [];
  client.setNotificationHandler(schema, (n: Notification) => void seen.push(n));
  return seen;
}

/** Every tool name the client can list, following cursors. */
export async function allToolNames(client: Client): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i++) {
    const r = await client.listTools(cursor ? { cursor } : undefined);
    names.push(...r.tools.map((t) => t.name));
    cursor = r.nextCursor;
    if (!cursor) return names;
  }
  throw new Error("more than 100 pages");
}

/** Waits until `client` lists the tool (upstreams may add tools after connecting). */
export async function untilTool(client: Client, name: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if ((await allToolNames(client)).includes(name)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`tool ${name} never appeared`);
}
