/**
 * The one source of truth for `gateway.yaml`: a strict zod schema (unknown keys are errors).
 * The editor JSON Schema (`gateway.schema.json`) is generated from it; values stay in their
 * written form here and become numbers in `normalise.ts`.
 */
import { z } from "zod";
import { DURATION_PATTERN, SIZE_PATTERN } from "./units.ts";

/** Names of servers, macros and tokens: safe in tool names, URLs and metrics labels. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,47}$/;

/** Asymmetric JWS algorithms an OAuth access token may use; `none` and HS* are never accepted. */
export const OAUTH_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
] as const;

/**
 * The schema of the whole config file, built afresh for each read. It is not kept in a module
 * constant: its objects (about a fifth of a booted gateway's heap) are needed only while a config
 * is validated, and a larger resident heap makes each full collection of a serving gateway later
 * and dearer.
 */
export function configSchema(): ConfigSchema {
  return buildSchemas().config;
}

/** The type of {@link configSchema}'s result. */
export type ConfigSchema = Schemas["config"];
type Schemas = ReturnType<typeof buildSchemas>;

function buildSchemas() {
  const DURATION_ERROR = "expected a duration like 30s or 500ms";
  // A bare number is refused: `timeout: 30` could mean seconds or milliseconds.
  const duration = z.string({ error: DURATION_ERROR }).regex(DURATION_PATTERN, {
    error: DURATION_ERROR,
  });

  const SIZE_ERROR = "expected a size like 16MiB or 512KB";
  const size = z.union([
    z.string().regex(SIZE_PATTERN, { error: SIZE_ERROR }),
    z.number().int().nonnegative({ error: SIZE_ERROR }),
  ], { error: SIZE_ERROR });

  const globList = z.array(z.string().min(1, { error: "expected a non-empty glob" }), {
    error: "expected a list of glob patterns",
  });

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

  const upstreamOAuth = z.strictObject({
    mode: z.enum(["shared", "per-user", "exchange"], {
      error: "expected shared, per-user or exchange",
    }).describe(
      "shared: one login by the operator (mcp-gateway login) serves every client; per-user: " +
        "each client identity connects its own account; exchange: RFC 8693 token exchange.",
    ),
    issuer: z.url({ error: "expected the authorization server's issuer URL" }).optional()
      .describe("Authorization server (default: discovered from the server's 401, RFC 9728)."),
    clientId: z.string().min(1).optional().describe(
      "A registered client id (default: dynamic client registration, RFC 7591).",
    ),
    clientSecret: z.string().min(1).optional().describe("Its secret, for a confidential client."),
    scopes: z.array(
      z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, {
        error: "expected a scope token",
      }),
    ).optional().describe("Scopes asked for (default: the server's WWW-Authenticate scope)."),
    audience: z.url({ error: "expected the upstream's resource URL" }).optional().describe(
      "exchange mode: the audience of the exchanged token (default: the server's URL).",
    ),
  });

  const pinMode = z.enum(["off", "warn", "quarantine"], {
    error: "expected off, warn or quarantine",
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

  const pathList = z.array(z.string().min(1, { error: "expected a non-empty path" }), {
    error: "expected a list of folders",
  });

  /** `sandbox:` of a stdio server (or the gateway's default): true, false, or what it may reach. */
  const sandbox = z.union([
    z.boolean(),
    z.strictObject({
      read: pathList.optional().describe("Folders the server may read (relative to the config)."),
      write: pathList.optional().describe("Folders the server may read and write."),
      network: z.boolean().optional().describe("Keep the network (default false: none at all)."),
      processes: z.number().int().min(16, { error: "expected at least 16" }).optional().describe(
        "Processes and threads the box may run at once (default 256; for a gateway run as " +
          "root, held by a pids cgroup where one can be made).",
      ),
      memory: size.optional().describe(
        "Writable memory each process of the box may map (default 2GiB).",
      ),
    }),
  ], {
    error: "expected true, false or a map with read, write, network, processes and memory",
  }).describe(
    "Run the stdio command under bubblewrap: system folders and its own package read-only, a " +
      "private /tmp, its cwd and `write` folders writable, `read` folders readable, nothing " +
      "else; new PID, IPC and UTS namespaces; no network unless `network: true`; /proc/sys " +
      "read-only, a seccomp filter, process and memory limits.",
  );

  /** `filters:` of a server or the gateway: built-in names or Lua files, applied in order. */
  const filters = z.array(
    z.union([
      z.enum(["secrets", "pii", "spotlight"], {
        error: "expected secrets, pii, spotlight or { lua: FILE }",
      }),
      z.strictObject({
        lua: z.string().min(1).describe(
          "Lua file defining filter(result, ctx), relative to the config.",
        ),
      }),
    ], { error: "expected secrets, pii, spotlight or { lua: FILE }" }),
    { error: "expected a list of filters" },
  ).describe(
    "Filters applied to every tool result and resource read before a client sees it: secrets, " +
      "pii, spotlight, or { lua: FILE }. The gateway's run first, then the server's.",
  );

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
    oauth: upstreamOAuth.optional().describe(
      "Log in to an OAuth 2.1-protected HTTP server (authorization code + PKCE).",
    ),
    transport: z.enum(["auto", "streamable-http", "sse"]).optional().describe(
      "HTTP transport; auto tries streamable HTTP, then SSE.",
    ),
    protocol: z.enum(["auto", "legacy", "modern"], { error: "expected auto, legacy or modern" })
      .optional().describe(
        "Protocol era spoken to this server: auto (default) probes with server/discover and " +
          "falls back to initialize; legacy speaks 2025-11-25 (initialize, a session); modern " +
          "speaks 2026-07-28 only (stateless) and fails against a server that does not offer it.",
      ),
    apps: z.enum(["auto", "on", "off"], { error: "expected auto, on or off" }).optional().describe(
      "MCP Apps: offer this server the io.modelcontextprotocol/ui client capability so it " +
        "registers its app tools. auto (default) offers it, except to a session's own process " +
        "(isolation: session) whose client did not declare it; on always offers it; off never.",
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
    roots: z.union([
      z.literal("client"),
      z.array(
        z.union([
          z.string().min(1, { error: "expected a file:// URI or a path" }),
          z.strictObject({
            uri: z.string().min(1, { error: "expected a file:// URI or a path" }),
            name: z.string().optional(),
          }),
        ], { error: "expected a file:// URI, a path, or a map with uri and name" }),
      ),
    ], { error: "expected a list of roots or the word client" }).optional().describe(
      "Roots offered to this server: a fixed list (file:// URIs or paths relative to the config " +
        "file) answered by the gateway, or `client` (needs isolation: session) to pass each " +
        "session's own roots to its own process. Omitted: the roots capability is not offered.",
    ),
    isolation: z.enum(["shared", "session"], { error: "expected shared or session" }).optional()
      .describe(
        "shared (default): one process for every session. session: one process per client " +
          "session, started on its first call and stopped when it closes (stdio servers only).",
      ),
    maxSessions: z.number().int().positive().optional().describe(
      "With isolation: session, the most session processes at once (default 16).",
    ),
    pin: pinMode.optional().describe(
      "Pin this server's tool and prompt definitions (default gateway.pin): warn logs a changed, " +
        "new or renamed one; quarantine also hides and refuses it until approved; off ignores.",
    ),
    maxSessionsPerToken: z.number().int().positive().optional().describe(
      "With isolation: session, the most session processes one token may hold (default a " +
        "quarter of maxSessions, at least 1).",
    ),
    spare: z.number().int().nonnegative().max(16).optional().describe(
      "With isolation: session, how many processes to keep started ahead of need, so a new " +
        "session takes one at once (default 1; they count in maxSessions). 0: start each on demand.",
    ),
    inheritEnv: z.union([
      z.boolean(),
      z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "expected a variable name" })),
    ], { error: "expected true, false or a list of variable names" }).optional().describe(
      "Pass the gateway's environment to a stdio server: true (all of it) or a list of names. " +
        "Default: only PATH, HOME, LANG and TMPDIR. Auth token variables are never passed.",
    ),
    sandbox: sandbox.optional(),
    filters: filters.optional(),
  });

  const token = z.strictObject({
    name,
    token: z.string().min(16, { error: "expected a token of at least 16 characters" }),
    tools: globList.optional().describe("Glob allowlist of tool names; omitted = all."),
    admin: z.boolean().optional().describe(
      "May read /metrics, the status page and /status.json (default false).",
    ),
    profiles: z.array(name, { error: "expected a list of profile names" }).min(1, {
      error: "expected at least one profile (omit the key to allow every endpoint)",
    }).optional().describe(
      "Profiles this token may use (/mcp/<profile>, /sse/<profile>); omitted = every endpoint. " +
        "A limited token is refused on /mcp and /sse.",
    ),
  });

  const profile = z.strictObject({
    description: z.string().optional().describe("What the profile is for (status page)."),
    tools: globList.optional().describe("Globs over the gateway's tool names."),
    servers: z.array(name, { error: "expected a list of server names" }).optional().describe(
      "Whole servers: every tool, prompt and resource of each.",
    ),
    macros: globList.optional().describe("Globs over macro names."),
    exposure: z.enum(["all", "search"], { error: "expected all or search" }).optional().describe(
      "all | search for this profile (default: gateway.exposure).",
    ),
    execute: z.boolean().optional().describe(
      "Offer the execute tool (default: when a tools glob matches execute).",
    ),
  });

  const oauth = z.strictObject({
    issuer: z.url({ error: "expected the authorization server's issuer URL" }).describe(
      "Issuer of the access tokens (the `iss` claim); its metadata gives the JWKS.",
    ),
    audience: z.url({
      error: "expected the gateway's resource URL, like https://mcp.example.com/mcp",
    })
      .describe(
        "This gateway's resource identifier (its public /mcp URL); tokens' `aud` must hold it.",
      ),
    jwksUri: z.url({ error: "expected an http(s) URL" }).optional().describe(
      "Where the signing keys are (default: discovered from the issuer's metadata).",
    ),
    algorithms: z.array(
      z.enum(OAUTH_ALGORITHMS, {
        error:
          "expected an asymmetric JWS algorithm like RS256 or ES256 (none and HS* are refused)",
      }),
    ).min(1, { error: "expected at least one algorithm" }).optional().describe(
      "Signature algorithms accepted (default [RS256, ES256]).",
    ),
    scopes: z.record(z.string().min(1), globList).optional().describe(
      "Scope → tool globs; a token reaches the union of its granted scopes' globs.",
    ),
    claims: z.record(z.string().min(1), z.record(z.string(), globList)).optional().describe(
      "Claim → value → tool globs (e.g. roles: { admin: ['*'] }), added to the scopes' globs.",
    ),
    profiles: z.strictObject({
      claim: z.string().min(1).optional().describe(
        "The claim whose values are looked up in map (default scope: the granted scopes).",
      ),
      map: z.record(z.string(), z.array(name, { error: "expected a list of profile names" }), {
        error: "expected a map of claim value to profile names",
      }).describe("Claim value → profiles; an identity may use the union of its values' profiles."),
      default: z.array(name, { error: "expected a list of profile names" }).optional().describe(
        "Profiles of an identity none of whose values is mapped ([] = no endpoint); " +
          "omitted = such an identity is not limited to profiles.",
      ),
    }).optional().describe(
      "Limit OAuth identities to profiles (/mcp/<profile>) by a claim or their scopes.",
    ),
    clockTolerance: duration.optional().describe(
      "Clock skew allowed on exp and nbf (default 30s).",
    ),
    jwksCooldown: duration.optional().describe(
      "Least time between two key fetches caused by an unknown key id (default 30s).",
    ),
    resourceMetadata: z.strictObject({
      scopes_supported: z.array(z.string()).optional(),
      resource_name: z.string().optional(),
      resource_documentation: z.url().optional(),
    }).optional().describe("Extra fields of the protected resource metadata (RFC 9728)."),
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

  const audit = z.strictObject({
    file: z.string().min(1, { error: "expected a file path" }).optional().describe(
      "Audit log file, relative to the config file (default audit.jsonl in the state folder " +
        "unless journal is on).",
    ),
    args: z.enum(["none", "hash", "redacted", "full"], {
      error: "expected none, hash, redacted or full",
    }).optional().describe(
      "What of the arguments is kept: none, hash (SHA-256 of their canonical JSON, the default), " +
        "redacted (secret-named keys and long strings cut) or full.",
    ),
    maxSize: size.optional().describe("Rotate the file past this size (default 64MiB)."),
    keep: z.number().int().min(1).max(100).optional().describe(
      "Rotated files kept as FILE.1 … FILE.N (default 5).",
    ),
    journal: z.boolean().optional().describe(
      "Also write each record to stderr as a log line of component audit (the journal under " +
        "systemd), whatever the log level.",
    ),
  });

  // The whole config file.
  const config = z.strictObject({
    gateway: z.strictObject({
      listen: z.string().regex(/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, {
        error: "expected HOST:PORT like 127.0.0.1:8787",
      }).optional(),
      separator: z.string().regex(/^[A-Za-z0-9_-]{1,4}$/, {
        error: "expected 1-4 characters of letters, digits, '_' or '-'",
      }).optional(),
      exposure: z.enum(["all", "search"], { error: "expected all or search" }).optional(),
      unprefixedCalls: z.boolean().optional().describe(
        "Route a tools/call by a name the gateway does not expose to the one reachable server " +
          "offering it under that upstream name (MCP Apps views call their server's tools so; " +
          "default true).",
      ),
      streamAnswers: z.boolean().optional().describe(
        "Answer every POST of a 2025 streamable HTTP session as an event stream, as the MCP SDK " +
          "does: a priming event with an id, events kept for a resume with GET and " +
          "Last-Event-ID (default false: tools/call, tools/list and initialize answer plain " +
          "JSON with no SDK server built for them).",
      ),
      auth: z.strictObject({
        tokens: z.array(token).min(1, { error: "expected at least one token" }).optional(),
        rateLimit: z.strictObject({
          perMinute: z.number().int().positive(),
          burst: z.number().int().positive().optional(),
          concurrency: z.number().int().positive().optional().describe(
            "Tool calls one token may have in flight at once (default: unlimited).",
          ),
        }).optional(),
        oauth: oauth.optional().describe("Accept OAuth 2.1 access tokens (JWT) from this issuer."),
      }).optional(),
      allowedOrigins: globList.optional().describe(
        "Browser Origins allowed (default: http://localhost:*, http://127.0.0.1:*, http://[::1]:*).",
      ),
      allowedHosts: globList.optional().describe(
        "Host headers allowed (default on loopback: loopback names and the listen host).",
      ),
      cors: z.strictObject({
        origins: globList.min(1, { error: "expected at least one origin" }).describe(
          "Browser Origins (globs) that may read answers from another origin; also the origin " +
            "allowlist (set them here instead of allowedOrigins).",
        ),
        credentials: z.boolean().optional().describe(
          "Answer Access-Control-Allow-Credentials: true (cookies, HTTP auth; default false).",
        ),
        maxAge: duration.optional().describe("How long a browser keeps a preflight (default 10m)."),
      }).optional().describe(
        "CORS on /mcp, /sse, /message and the OAuth metadata for web pages on other origins " +
          "(off by default).",
      ),
      limits: z.strictObject({
        requestBody: size.optional(),
        sessions: z.number().int().positive().optional(),
        sessionIdle: duration.optional().describe(
          "Close a session idle this long although it holds a resource subscription or a task " +
            "(default 30m; 0s = never).",
        ),
        sessionIdleShort: duration.optional().describe(
          "Close a session that holds no open stream, subscription or task this long after its " +
            "last request (default 2m; 0s = only sessionIdle): one-shot clients that never " +
            "DELETE their session do not fill the table.",
        ),
        sessionsPerToken: z.number().int().positive().optional().describe(
          "Sessions one token may hold (default: a quarter of sessions, at least 1).",
        ),
        batch: z.number().int().positive().optional().describe(
          "Messages in one JSON-RPC batch (default 50); larger batches are refused whole.",
        ),
        streamBuffer: size.optional().describe(
          "Bytes queued for a client that does not read its event stream (default 4MiB); " +
            "past it progress and log notifications are dropped, or the stream is closed. " +
            "Also each session's share of progress and log notifications kept for a resume.",
        ),
        tasksPerToken: z.number().int().positive().max(10_000).optional().describe(
          "Tasks one token may hold in the gateway's table of 10000 (default 1000).",
        ),
      }).optional(),
      drainTimeout: duration.optional(),
      publicUrl: z.url({ error: "expected the URL browsers reach the gateway at" }).optional()
        .describe(
          "Where browsers reach this gateway (default http://<listen>): the base of the " +
            "/oauth/callback redirect of upstream logins.",
        ),
      secrets: z.strictObject({
        key: z.string().min(32, { error: "expected at least 32 characters" }).describe(
          "Key that encrypts stored upstream credentials (use ${ENV}); default: a key file " +
            "made in the state folder with mode 0600.",
        ),
      }).optional(),
      sandbox: sandbox.optional().describe("Default sandbox of every stdio server."),
      filters: filters.optional().describe("Filters applied to every server's results, first."),
      startWait: duration.optional().describe(
        "Longest wait for upstreams before clients are served at start (2s); later ones join.",
      ),
      telemetry: z.strictObject({
        otlp: z.url({ error: "expected an http(s) URL of an OTLP/HTTP traces endpoint" }).describe(
          "OTLP/HTTP traces endpoint, e.g. http://127.0.0.1:4318/v1/traces.",
        ),
        serviceName: z.string().min(1).optional().describe("service.name (default mcp-gateway)."),
        headers: z.record(z.string(), z.string(), { error: "expected a map of strings" }).optional()
          .describe("Headers sent with every export (an API key)."),
        flush: duration.optional().describe("Longest wait before buffered spans are sent (1s)."),
      }).optional().describe("OpenTelemetry traces; off when absent."),
      state: z.string().min(1, { error: "expected a folder" }).optional().describe(
        "Folder for what the gateway keeps across restarts (pins), relative to the config file " +
          "(default $STATE_DIRECTORY, else .mcp-gateway beside the config file).",
      ),
      pin: pinMode.optional().describe("Default pin mode of every server (default warn)."),
      audit: audit.optional().describe(
        "One JSON line per tool call, prompt get and resource read.",
      ),
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
    servers: z.record(name, server, { error: "expected a map of server name to server" })
      .optional(),
    profiles: z.record(name, profile, { error: "expected a map of profile name to profile" })
      .optional().describe("Endpoints with a subset of the tools: /mcp/<name>, /sse/<name>."),
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
        workersPerToken: z.number().int().min(1).max(128).optional().describe(
          "Script runs one token may have at once (default half of 2 × workers).",
        ),
      }).optional(),
      tools: z.record(name, inlineMacro).optional(),
    }).optional(),
    discovery: z.strictObject({
      embeddings: z.strictObject({
        url: z.url({ error: "expected the http(s) URL of an OpenAI-compatible /v1/embeddings" })
          .describe("The embeddings endpoint, e.g. http://127.0.0.1:11434/v1/embeddings."),
        model: z.string().min(1, { error: "expected a model name" }).describe(
          "Model asked for, e.g. nomic-embed-text.",
        ),
        apiKey: z.string().min(1).optional().describe("Bearer key (use ${ENV}); never logged."),
        timeout: duration.optional().describe("Longest wait for one request (default 5s)."),
      }).optional().describe(
        "Semantic ranking fused with the lexical one; lexical alone while the endpoint is down.",
      ),
    }).optional().describe("How tool_search ranks."),
  });
  return { config, server, upstreamOAuth, oauth, sandbox, filters, profile, inlineMacro };
}

/** The config as written (after `${ENV}` expansion). */
export type RawConfig = z.infer<Schemas["config"]>;
/** One server entry as written. */
export type RawServer = z.infer<Schemas["server"]>;
/** One `servers.<name>.oauth` section as written. */
export type RawUpstreamOAuth = z.infer<Schemas["upstreamOAuth"]>;
/** The `gateway.auth.oauth` section as written. */
export type RawOAuth = z.infer<Schemas["oauth"]>;
/** A `sandbox:` entry as written. */
export type RawSandbox = z.infer<Schemas["sandbox"]>;
/** A `filters:` list as written. */
export type RawFilters = z.infer<Schemas["filters"]>;
/** One profile as written. */
export type RawProfile = z.infer<Schemas["profile"]>;
/** One inline macro as written. */
export type RawInlineMacro = z.infer<Schemas["inlineMacro"]>;

/** The editor JSON Schema, generated from {@link configSchema}. */
export function configJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(configSchema(), { io: "input", unrepresentable: "any" }),
    title: "mcp-gateway configuration",
  };
}
