/**
 * A gateway served in this process, as the in-process probes use it (`./door.ts`,
 * `./allocs.ts`): started from the tree at `root` (so two builds can run side by side) on a
 * config of the caller's, with a client's view of its `/mcp` — a 2025-11-25 session opened
 * (`initialize`, `notifications/initialized`) or the 2026-07-28 headers set — and the JSON-RPC
 * `tools/call` bodies that client sends for one tool. Requests go to `RunningGateway.fetch`, as
 * the HTTP server hands them over, without a socket.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A gateway in process and a client of it, for one tool. */
export interface InProcessGateway {
  /** Serves one request as the HTTP server would hand it over. */
  serve(request: Request): Promise<Response>;
  /** Posts `text` as a client does (its length stated), through `send` (`serve` by default). */
  post(text: string, send?: (request: Request) => Promise<Response>): Promise<Response>;
  /** A `tools/call` of the tool with `args` under `id`, as this era's client writes it. */
  call(id: number, args: Record<string, unknown>): string;
  /** The gateway itself (its core), for a probe that calls past the door. */
  gateway: unknown;
  stop(): Promise<void>;
}

/** Starts the gateway of `root` on `yaml` and opens a client of `era` calling `tool`. */
export async function openInProcess(
  root: string,
  yaml: string,
  era: string,
  tool: string,
): Promise<InProcessGateway> {
  const { startGateway } = await import(join(root, "src/cli/serve.ts"));
  const { parseConfig } = await import(join(root, "src/config/mod.ts"));
  const { setLogLevel } = await import(join(root, "src/shared/log.ts"));
  setLogLevel("error");
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-in-process-"));
  writeFileSync(join(dir, "gateway.yaml"), yaml);
  const running = await startGateway(parseConfig(yaml, { file: join(dir, "gateway.yaml") }), {
    listen: "127.0.0.1:0",
    watch: false,
  });
  await running.settled;
  const serve: (request: Request) => Promise<Response> = running.fetch!;
  const url = `http://127.0.0.1:${running.http!.port}/mcp`;
  const headers: Record<string, string> = {
    host: new URL(url).host,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": era,
  };
  const post = (text: string, send = serve) =>
    send(
      new Request(url, {
        method: "POST",
        headers: { ...headers, "content-length": String(text.length) },
        body: text,
      }),
    );
  let meta: Record<string, unknown> | undefined;
  if (era === "2025-11-25") {
    const opened = await post(JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: era,
        capabilities: {},
        clientInfo: { name: "in-process", version: "1" },
      },
    }));
    await opened.text();
    headers["mcp-session-id"] = opened.headers.get("mcp-session-id")!;
    await (await post('{"jsonrpc":"2.0","method":"notifications/initialized"}')).text();
  } else {
    headers["mcp-method"] = "tools/call";
    headers["mcp-name"] = tool;
    meta = {
      "io.modelcontextprotocol/protocolVersion": era,
      "io.modelcontextprotocol/clientInfo": { name: "in-process", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
  }
  return {
    serve,
    post,
    call: (id, args) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: tool, arguments: args, ...(meta ? { _meta: meta } : {}) },
      }),
    gateway: running.gateway,
    async stop() {
      await running.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
