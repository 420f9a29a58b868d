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
}

/** A stdio upstream: a child process speaking MCP on stdin/stdout. */
export interface StdioServerConfig extends ServerCommon {
  readonly kind: "stdio";
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
}

/** An HTTP upstream: streamable HTTP, legacy SSE, or auto (streamable first, then SSE). */
export interface HttpServerConfig extends ServerCommon {
  readonly kind: "http";
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly transport: "auto" | "streamable-http" | "sse";
}

/** One upstream server. */
export type ServerConfig = StdioServerConfig | HttpServerConfig;

/** An API token with an optional tool allowlist. */
export interface TokenConfig {
  readonly name: string;
  readonly token: string;
  /** Glob allowlist; `null` = every tool. */
  readonly tools: readonly string[] | null;
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
    readonly tokens: readonly TokenConfig[] | null;
    readonly rateLimit: { readonly perMinute: number; readonly burst: number } | null;
    /** Globs over `Origin` (default: http://localhost:*, http://127.0.0.1:*, http://[::1]:*). */
    readonly allowedOrigins: readonly string[];
    /** Globs over `Host`; `null` = loopback names and the listen host when on loopback. */
    readonly allowedHosts: readonly string[] | null;
    readonly requestBodyBytes: number;
    readonly maxSessions: number;
    readonly sessionIdleMs: number;
    readonly drainTimeoutMs: number;
    /** Several instances sharing Redis; `null` = everything in-process. */
    readonly cluster: ClusterConfig | null;
  };
  readonly servers: readonly ServerConfig[];
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
