/** The normalised, frozen configuration every other room reads (durations in ms, sizes in bytes). */

/** Per-tool override of an upstream tool. */
export interface ToolOverride {
  readonly name?: string;
  readonly description?: string;
  readonly hidden?: boolean;
  readonly discoverable?: boolean;
}

/** Restart policy with exponential backoff. */
export interface RestartPolicy {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly resetAfterMs: number;
  /** Consecutive failures before giving up; `null` = never give up. */
  readonly maxRestarts: number | null;
}

interface ServerCommon {
  readonly name: string;
  readonly timeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly allow: readonly string[];
  readonly deny: readonly string[];
  readonly overrides: Readonly<Record<string, ToolOverride>>;
  readonly prefix: boolean;
  readonly discoverable: boolean;
  readonly required: boolean;
  readonly enabled: boolean;
  readonly restart: RestartPolicy;
  /** Roots offered to the server: a fixed list, each session's own (`client`), or none. */
  readonly roots: readonly RootConfig[] | "client" | null;
  /** `session`: one process per client session (stdio only). */
  readonly isolation: "shared" | "session";
  /** With `isolation: session`, the most session processes at once. */
  readonly maxSessions: number;
  /** With `isolation: session`, the most session processes one token may hold. */
  readonly maxSessionsPerToken: number;
  /** With `isolation: session`, how many processes are kept started ahead of need (0: none). */
  readonly spare: number;
  /**
   * The protocol era spoken to it: `auto` probes with `server/discover` and falls back to
   * `initialize`; `legacy` is the 2025 wire (SDK 1.x client); `modern` is 2026-07-28 only.
   */
  readonly protocol: "auto" | "legacy" | "modern";
  /** MCP Apps: whether the server is offered the `io.modelcontextprotocol/ui` capability. */
  readonly apps: "auto" | "on" | "off";
  /** Filters applied to its tool results and resource reads, in order (the gateway's first). */
  readonly filters: readonly FilterSpec[];
  /** What changed declarations do: logged (`warn`), also hidden and refused (`quarantine`). */
  readonly pin: PinMode;
}

/** One result filter: a built-in or a Lua file. */
export type FilterSpec =
  | { readonly kind: "builtin"; readonly name: "secrets" | "pii" | "spotlight" }
  | {
    readonly kind: "lua";
    /** `lua:<file name without .lua>`, as metrics and call records name it. */
    readonly name: string;
    /** Absolute path of the Lua file. */
    readonly file: string;
  };

/** What a sandboxed stdio server may reach (see `upstream/sandbox/`). */
export interface SandboxConfig {
  /** Absolute folders bound read-only. */
  readonly read: readonly string[];
  /** Absolute folders bound writable. */
  readonly write: readonly string[];
  /** Keep the host's network (default false: a network namespace of its own, loopback only). */
  readonly network: boolean;
  /** True when `cwd` was written (bound writable); false: an empty folder at the same path. */
  readonly ownCwd: boolean;
  /** Processes and threads of the box at once (`RLIMIT_NPROC`). */
  readonly processes: number;
  /** Bytes of writable memory per process (`RLIMIT_DATA`). */
  readonly memory: number;
  /** Folders hidden even where a bound package folder holds them (config folder, `$HOME`),
   * as real paths. */
  readonly hidden: readonly string[];
  /** The state folder's real path: nothing inside it is bound. */
  readonly state: string;
}

/** How a server's declared tools and prompts are pinned. */
export type PinMode = "off" | "warn" | "quarantine";

/** `gateway.audit`: one JSON record per tool call, prompt get and resource read. */
export interface AuditConfig {
  /** Absolute file path, or `null` for the journal only. */
  readonly file: string | null;
  /** What of the arguments a record keeps. */
  readonly args: "none" | "hash" | "redacted" | "full";
  /** Size past which the file is rotated. */
  readonly maxBytes: number;
  /** Rotated files kept. */
  readonly keep: number;
  /** Also write each record to stderr (the journal under systemd). */
  readonly journal: boolean;
}

/** One root the gateway offers an upstream on its own (a `file://` URI). */
export interface RootConfig {
  readonly uri: string;
  readonly name?: string;
}

/** A stdio upstream: a child process speaking MCP on stdin/stdout. */
export interface StdioServerConfig extends ServerCommon {
  readonly kind: "stdio";
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** Gateway variables passed on: `true` = all, a list = those names, `false` = the base only. */
  readonly inheritEnv: boolean | readonly string[];
  /** Variables never passed on: they hold or name a secret of the gateway's (names only). */
  readonly withheldEnv: readonly string[];
  /** Run under bubblewrap; `null` = unboxed. */
  readonly sandbox: SandboxConfig | null;
}

