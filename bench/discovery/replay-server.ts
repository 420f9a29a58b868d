/**
 * Replays captured MCP servers for the discovery benchmark: lists their tools exactly as captured
 * and answers every call with a small canned result (the arguments echoed back, and a value
 * shaped by the tool's output schema when it has one), so the gateway sees real catalogs without
 * the real services.
 *
 *     bun replay-server.ts --server=github     one captured server over stdio
 *     bun replay-server.ts --http              every captured server over HTTP at /mcp/<name>,
 *                                              and the whole catalog as one server at /mcp/all;
 *                                              prints {"port":N} once listening on loopback
 *
 * HTTP mode lets one process stand behind hundreds of upstream entries (the repeated-servers and
 * 20,000-tool variants) where one process per entry would not fit the machine. It answers each
 * POST with plain JSON and keeps no session, which streamable HTTP clients accept.
 */
import { createServer } from "node:http";
import { createInterface } from "node:readline";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { CATALOG_DIR, loadCatalog } from "./catalog.ts";

type Message = { jsonrpc: "2.0"; id?: string | number; method?: string; params?: unknown };

/** A value of the shape `schema` describes: the first enum value, empty lists, required keys. */
function sample(schema: unknown, depth = 0): unknown {
  if (!schema || typeof schema !== "object" || depth > 6) return null;
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if ("const" in s) return s.const;
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const options = s[key];
    if (Array.isArray(options) && options.length > 0) return sample(options[0], depth + 1);
  }
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      const props = (s.properties ?? {}) as Record<string, unknown>;
      const required = Array.isArray(s.required) ? s.required as string[] : [];
      for (const key of required) out[key] = sample(props[key], depth + 1);
      return out;
    }
    case "array":
      return [];
    case "string":
      return "ok";
    case "number":
    case "integer":
      return 1;
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return s.properties ? sample({ ...s, type: "object" }, depth) : null;
  }
}

/** The canned answer to a call: short, and valid against the tool's output schema. */
function cannedResult(tool: Tool | undefined, args: unknown): Record<string, unknown> {
  if (!tool) {
    return { content: [{ type: "text", text: "unknown tool" }], isError: true };
  }
  const text = JSON.stringify({ ok: true, tool: tool.name, arguments: args ?? {} });
  const structured = tool.outputSchema ? sample(tool.outputSchema) : undefined;
  return {
    content: [{ type: "text", text: structured === undefined ? text : JSON.stringify(structured) }],
    ...(structured === undefined ? {} : { structuredContent: structured }),
  };
}

/** Answers one JSON-RPC message for a server offering `tools`; null for a notification. */
function answer(name: string, tools: readonly Tool[], message: Message): Message | null {
  if (message.id === undefined) return null;
  const reply = (result: unknown): Message =>
    ({ jsonrpc: "2.0", id: message.id, result }) as Message;
  const params = (message.params ?? {}) as Record<string, unknown>;
  switch (message.method) {
    case "initialize":
      return reply({
        protocolVersion: typeof params.protocolVersion === "string"
          ? params.protocolVersion
          : "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: `replay-${name}`, version: "1.0.0" },
      });
    case "ping":
      return reply({});
    case "tools/list":
      return reply({ tools });
    case "tools/call":
      return reply(cannedResult(tools.find((t) => t.name === params.name), params.arguments));
    default:
      return {
        jsonrpc: "2.0",
        id: message.id,
        error: { code: -32601, message: `method not found: ${message.method}` },
      } as Message;
  }
}

function serveStdio(name: string, tools: readonly Tool[]): void {
  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    if (line.trim() === "") return;
    const out = answer(name, tools, JSON.parse(line) as Message);
    if (out) process.stdout.write(`${JSON.stringify(out)}\n`);
  });
  lines.on("close", () => process.exit(0));
}

/** Every captured server by name, plus `all`: the whole catalog as one server. */
function servedTools(): Map<string, Tool[]> {
  const byName = new Map<string, Tool[]>();
  const all: Tool[] = [];
  for (const server of loadCatalog(CATALOG_DIR)) {
    byName.set(server.name, server.tools);
    for (const tool of server.tools) all.push({ ...tool, name: `${server.name}_${tool.name}` });
  }
  byName.set("all", all);
  return byName;
}

function serveHttp(): void {
  const served = servedTools();
  const http = createServer((req, res) => {
    const name = /^\/mcp\/([A-Za-z0-9_-]+)$/.exec(req.url ?? "")?.[1];
    const tools = name === undefined ? undefined : served.get(name);
    if (!tools || !name) {
      res.writeHead(404).end();
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405, { allow: "POST" }).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Message | Message[];
      const replies = (Array.isArray(parsed) ? parsed : [parsed])
        .map((m) => answer(name, tools, m))
        .filter((m): m is Message => m !== null);
      if (replies.length === 0) {
        res.writeHead(202).end();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(Array.isArray(parsed) ? replies : replies[0]));
    });
  });
  http.listen(0, "127.0.0.1", () => {
    const { port } = http.address() as { port: number };
    process.stdout.write(`${JSON.stringify({ port })}\n`);
  });
}

const arg = (flag: string) =>
  process.argv.find((a) => a.startsWith(`--${flag}=`))?.slice(flag.length + 3);
if (process.argv.includes("--http")) serveHttp();
else {
  const name = arg("server") ?? "";
  const server = loadCatalog(CATALOG_DIR).find((s) => s.name === name);
  if (!server) {
    process.stderr.write(`replay-server: no captured server named "${name}"\n`);
    process.exit(2);
  }
  serveStdio(name, server.tools);
}
