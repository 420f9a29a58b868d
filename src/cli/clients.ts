/**
 * The MCP clients `connect-client` and `import --write` write the gateway into: where each keeps
 * its config, under which key its servers are, and how it names an HTTP server, a stdio server
 * and an environment variable in a header. Claude Desktop's config file starts stdio servers
 * only, so the gateway is started there as one (`--stdio`).
 */
import { homedir } from "node:os";
import { join } from "node:path";

/** A client `connect-client` knows. */
export const CLIENTS = ["claude-desktop", "claude-code", "cursor", "vscode", "windsurf"] as const;
/** One of {@link CLIENTS}. */
export type ClientKind = typeof CLIENTS[number];

/** How the client reaches the gateway. */
export type GatewayTarget =
  | { kind: "http"; url: string; tokenEnv: string | null }
  | { kind: "stdio"; command: string; args: string[] };

interface ClientShape {
  /** The key of the server map in the client's file. */
  key: "mcpServers" | "servers";
  /** Whether the client takes HTTP servers in its config file. */
  http: boolean;
  /** The entry naming `target`. */
  entry(target: GatewayTarget): Record<string, unknown>;
}

/**
 * A client's entry for `target`: over HTTP the URL under `urlKey` and the token read from its
 * variable through `ref` (the client's syntax for it); `typed` clients name the transport.
 */
function entryOf(
  target: GatewayTarget,
  style: { urlKey: string; ref: (name: string) => string; typed: boolean },
): Record<string, unknown> {
  if (target.kind === "stdio") return stdioEntry(target, style.typed ? { type: "stdio" } : {});
  const headers = target.tokenEnv
    ? { headers: { Authorization: `Bearer ${style.ref(target.tokenEnv)}` } }
    : {};
  return { ...(style.typed ? { type: "http" } : {}), [style.urlKey]: target.url, ...headers };
}

const envRef = (name: string) => `\${env:${name}}`;

const SHAPES: Record<ClientKind, ClientShape> = {
  "claude-desktop": { key: "mcpServers", http: false, entry: (t) => stdioEntry(t, {}) },
  "claude-code": {
    key: "mcpServers",
    http: true,
    entry: (t) => entryOf(t, { urlKey: "url", ref: (name) => `\${${name}}`, typed: true }),
  },
  cursor: {
    key: "mcpServers",
    http: true,
    entry: (t) => entryOf(t, { urlKey: "url", ref: envRef, typed: false }),
  },
  vscode: {
    key: "servers",
    http: true,
    entry: (t) => entryOf(t, { urlKey: "url", ref: envRef, typed: true }),
  },
  windsurf: {
    key: "mcpServers",
    http: true,
    entry: (t) => entryOf(t, { urlKey: "serverUrl", ref: envRef, typed: false }),
  },
};

function stdioEntry(t: GatewayTarget, extra: Record<string, unknown>): Record<string, unknown> {
  if (t.kind !== "stdio") throw new Error("this client starts stdio servers only");
  return { ...extra, command: t.command, args: t.args };
}

/** The shape of `kind`'s config file. */
export function clientShape(kind: ClientKind): ClientShape {
  return SHAPES[kind];
}

/**
 * Where `kind` keeps its user-wide MCP config on this platform (`env`: the process
 * environment, for `APPDATA` and `XDG_CONFIG_HOME`).
 */
export function clientFile(
  kind: ClientKind,
  env: Record<string, string | undefined> = process.env,
  platform: string = process.platform,
  home: string = homedir(),
): string {
  const appData = env.APPDATA ?? join(home, "AppData", "Roaming");
  const xdg = env.XDG_CONFIG_HOME ?? join(home, ".config");
  const userConfig = platform === "darwin"
    ? join(home, "Library", "Application Support")
    : platform === "win32"
    ? appData
    : xdg;
  switch (kind) {
    case "claude-desktop":
      return join(userConfig, "Claude", "claude_desktop_config.json");
    case "claude-code":
      return join(home, ".claude.json");
    case "cursor":
      return join(home, ".cursor", "mcp.json");
    case "vscode":
      return join(userConfig, "Code", "User", "mcp.json");
    case "windsurf":
      return join(home, ".codeium", "windsurf", "mcp_config.json");
  }
}

/** The client whose file `path` is, judged by its name; `null` when it says nothing. */
export function clientOfFile(path: string): ClientKind | null {
  const p = path.replace(/\\/g, "/");
  if (p.endsWith("claude_desktop_config.json")) return "claude-desktop";
  if (p.endsWith("/.claude.json") || p.endsWith("/.mcp.json")) return "claude-code";
  if (p.includes("/.cursor/")) return "cursor";
  if (p.includes("windsurf/")) return "windsurf";
  if (p.includes("/.vscode/") || p.includes("/Code/User/")) return "vscode";
  return null;
}
