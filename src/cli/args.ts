/** Command-line parsing: one place that knows every flag and sub-command. */
import { parseArgs } from "node:util";
import { GatewayError } from "../shared/errors.ts";
import { LOG_LEVELS, type LogLevel } from "../shared/log.ts";

/** Sub-commands. */
export const COMMANDS = [
  "serve",
  "check",
  "tools",
  "call",
  "run",
  "import",
  "approve",
  "login",
] as const;
/** A sub-command. */
export type Command = typeof COMMANDS[number];

/** Parsed command line. */
export interface CliArgs {
  command: Command;
  config: string;
  listen: string | null;
  stdio: boolean;
  /** `--stdio --profile NAME`: serve one profile's endpoint on stdin/stdout. */
  profile: string | null;
  logLevel: LogLevel | null;
  json: boolean;
  /** `login --url`: the running gateway's address. */
  url: string | null;
  /** `check --connect`: start each upstream once. */
  connect: boolean;
  help: boolean;
  version: boolean;
  positionals: string[];
}

/** The `--help` text. */
export const USAGE = `mcp-gateway — many MCP servers behind one endpoint, with Lua scripting

Usage:
  mcp-gateway [--config FILE] [--listen HOST:PORT] [--stdio [--profile NAME]] [--log-level LEVEL]
  mcp-gateway check   [--config FILE] [--connect]   every start-time rule (exit 0 ok, 2 invalid)
  mcp-gateway tools   [--config FILE] [--json]   connect upstreams, print the tool list
  mcp-gateway call    TOOL [JSON]          call one tool through the gateway
  mcp-gateway run     SCRIPT.lua           run a Lua script against the upstreams
  mcp-gateway import  FILE.json            print a gateway.yaml for a Claude/Cursor/VS Code config
  mcp-gateway approve SERVER[/USER] [TOOL...]  accept what SERVER declares now (pin:), all or TOOLs
  mcp-gateway login   SERVER [--url URL]   log the running gateway in to an OAuth upstream
  mcp-gateway --help | --version

Options:
  --config FILE       config file (default ./gateway.yaml)
  --listen HOST:PORT  override gateway.listen
  --stdio             serve one MCP client on stdin/stdout instead of HTTP
  --profile NAME      with --stdio: serve only that profile's tools (over HTTP: /mcp/NAME)
  --log-level LEVEL   debug | info | warn | error | silent (default info)
  --json              machine-readable output (tools)
  --connect           check: also start each upstream once and report its tools
  --url URL           login: the running gateway (default gateway.publicUrl, else its listen
                      address); an admin token is read from MCP_GATEWAY_TOKEN

Exit codes: 0 ok, 1 runtime error, 2 usage or config error.`;

/** Parses argv (without the program name). Throws `GatewayError(USAGE)` on bad input. */
export function parseCli(argv: readonly string[]): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        config: { type: "string", short: "c" },
        listen: { type: "string" },
        stdio: { type: "boolean" },
        profile: { type: "string" },
        "log-level": { type: "string" },
        json: { type: "boolean" },
        connect: { type: "boolean" },
        url: { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "V" },
      },
    });
  } catch (err) {
    throw new GatewayError("USAGE", (err as Error).message);
  }
  const { values, positionals } = parsed;
  let command: Command = "serve";
  const rest = [...positionals];
  if (rest.length > 0) {
    const first = rest[0]!;
    if (!(COMMANDS as readonly string[]).includes(first) || first === "serve") {
      throw new GatewayError(
        "USAGE",
        `unknown command "${first}" (expected ${COMMANDS.slice(1).join(", ")})`,
      );
    }
    command = first as Command;
    rest.shift();
  }
  const level = values["log-level"];
  if (level !== undefined && !(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new GatewayError(
      "USAGE",
      `--log-level: expected one of ${LOG_LEVELS.join(", ")}, got "${level}"`,
    );
  }
  if (
    values.listen !== undefined &&
    !/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(values.listen)
  ) {
    throw new GatewayError(
      "USAGE",
      `--listen: expected HOST:PORT like 127.0.0.1:8787, got "${values.listen}"`,
    );
  }
  if (values.profile !== undefined && (!values.stdio || command !== "serve")) {
    throw new GatewayError(
      "USAGE",
      "--profile needs --stdio (over HTTP each profile is served at /mcp/<profile>)",
    );
  }
  const expected: Partial<Record<Command, [number, number, string]>> = {
    serve: [0, 0, ""],
    check: [0, 0, ""],
    tools: [0, 0, ""],
    call: [1, 2, "call TOOL [JSON]"],
    run: [1, 1, "run SCRIPT.lua"],
    import: [1, 1, "import FILE.json"],
    approve: [1, Infinity, "approve SERVER [TOOL...]"],
    login: [1, 1, "login SERVER [--url URL]"],
  };
  const [min, max, shape] = expected[command]!;
  if (!values.help && (rest.length < min || rest.length > max)) {
    throw new GatewayError(
      "USAGE",
      shape ? `usage: mcp-gateway ${shape}` : `${command} takes no arguments`,
    );
  }
  return {
    command,
    config: values.config ?? "gateway.yaml",
    listen: values.listen ?? null,
    stdio: values.stdio ?? false,
    profile: values.profile ?? null,
    logLevel: (level as LogLevel | undefined) ?? null,
    json: values.json ?? false,
    url: values.url ?? null,
    connect: values.connect ?? false,
    help: values.help ?? false,
    version: values.version ?? false,
    positionals: rest,
  };
}
