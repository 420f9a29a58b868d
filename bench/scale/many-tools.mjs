// A stdio MCP server listing TOOLS tools (env, default 50) shaped like real ones: a two-sentence
// description, four typed properties (one an enum), two required. Each call answers a short text.
// Names are unique per server (`SERVER` env prefixes them), so several copies can run side by side.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const count = Number(process.env.TOOLS ?? 50);
const prefix = process.env.SERVER ?? "svc";
const VERBS = ["list", "get", "create", "update", "delete", "search", "archive", "export"];
const NOUNS = ["issue", "project", "user", "repository", "message", "record", "document", "job"];

const tools = Array.from({ length: count }, (_, i) => {
  const verb = VERBS[i % VERBS.length];
  const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length];
  return {
    name: `${verb}_${noun}_${i}`,
    description:
      `${verb[0].toUpperCase()}${verb.slice(1)} a ${noun} in ${prefix} workspace ${i}. ` +
      `Returns the ${noun} with its id, owner, labels and timestamps; fails when the caller ` +
      `may not see the ${noun}.`,
    inputSchema: {
      type: "object",
      properties: {
        id: { type: "string", description: `The ${noun} id.` },
        owner: { type: "string", description: "Owner login or team slug." },
        state: { type: "string", enum: ["open", "closed", "all"], description: "Filter by state." },
        limit: { type: "integer", minimum: 1, maximum: 100, description: "Page size." },
      },
      required: ["id", "owner"],
    },
  };
});

const server = new Server({ name: prefix, version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, (req) => ({
  content: [{ type: "text", text: `ok ${req.params.name}` }],
}));
await server.connect(new StdioServerTransport());