/** An HTTP upstream: streamable HTTP, legacy SSE, or auto (streamable first, then SSE). */
export interface HttpServerConfig extends ServerCommon {
  readonly kind: "http";
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly transport: "auto" | "streamable-http" | "sse";
  /** How the gateway logs in to it (`servers.<name>.oauth`); `null` = no OAuth. */
  readonly oauth: UpstreamOAuthConfig | null;
}

/** `servers.<name>.oauth`: the client side of OAuth 2.1 towards one HTTP upstream. */
export interface UpstreamOAuthConfig {
  /** `shared`: one operator login for every client. */
  readonly mode: "shared" | "per-user" | "exchange";
  /** The authorization server; `null` = discovered (RFC 9728 from the server's 401). */
  readonly issuer: string | null;
  /** A pre-registered client; `null` = dynamic client registration. */
  readonly clientId: string | null;
  readonly clientSecret: string | null;
  /** Scopes to ask for; `null` = what the server's challenge names. */
  readonly scopes: readonly string[] | null;
  /** Exchange mode: the audience asked for; `null` = the server's URL. */
  readonly audience: string | null;
}

/** One upstream server. */
export type ServerConfig = StdioServerConfig | HttpServerConfig;

/** Where spans go (OTLP over HTTP). */
export interface TelemetryConfig {
  /** The OTLP/HTTP traces endpoint. */
  readonly otlp: string;
  readonly serviceName: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Longest wait before buffered spans are exported. */
  readonly flushMs: number;
}

/** An API token with an optional tool allowlist. */
export interface TokenConfig {
  readonly name: string;
  readonly token: string;
  /** Glob allowlist; `null` = every tool. */
  readonly tools: readonly string[] | null;
  /** May read `/metrics`, the status page and `/status.json`. */
  readonly admin: boolean;
  /** Profiles it may use; `null` = every endpoint (`/mcp` and each profile's). */
  readonly profiles: readonly string[] | null;
}

/** A profile: one more endpoint (`/mcp/<name>`) serving a subset of the catalog. */
export interface ProfileConfig {
  readonly name: string;
  readonly description: string;
  /** Globs over the gateway's tool names. */
  readonly tools: readonly string[];
  /** Whole servers. */
  readonly servers: readonly string[];
  /** Globs over macro names. */
  readonly macros: readonly string[];
  readonly exposure: "all" | "search";
  /** Offer `execute`; `null` = when a `tools` glob matches it. */
  readonly execute: boolean | null;
}

/** OAuth 2.1 resource-server mode: access tokens (JWT) from one authorization server. */
export interface OAuthConfig {
  readonly issuer: string;
  /** This gateway's resource identifier; a token's `aud` must contain it. */
  readonly audience: string;
  /** `null` = discovered from the issuer's metadata. */
  readonly jwksUri: string | null;
  readonly algorithms: readonly string[];
  /** Scope → tool globs; `null` (with no `claims`) = a valid token reaches every tool. */
  readonly scopes: Readonly<Record<string, readonly string[]>> | null;
  /** Claim name → claim value → tool globs. */
  readonly claims: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
  /**
   * Claim (`scope`: the granted scopes) → value → profiles the identity may use; `null` = OAuth
   * identities are never limited to profiles.
   */
  readonly profiles: OAuthProfiles | null;
  readonly clockToleranceMs: number;
  readonly jwksCooldownMs: number;
  /** Extra fields of the protected resource metadata document. */
  readonly resourceMetadata: Readonly<Record<string, unknown>>;
}

/** `gateway.auth.oauth.profiles`: which profiles an OAuth identity may use. */
export interface OAuthProfiles {
  /** The claim read; `scope` reads the granted scopes (`scope` or `scp`). */
  readonly claim: string;
  readonly map: Readonly<Record<string, readonly string[]>>;
  /** For an identity none of whose values is mapped; `null` = not limited. */
  readonly default: readonly string[] | null;
}

/** A macro parameter spec as written (string shorthand or map). */
export type ParamSpec = string | {
  readonly type?: string;
  readonly description?: string;
  readonly default?: unknown;
  readonly required?: boolean;
};

/** A macro declared in `scripting.tools`. */
export interface InlineMacroConfig {
  readonly name: string;
  readonly description: string;
  readonly params: Readonly<Record<string, ParamSpec>>;
  readonly keywords: readonly string[];
  readonly discoverable: boolean;
  /** Inline chunk, or `null` when `file` is used. */
  readonly lua: string | null;
  /** Absolute script path, or `null` when `lua` is used. */
  readonly file: string | null;
}

/** Limits applied to each script run. */
export interface ScriptLimitsConfig {
  readonly timeoutMs: number;
  readonly memoryBytes: number;
  readonly transferBytes: number;
  readonly pictures: number;
  readonly workers: number;
  /** Script runs one token may have at once; `null` = half the run slots. */
  readonly workersPerToken: number | null;
}

