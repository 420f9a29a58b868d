/**
 * `mcp-gateway login SERVER`: logs the running gateway in to an OAuth upstream (`oauth: mode:
 * shared`). The gateway does the OAuth work and holds the result; this command only asks it to
 * begin (`POST /oauth/login/SERVER`), prints the authorization URL to open, and waits until the
 * browser has come back to the gateway's `/oauth/callback`. Talking to the running gateway is
 * what works under systemd: the credential lands in the process that uses it, under its user and
 * its state folder, with no second listener on its port. With auth on, an admin token is read
 * from `MCP_GATEWAY_TOKEN`.
 */
import { GatewayError, messageOf } from "../shared/errors.ts";
import { LOGIN_TTL_MS, type LoginState } from "../upstream/oauth/mod.ts";
import { readConfig } from "./boot.ts";

/** Options of {@link loginCommand}. */
export interface LoginOptions {
  /** The gateway's base URL; default `gateway.publicUrl`, else its listen address. */
  url: string | null;
  /** Poll interval in ms (tests shorten it). */
  pollMs?: number;
}

/** Runs the command; resolves with the exit code. */
export async function loginCommand(
  configFile: string,
  server: string,
  options: LoginOptions,
): Promise<number> {
  const base = (options.url ?? baseOf(configFile)).replace(/\/+$/, "");
  const token = process.env.MCP_GATEWAY_TOKEN;
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const begun = await ask(base, `/oauth/login/${encodeURIComponent(server)}`, {
    method: "POST",
    headers,
  }) as { authorizationUrl: string; id: string };
  process.stdout.write(
    `Open this URL in a browser to log in to server ${server}:\n\n  ${begun.authorizationUrl}\n\n` +
      "Waiting for the login to complete…\n",
  );
  const until = Date.now() + LOGIN_TTL_MS + 5_000;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, options.pollMs ?? 1000));
    const state = await ask(base, `/oauth/logins/${begun.id}`, { headers }) as LoginState;
    if (state.status === "done") {
      process.stdout.write(`Logged in: server ${server} is connecting.\n`);
      return 0;
    }
    if (state.status === "failed") {
      process.stderr.write(`mcp-gateway: login to server ${server} failed: ${state.error}\n`);
      return 1;
    }
  }
  process.stderr.write(`mcp-gateway: login to server ${server} timed out\n`);
  return 1;
}

/** The gateway's address from the config: `gateway.publicUrl`, else `gateway.listen`. */
function baseOf(configFile: string): string {
  const config = readConfig(configFile);
  const g = config.gateway;
  if (g.publicUrl !== null) return g.publicUrl;
  const host = g.host === "0.0.0.0" ? "127.0.0.1" : g.host === "::" ? "::1" : g.host;
  return `http://${host.includes(":") ? `[${host}]` : host}:${g.port}`;
}

async function ask(base: string, path: string, init: RequestInit): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(base + path, { ...init, signal: AbortSignal.timeout(30_000) });
  } catch (err) {
    throw new GatewayError(
      "UPSTREAM_UNAVAILABLE",
      `cannot reach the gateway at ${base} (login talks to the running gateway; is it ` +
        `running? --url names another address): ${messageOf(err)}`,
    );
  }
  const body = await res.json().catch(() => ({})) as { error?: { message?: string } };
  if (!res.ok) {
    const why = body.error?.message ?? `HTTP ${res.status}`;
    const hint = res.status === 401 || res.status === 403
      ? " (set MCP_GATEWAY_TOKEN to an admin token)"
      : "";
    throw new GatewayError("UPSTREAM_ERROR", `the gateway refused: ${why}${hint}`);
  }
  return body;
}
