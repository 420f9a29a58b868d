/** The two-profile gateway the profile tests share, and clients of each era on an endpoint. */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { nodeServer } from "../_helpers/gateway.ts";
import { MODERN } from "../protocol/_modern.ts";

/** Every endpoint; admin (metrics, status). */
export const FULL = "full-token-0123456789abcdef";
/** Limited to the `coding` profile. */
export const CODER = "coder-token-0123456789abcdef";
/** Limited to `coding`, with globs of its own inside it. */
export const NARROW = "narrow-token-0123456789abcdef";

/** `coding`: server alpha whole, one tool of `prompts`, execute. `support`: two beta tools. */
export const PROFILES = `
  coding:
    description: "alpha and a note"
    servers: [alpha]
    tools: ["prompts__note"]
    execute: true
  support:
    tools: ["beta__echo", "beta__structured"]
    exposure: search
`;

/** The config with `profiles` as its profiles section, and the `coder` token's profiles. */
export const config = (profiles = PROFILES, coder = "[coding]") => `
gateway:
  auth:
    tokens:
      - { name: full, token: "${FULL}", admin: true }
      - { name: coder, token: "${CODER}", profiles: ${coder} }
      - { name: narrow, token: "${NARROW}", profiles: [coding], tools: ["alpha__echo", "execute"] }
servers:
  alpha: ${nodeServer("echo.mjs", "env: { ECHO_NAME: alpha }")}
  beta: ${nodeServer("echo.mjs", "env: { ECHO_NAME: beta }")}
  prompts: ${nodeServer("prompts.mjs")}
profiles:${profiles}
scripting:
  execute: true
  macros: null
`;

const auth = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

/** An SDK 1.x client (a 2025-11-25 session) on `path`. */
export async function legacyClient(url: string, path: string, token = FULL): Promise<Client> {
  const client = new Client({ name: "profile-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}${path}`), { requestInit: auth(token) }),
  );
  return client;
}

/** An SDK 1.x client over legacy SSE on `path`. */
export async function sseClient(url: string, path: string, token = FULL): Promise<Client> {
  const client = new Client({ name: "profile-test-sse", version: "1.0.0" });
  await client.connect(
    new SSEClientTransport(new URL(`${url}${path}`), { requestInit: auth(token) }),
  );
  return client;
}

/** An SDK v2 client pinned to 2026-07-28 (stateless requests) on `path`. */
export async function modernClient(url: string, path: string, token = FULL): Promise<ModernClient> {
  const client = new ModernClient({ name: "profile-test-modern", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: MODERN } },
  });
  await client.connect(new ModernTransport(new URL(`${url}${path}`), { requestInit: auth(token) }));
  return client;
}

/** Sorted tool names of a `tools/list`. */
export const namesOf = (list: { tools: { name: string }[] }): string[] =>
  list.tools.map((t) => t.name).sort();
