/**
 * The one source of truth for `gateway.yaml`: a strict zod schema (unknown keys are errors).
 * The editor JSON Schema (`gateway.schema.json`) is generated from it; values stay in their
 * written form here and become numbers in `normalise.ts`.
 */
import { z } from "zod";
import { DURATION_PATTERN, SIZE_PATTERN } from "./units.ts";

const DURATION_ERROR = "expected a duration like 30s or 500ms";
const duration = z.union([
  z.string().regex(DURATION_PATTERN, { error: DURATION_ERROR }),
  z.number().nonnegative({ error: DURATION_ERROR }),
], { error: DURATION_ERROR });

const SIZE_ERROR = "expected a size like 16MiB or 512KB";
const size = z.union([
  z.string().regex(SIZE_PATTERN, { error: SIZE_ERROR }),
  z.number().int().nonnegative({ error: SIZE_ERROR }),
], { error: SIZE_ERROR });

const globList = z.array(z.string().min(1, { error: "expected a non-empty glob" }), {
  error: "expected a list of glob patterns",
});

/** Names of servers, macros and tokens: safe in tool names, URLs and metrics labels. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,47}$/;
const name = z.string().regex(NAME_PATTERN, {
  error:
    "expected a name of letters, digits, '_' or '-' (at most 48, starting with a letter or digit)",
});

const toolOverride = z.strictObject({
  name: z.string().min(1).optional().describe(
    "Expose the tool under this name (before the prefix).",
  ),
  description: z.string().optional().describe("Replace the tool's description."),
  hidden: z.boolean().optional().describe(
    "Not listed, searchable or callable by clients; macros may still call it.",
  ),
  discoverable: z.boolean().optional().describe(
    "Hidden from tools/list, found by tool_search, still callable.",
  ),
});

const restart = z.strictObject({
  initialDelay: duration.optional().describe("First backoff delay (default 500ms)."),
  maxDelay: duration.optional().describe("Backoff ceiling (default 30s)."),
  resetAfter: duration.optional().describe(
    "Healthy time after which the backoff resets (default 60s).",
  ),
  maxRestarts: z.number().int().nonnegative().optional().describe(
    "Give up after this many consecutive failures (default: never).",
  ),
});

const server = z.strictObject({
  command: z.string().min(1, { error: "expected a command" }).optional().describe(
    "Executable of a stdio server (never run through a shell).",
  ),
  args: z.array(z.string(), { error: "expected a list of strings" }).optional(),
  env: z.record(z.string(), z.string(), { error: "expected a map of strings" }).optional(),
  cwd: z.string().optional().describe("Working directory, relative to the config file."),
  url: z.url({ error: "expected an http(s) URL" }).optional().describe(
    "Streamable HTTP endpoint (falls back to SSE).",
  ),
  headers: z.record(z.string(), z.string(), { error: "expected a map of strings" }).optional(),
  transport: z.enum(["auto", "streamable-http", "sse"]).optional().describe(
    "HTTP transport; auto tries streamable HTTP, then SSE.",
  ),
  timeout: duration.optional().describe("Per-call timeout (default 60s)."),
  connectTimeout: duration.optional().describe("Handshake timeout (default 15s)."),
  tools: z.strictObject({
    allow: globList.optional(),
    deny: globList.optional(),
    overrides: z.record(z.string(), toolOverride).optional(),
  }).optional(),
  prefix: z.boolean().optional().describe(
    "Prefix names with '<server><separator>' (default true).",
  ),
  discoverable: z.boolean().optional().describe(
    "Hide the server's tools from tools/list; tool_search finds them.",
  ),
  required: z.boolean().optional().describe("/readyz fails while this server is down."),
  enabled: z.boolean().optional().describe("false: keep the entry but do not start it."),
  restart: restart.optional(),
});

const token = z.strictObject({
  name,
  token: z.string().min(16, { error: "expected a token of at least 16 characters" }),
  tools: globList.optional().describe("Glob allowlist of tool names; omitted = all."),
});

const paramType = z.string();
const param = z.union([
  z.string(),
  z.strictObject({
    type: paramType.optional(),
    description: z.string().optional(),
    default: z.unknown().optional(),
    required: z.boolean().optional(),
  }),
], { error: "expected a description string or a map with type, description, default, required" });

const inlineMacro = z.strictObject({
  description: z.string({ error: "expected a description" }),
  params: z.record(z.string(), param).optional(),
  keywords: z.array(z.string()).optional(),
  discoverable: z.boolean().optional(),
  lua: z.string().optional().describe("Inline Lua chunk; sees `args`, returns the result."),
  file: z.string().optional().describe("Lua script path, relative to the config file."),
});

/** The whole config file. */
export const configSchema = z.strictObject({
  gateway: z.strictObject({
    listen: z.string().regex(/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, {
      error: "expected HOST:PORT like 127.0.0.1:8787",
    }).optional(),
    separator: z.string().regex(/^[A-Za-z0-9_-]{1,4}$/, {
      error: "expected 1-4 characters of letters, digits, '_' or '-'",
    }).optional(),
    exposure: z.enum(["all", "search"], { error: "expected all or search" }).optional(),
    auth: z.strictObject({
      tokens: z.array(token).min(1, { error: "expected at least one token" }),
      rateLimit: z.strictObject({
        perMinute: z.number().int().positive(),
        burst: z.number().int().positive().optional(),
      }).optional(),
    }).optional(),
    allowedOrigins: globList.optional().describe(
      "Browser Origins allowed (default: http://localhost:*, http://127.0.0.1:*, http://[::1]:*).",
    ),
    allowedHosts: globList.optional().describe(
      "Host headers allowed (default on loopback: loopback names and the listen host).",
    ),
    limits: z.strictObject({
      requestBody: size.optional(),
      sessions: z.number().int().positive().optional(),
      sessionIdle: duration.optional(),
    }).optional(),
    drainTimeout: duration.optional(),
    cluster: z.strictObject({
      redis: z.string().regex(/^rediss?:\/\/\S+$/, {
        error: "expected a redis:// or rediss:// URL",
      }).describe("Redis shared by every instance: rate limits, MRTR relay, membership."),
      timeout: duration.optional().describe("Longest wait on Redis before going local (500ms)."),
      stateKey: z.string().min(32, { error: "expected at least 32 characters" }).optional()
        .describe("HMAC key sealing MRTR requestState; the same on every instance."),
      instance: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, {
        error: "expected 1-64 letters, digits, '_' or '-'",
      }).optional().describe("This instance's name (default: host name, process id)."),
      advertise: z.string().optional().describe("URL other instances and the status list show."),
      heartbeat: duration.optional().describe("Membership heartbeat interval (2s)."),
    }).optional(),
  }).optional(),
  servers: z.record(name, server, { error: "expected a map of server name to server" }).optional(),
  scripting: z.strictObject({
    macros: z.string().nullable().optional().describe("Directory of .lua macro files."),
    execute: z.boolean().optional(),
    vfs: z.record(
      z.string().regex(/^\/[A-Za-z0-9_.-]+$/, { error: "expected a mount like /source" }),
      z.string(),
    ).optional(),
    limits: z.strictObject({
      timeout: duration.optional(),
      memory: size.optional(),
      transfer: size.optional(),
      pictures: z.number().int().min(0).max(64).optional(),
      workers: z.number().int().min(1).max(64).optional(),
    }).optional(),
    tools: z.record(name, inlineMacro).optional(),
  }).optional(),
});

/** The config as written (after `${ENV}` expansion). */
export type RawConfig = z.infer<typeof configSchema>;
/** One server entry as written. */
export type RawServer = z.infer<typeof server>;
/** One inline macro as written. */
export type RawInlineMacro = z.infer<typeof inlineMacro>;

/** The editor JSON Schema, generated from {@link configSchema}. */
export function configJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(configSchema, { io: "input", unrepresentable: "any" }),
    title: "mcp-gateway configuration",
  };
}
