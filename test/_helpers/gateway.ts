/** Starting real gateways and connecting real SDK clients to them, for integration tests. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { parseDocument } from "yaml";
import { type RunningGateway, startGateway } from "../../src/cli/mod.ts";
import { parseConfig } from "../../src/config/mod.ts";
import { selfCommand } from "../../src/runtime/mod.ts";
import { setLogLevel } from "../../src/shared/log.ts";

/** Repository root. */
export const ROOT = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
/** Path of a fixture server. */
export const fixture = (name: string): string => join(ROOT, "test/fixtures/servers", name);
/** YAML for a stdio server running a fixture under node. */
export const nodeServer = (file: string, extra = ""): string =>
  `{ command: node, args: [${JSON.stringify(fixture(file))}]${extra ? ", " + extra : ""} }`;

setLogLevel(process.env.TEST_LOG_LEVEL as "debug" ?? "silent");

/**
 * `yaml` with a long `gateway.startWait` unless it sets one: a gateway process started on it
 * serves its first lists once every upstream's start is done, as a test that is not about
 * start-up expects (an in-process gateway waits for {@link RunningGateway.settled} instead).
 */
export function settledStart(yaml: string): string {
  const doc = parseDocument(yaml);
  if (doc.hasIn(["gateway", "startWait"])) return yaml;
  doc.setIn(["gateway", "startWait"], "2m");
  return doc.toString();
}

/** A gateway serving HTTP on an ephemeral loopback port. */
export interface TestGateway {
  running: RunningGateway;
  url: string;
  dir: string;
  stop(): Promise<void>;
}

/**
 * Writes `yaml` to a temp folder (or `dir`) and serves it on 127.0.0.1:0; resolves once every
 * upstream's first start is done, unless `settle: false` (then as soon as clients are served).
 */
export async function startTestGateway(
  yaml: string,
  { settle = true, dir = mkdtempSync(join(tmpdir(), "mcpgw-test-")) }: {
    settle?: boolean;
    dir?: string;
  } = {},
): Promise<TestGateway> {
  const file = join(dir, "gateway.yaml");
  writeFileSync(file, yaml);
  const config = parseConfig(yaml, { file });
  const running = await startGateway(config, { listen: "127.0.0.1:0" });
  if (settle) await running.settled;
  const url = `http://127.0.0.1:${running.http!.port}`;
  return { running, url, dir, stop: () => running.stop() };
}

/** An SDK client connected over streamable HTTP. */
export async function httpClient(base: string, capabilities = {}): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  return client;
}

/** An SDK client connected over legacy SSE. */
export async function sseClient(base: string): Promise<Client> {
  const client = new Client({ name: "test-sse", version: "1.0.0" });
  await client.connect(new SSEClientTransport(new URL(`${base}/sse`)));
  return client;
}

/** An SDK client talking to a gateway child process started with `--stdio`. */
export async function stdioClient(configFile: string): Promise<Client> {
  const [command, ...args] = selfCommand();
  const client = new Client({ name: "test-stdio", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: command!,
      args: [...args, "--stdio", "--config", configFile, "--log-level", "warn"],
      stderr: "ignore",
    }),
  );
  return client;
}

/** Text of the first text block of a tool result. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

/** Polls `fn` until it returns truthy or `ms` passes. */
export async function waitFor<T>(
  fn: () => T | Promise<T>,
  ms = 5000,
  what = "condition",
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Starts a gateway on `yaml` and one streamable HTTP client before the enclosing suite and stops
 * both after it; `set` receives them for the suite's tests.
 */
export function useGateway(yaml: string, set: (gw: TestGateway, client: Client) => void): void {
  let gw: TestGateway | undefined;
  let client: Client | undefined;
  before(async () => {
    gw = await startTestGateway(yaml);
    client = await httpClient(gw.url);
    set(gw, client);
  });
  after(async () => {
    await client?.close();
    await gw?.stop();
  });
}
