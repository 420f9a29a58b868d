/**
 * How the command line talks to the running gateway (`login`, `servers`, `sessions`,
 * `logout`): over HTTP to its address, with an admin token from `MCP_GATEWAY_TOKEN` when auth
 * is on. Talking to the running process is what works under systemd: the action happens in the
 * process that serves, under its user and its state folder.
 */
import { GatewayError, messageOf } from "../shared/errors.ts";
import { readConfig } from "./boot.ts";

/** A client of one running gateway. */
export interface GatewayClient {
  base: string;
  /** Sends a request and answers its JSON body; a refusal throws with the gateway's message. */
  ask(path: string, init?: RequestInit): Promise<unknown>;
}

/** The client of the gateway at `url`, else the one `configFile` describes. */
export async function gatewayClient(
  configFile: string,
  url: string | null,
): Promise<GatewayClient> {
  const base = (url ?? await baseOf(configFile)).replace(/\/+$/, "");
  const token = process.env.MCP_GATEWAY_TOKEN;
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  return {
    base,
    ask: (path, init = {}) =>
      ask(base, path, { ...init, headers: { ...auth, ...init.headers as object } }),
  };
}

/** The gateway's address from the config: `gateway.publicUrl`, else `gateway.listen`. */
async function baseOf(configFile: string): Promise<string> {
  const config = await readConfig(configFile);
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
      `cannot reach the gateway at ${base} (this command talks to the running gateway; is it ` +
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
