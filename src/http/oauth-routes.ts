/**
 * The upstream-login routes. `GET /oauth/callback` is where the browser comes back from an
 * upstream's authorization server: open (a browser carries no bearer token), guarded by the
 * login's one-use `state`. The others are an admin's: `POST /oauth/login/<server>` begins a
 * login and answers its authorization URL and a handle, `GET /oauth/logins/<id>` says where that
 * login is (the `login` command polls it), and `GET /oauth/connect/<server>` (the status page's
 * Connect link, with the admin's cookie) begins one and redirects the browser to it.
 */
import type { Context, Hono } from "hono";
import type { Gateway } from "../gateway/mod.ts";
import { GatewayError } from "../shared/errors.ts";
import {
  CALLBACK_PATH,
  CONNECT_PATH,
  LINK_PATH,
  type UpstreamCredential,
} from "../upstream/oauth/mod.ts";
import type { AppEnv } from "./app.ts";
import { statusGate } from "./security/mod.ts";

/** Registers the routes on `app` (after the security middleware). */
export function oauthRoutes(gateway: Gateway): (app: Hono<AppEnv>) => void {
  const auth = gateway.upstreamAuth;
  const admin = (c: Context<AppEnv>, what: string) => {
    const gate = statusGate(c, gateway.config.gateway.tokens !== null);
    if (gate !== "open" && gate !== "admin") {
      throw new GatewayError(
        "FORBIDDEN",
        `${what} needs an admin token (admin: true in gateway.auth.tokens)`,
      );
    }
  };
  const credential = (name: string): UpstreamCredential => {
    const found = auth.byName(name);
    if (!found) {
      // A name from the request: shown cut, and only said to be configured when it is.
      const shown = JSON.stringify(name.slice(0, 80));
      const known = gateway.config.servers.some((s) => s.name === name);
      throw new GatewayError(
        "USAGE",
        known
          ? `server ${shown} has no oauth: section (servers.${name}.oauth)`
          : `unknown server ${shown}: the config has no such server`,
      );
    }
    const mode = auth.modeOf(name);
    if (mode?.identityLogin) {
      throw new GatewayError(
        "USAGE",
        `server "${name}" connects each client's own account (oauth mode ${mode.name}): each ` +
          "client gets its own connect link from its first call",
      );
    }
    // A login here would be stored for a server whose mode never presents it.
    if (mode && !mode.adminLogin) {
      throw new GatewayError(
        "USAGE",
        `server "${name}" has no login of its own (oauth mode ${mode.name}): each client's ` +
          "calls carry their own credential",
      );
    }
    return found;
  };
  return (app) => {
    app.post("/oauth/login/:server", async (c) => {
      admin(c, "starting an upstream login");
      return c.json(await auth.logins.begin(credential(c.req.param("server"))));
    });
    app.get("/oauth/logins/:id", (c) => {
      admin(c, "reading an upstream login");
      const state = auth.logins.state(c.req.param("id"));
      if (!state) throw new GatewayError("RESOURCE_NOT_FOUND", "no such login (it expired?)");
      return c.json(state);
    });
    app.get(`${CONNECT_PATH}:server`, async (c) => {
      admin(c, "connecting an upstream");
      const { authorizationUrl } = await auth.logins.begin(credential(c.req.param("server")));
      return c.redirect(authorizationUrl, 303);
    });
    app.get(LINK_PATH, async (c) => {
      const own = auth.redeemLink(c.req.query("t") ?? "");
      if (!own) {
        return c.html(
          page("Link expired", "This connect link is unknown, used or expired: call again."),
          403,
        );
      }
      const { authorizationUrl } = await auth.logins.begin(own);
      return c.redirect(authorizationUrl, 303);
    });
    app.delete("/oauth/credentials/:server", async (c) => {
      // The caller's own credential only: the identity is the bearer token's.
      const identity = c.get("identity")?.tokenName ?? null;
      const name = c.req.param("server");
      const server = gateway.config.servers.find((s) => s.name === name);
      if (!server || !auth.modeOf(name)?.identityLogin) {
        throw new GatewayError("USAGE", `server "${name}" has no per-user credentials`);
      }
      if (identity === null) {
        throw new GatewayError("UNAUTHORIZED", "disconnecting needs the client's own token");
      }
      await auth.connectHint(server, identity)!.forget();
      return c.json({ server: name, disconnected: true });
    });
    app.get(CALLBACK_PATH, async (c) => {
      const state = c.req.query("state");
      if (!state) return c.html(page("Login failed", "The callback carries no state."), 400);
      try {
        const server = await auth.logins.complete(
          state,
          c.req.query("code") ?? null,
          describe(c.req.query("error"), c.req.query("error_description")),
        );
        return c.html(page("Logged in", `Server ${server} is connected. You may close this tab.`));
      } catch (err) {
        const status = err instanceof GatewayError && err.code === "FORBIDDEN" ? 403 : 400;
        return c.html(page("Login failed", (err as Error).message), status);
      }
    });
  };
}

function describe(error: string | undefined, description: string | undefined): string | null {
  if (!error) return null;
  return description ? `${error}: ${description}` : error;
}

function page(title: string, text: string): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title></head>` +
    `<body><h1>${esc(title)}</h1><p>${esc(text)}</p></body></html>`;
}
