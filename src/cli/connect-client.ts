/**
 * `mcp-gateway connect-client CLIENT [--profile P] [--token-env VAR] [--stdio] [--file F]
 * [--url U] [--dry-run]`: writes the gateway into a client's MCP config as one server named
 * `mcp-gateway` (`mcp-gateway-<profile>` for a profile). Clients that take HTTP servers get the
 * running gateway's URL, with the token read from the environment variable `VAR` in the
 * client's own syntax (never the token itself); Claude Desktop — or any client with `--stdio` —
 * starts the gateway as its stdio server on this config. The rest of the file is kept as it
 * is (`./client-file.ts`).
 */
import { resolve } from "node:path";
import { type GatewayConfig, loadConfig } from "../config/mod.ts";
import { profileConfig } from "../gateway/mod.ts";
import { selfCommand } from "../runtime/mod.ts";
import { GatewayError } from "../shared/errors.ts";
import { diffOf, editJson, type FileEdit, writeEdit } from "./client-file.ts";
import {
  clientFile,
  type ClientKind,
  CLIENTS,
  clientShape,
  type GatewayTarget,
} from "./clients.ts";

/** Options of `connect-client`. */
export interface ConnectOptions {
  profile: string | null;
  tokenEnv: string | null;
  stdio: boolean;
  file: string | null;
  url: string | null;
  dryRun: boolean;
  /** `--env-file`: handed on to a gateway the client starts (`--stdio`). */
  envFile: string | null;
}

/** The default variable a client reads the gateway's token from. */
export const TOKEN_ENV = "MCP_GATEWAY_TOKEN";

/** Runs `connect-client`; prints the diff (dry run) or where it wrote and the backup. */
export async function connectClientCommand(
  configFile: string,
  client: string,
  options: ConnectOptions,
): Promise<number> {
  if (!(CLIENTS as readonly string[]).includes(client)) {
    throw new GatewayError(
      "USAGE",
      `connect-client: unknown client "${client}" (expected ${CLIENTS.join(", ")})`,
    );
  }
  const kind = client as ClientKind;
  const config = await loadConfig(configFile);
  if (options.profile !== null && !profileConfig(config, options.profile)) {
    throw new GatewayError(
      "USAGE",
      `connect-client: no profile "${options.profile}" in ${config.file}`,
    );
  }
  const shape = clientShape(kind);
  const stdio = options.stdio || !shape.http;
  const target = stdio
    ? stdioTarget(config.file, options.profile, options.envFile)
    : httpTarget(config, options);
  const name = options.profile ? `mcp-gateway-${options.profile}` : "mcp-gateway";
  const file = resolve(options.file ?? clientFile(kind));
  const edit = editJson(file, [shape.key, name], shape.entry(target));
  report(edit, options.dryRun, `${kind}: server "${name}"`);
  if (target.kind === "http" && target.tokenEnv) {
    process.stderr.write(
      `${kind} reads the token from the environment variable ${target.tokenEnv}: set it where ` +
        `the client starts\n`,
    );
  }
  return 0;
}

/** Prints `edit`'s diff (dry run) or writes it with its backup; says which. */
export function report(edit: FileEdit, dryRun: boolean, what: string): void {
  if (edit.before === edit.after) {
    process.stderr.write(`${edit.file} already has ${what}; nothing to change\n`);
    return;
  }
  if (dryRun) {
    process.stdout.write(diffOf(edit));
    return;
  }
  const backup = writeEdit(edit);
  process.stderr.write(
    `wrote ${what} to ${edit.file}` + (backup ? ` (the old file is ${backup})` : "") + "\n",
  );
}

/** The gateway started by the client on `configFile` (absolute), narrowed to `profile`. */
export function stdioTarget(
  configFile: string,
  profile: string | null,
  envFile: string | null,
): GatewayTarget {
  const [command, ...self] = selfCommand();
  const args = [...self, "--stdio", "--config", resolve(configFile)];
  if (profile) args.push("--profile", profile);
  if (envFile) args.push("--env-file", resolve(envFile));
  return { kind: "stdio", command: command!, args };
}

/** The running gateway's URL (`--url`, `publicUrl`, else the listen address) and token. */
function httpTarget(config: GatewayConfig, options: ConnectOptions): GatewayTarget {
  const g = config.gateway;
  const host = g.host === "0.0.0.0" ? "127.0.0.1" : g.host === "::" ? "[::1]" : g.host;
  const shown = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const base = (options.url ?? g.publicUrl ?? `http://${shown}:${g.port}`).replace(/\/+$/, "")
    .replace(/\/mcp$/, "");
  const url = `${base}/mcp${options.profile ? `/${options.profile}` : ""}`;
  const tokenEnv = options.tokenEnv ?? (g.tokens !== null || g.oauth !== null ? TOKEN_ENV : null);
  if (tokenEnv !== null && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv)) {
    throw new GatewayError("USAGE", `--token-env: "${tokenEnv}" is not a variable name`);
  }
  return { kind: "http", url, tokenEnv };
}