/** The whole normalised config. */
export interface GatewayConfig {
  /** Absolute path of the config file. */
  readonly file: string;
  /** Its folder: relative paths resolve here. */
  readonly dir: string;
  readonly gateway: {
    readonly host: string;
    readonly port: number;
    readonly separator: string;
    readonly exposure: "all" | "search";
    /** A `tools/call` by an upstream name reaches the one server offering it (MCP Apps views). */
    readonly unprefixedCalls: boolean;
    /**
     * A 2025 streamable HTTP session answers every POST as a resumable event stream through the
     * SDK's transport; `false` (the default): the fast paths answer plain JSON.
     */
    readonly streamAnswers: boolean;
    readonly tokens: readonly TokenConfig[] | null;
    readonly rateLimit: {
      readonly perMinute: number;
      readonly burst: number;
      /** Tool calls one token may have in flight; `null` = unlimited. */
      readonly concurrency: number | null;
    } | null;
    /** OAuth access tokens accepted beside `tokens`; `null` = none. */
    readonly oauth: OAuthConfig | null;
    /** Globs over `Origin` (default: http://localhost:*, http://127.0.0.1:*, http://[::1]:*). */
    readonly allowedOrigins: readonly string[];
    /**
     * CORS for pages on other origins, answered for exactly {@link allowedOrigins} (which then
     * come from `cors.origins`); `null` = off.
     */
    readonly cors: CorsConfig | null;
    /** Globs over `Host`; `null` = loopback names and the listen host when on loopback. */
    readonly allowedHosts: readonly string[] | null;
    readonly requestBodyBytes: number;
    readonly maxSessions: number;
    /** Sessions one token may hold (a share of `maxSessions`). */
    readonly maxSessionsPerToken: number;
    /** Messages allowed in one JSON-RPC batch. */
    readonly maxBatch: number;
    /** Bytes queued for one slow reader of an event stream before events are dropped. */
    readonly streamBufferBytes: number;
    /** Tasks one token may hold in the gateway's task table (`limits.tasksPerToken`). */
    readonly maxTasksPerToken: number;
    /** Idle time that ends a session holding a subscription or a task; 0 = never. */
    readonly sessionIdleMs: number;
    /** Idle time that ends a session holding nothing (no stream, subscription, task); 0 = off. */
    readonly sessionIdleShortMs: number;
    readonly drainTimeoutMs: number;
    /**
     * Longest wait at start for upstreams before clients are served; servers up by then are
     * listed, later ones join with `list_changed`.
     */
    readonly startWaitMs: number;
    /** OpenTelemetry traces; `null` = off. */
    readonly telemetry: TelemetryConfig | null;
    /** Where browsers reach the gateway (upstream login redirects); `null` = the listen address. */
    readonly publicUrl: string | null;
    /** Key of the stored upstream credentials; `null` = a key file in the state folder. */
    readonly secretsKey: string | null;
    /** Several instances sharing Redis; `null` = everything in-process. */
    readonly cluster: ClusterConfig | null;
    /** Absolute state folder (pins; see `src/state/`). */
    readonly state: string;
    /** Default pin mode of servers that set none. */
    readonly pin: PinMode;
    /** The audit log; `null` = off. */
    readonly audit: AuditConfig | null;
  };
  readonly servers: readonly ServerConfig[];
  /** Profiles by name, in file order. */
  readonly profiles: readonly ProfileConfig[];
  readonly discovery: {
    /** Semantic ranking through an embeddings endpoint; `null` = lexical only. */
    readonly embeddings: EmbeddingsConfig | null;
  };
  readonly scripting: {
    /** Absolute macro folder, or `null` when none. */
    readonly macrosDir: string | null;
    readonly execute: boolean;
    /** Mount point → absolute host folder. */
    readonly vfs: Readonly<Record<string, string>>;
    readonly limits: ScriptLimitsConfig;
    readonly tools: readonly InlineMacroConfig[];
  };
}

/** `discovery.embeddings`: an OpenAI-compatible embeddings endpoint. */
export interface EmbeddingsConfig {
  readonly url: string;
  readonly model: string;
  /** Bearer key; `null` = none. Never logged. */
  readonly apiKey: string | null;
  readonly timeoutMs: number;
}

/** `gateway.cluster`: instances sharing one Redis. */
export interface ClusterConfig {
  readonly redisUrl: string;
  readonly timeoutMs: number;
  /** Shared HMAC key for MRTR `requestState`; `null` = derived from the Redis URL. */
  readonly stateKey: string | null;
  readonly instance: string | null;
  readonly advertise: string | null;
  readonly heartbeatMs: number;
}

/** `gateway.cors`, normalised (its origins are the gateway's `allowedOrigins`). */
export interface CorsConfig {
  /** Answer `Access-Control-Allow-Credentials: true`. */
  readonly credentials: boolean;
  /** `Access-Control-Max-Age` of a preflight answer, in seconds. */
  readonly maxAgeS: number;
}
