/**
 * `mcp-gateway login SERVER`: logs the running gateway in to an OAuth upstream (`oauth: mode:
 * shared`). The gateway does the OAuth work and holds the result; this command only asks it to
 * begin (`POST /oauth/login/SERVER`), prints the authorization URL to open, and waits until the
 * browser has come back to the gateway's `/oauth/callback`. Talking to the running gateway is
 * what works under systemd: the credential lands in the process that uses it, under its user and
 * its state folder, with no second listener on its port. With auth on, an admin token is read
 * from `MCP_GATEWAY_TOKEN`.
 */
import { LOGIN_TTL_MS, type LoginState } from "../upstream/oauth/mod.ts";
import { gatewayClient } from "./gateway-client.ts";

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
  const gw = await gatewayClient(configFile, options.url);
  const begun = await gw.ask(`/oauth/login/${encodeURIComponent(server)}`, {
    method: "POST",
  }) as { authorizationUrl: string; id: string };
  process.stdout.write(
    `Open this URL in a browser to log in to server ${server}:\n\n  ${begun.authorizationUrl}\n\n` +
      "Waiting for the login to complete…\n",
  );
  const until = Date.now() + LOGIN_TTL_MS + 5_000;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, options.pollMs ?? 1000));
    const state = await gw.ask(`/oauth/logins/${begun.id}`) as LoginState;
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
