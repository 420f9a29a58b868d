/**
 * The operator routes: `GET /` (status page, or the sign-in form), `GET /status.json` (the same
 * data as JSON), `GET /metrics`, `GET /cluster` (the live instances, with a cluster), `POST /login` / `POST /logout` for the status-page cookie, and `POST /pins/approve` (the page's approve button).
 * With auth on, each answers admin tokens only (403 with a JSON error otherwise); the renderers
 * come from the ops room, so this file only decides who gets what.
 */
import type { Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { deleteCookie, setCookie } from "hono/cookie";
import type { Gateway } from "../gateway/mod.ts";
import { GatewayError } from "../shared/errors.ts";
import type { AppEnv } from "./app.ts";
import { matchToken } from "./security/auth.ts";
import { type StatusGate, statusGate } from "./security/status-access.ts";
import { STATUS_COOKIE, type StatusSessions } from "./security/status-session.ts";

type Body = string | Promise<string>;

/** What the status routes serve; every renderer is called per request. */
export interface StatusRoutesDeps<S> {
  gateway: Gateway;
  sessions: StatusSessions;
  /** Prometheus text and its content type. */
  metrics: { render(): string; contentType: string };
  /** The status snapshot (`/status.json`). */
  snapshot: () => S | Promise<S>;
  /** Every live instance of a cluster (`/cluster`); absent without one. */
  cluster?: () => Promise<unknown>;
  /** The HTML page for a snapshot; `signedInAs` is set when opened through the cookie. */
  page: (snapshot: S, signedInAs: string | null) => Body;
  /** The sign-in form, with why the last attempt failed. */
  loginPage: (problem?: string) => Body;
}

/** Largest sign-in form body accepted. */
const LOGIN_BODY_MAX = 8 * 1024;

/** Registers the routes on `app` (after the security middleware). */
export function statusRoutes<S>(deps: StatusRoutesDeps<S>): (app: Hono<AppEnv>) => void {
  const { gateway } = deps;
  const authOn = () => gateway.config.gateway.tokens !== null;
  const gate = (c: Context<AppEnv>, what: string): StatusGate => {
    const g = statusGate(c, authOn());
    if (g === "forbidden") {
      throw new GatewayError(
        "FORBIDDEN",
        `${what} needs an admin token (admin: true in gateway.auth.tokens)`,
      );
    }
    return g;
  };
  return (app) => {
    app.get("/metrics", (c) => {
      gate(c, "/metrics");
      return c.body(deps.metrics.render(), 200, { "content-type": deps.metrics.contentType });
    });
    app.get("/status.json", async (c) => {
      gate(c, "/status.json");
      return c.json(await deps.snapshot());
    });
    const cluster = deps.cluster;
    if (cluster) {
      app.get("/cluster", async (c) => {
        gate(c, "/cluster");
        return c.json(await cluster());
      });
    }
    app.get("/", async (c) => {
      if (gate(c, "the status page") === "sign-in") {
        return c.html(await deps.loginPage(), 401);
      }
      const who = c.get("identity");
      return c.html(await deps.page(await deps.snapshot(), who?.browser ? who.tokenName : null));
    });
    // A form holding one token is small: a larger body is refused with the form and a reason
    // (hono's default refusal has no message, and reached the log as an empty 500).
    const loginLimit = bodyLimit({
      maxSize: LOGIN_BODY_MAX,
      onError: async (c) =>
        c.html(
          await deps.loginPage(
            `The sign-in form is over ${LOGIN_BODY_MAX} bytes: post only the token field.`,
          ),
          413,
        ),
    });
    app.post("/login", loginLimit, async (c) => {
      const tokens = gateway.config.gateway.tokens;
      if (tokens === null) return c.redirect("/", 303);
      const form = await c.req.parseBody();
      const presented = typeof form.token === "string" ? form.token.trim() : "";
      const match = presented === "" ? null : matchToken(tokens, presented);
      const token = match && tokens.find((t) => t.name === match.name);
      if (!token) return c.html(await deps.loginPage("That token is not valid."), 401);
      if (!token.admin) {
        return c.html(
          await deps.loginPage(
            "That token is not an admin token: set admin: true on it in gateway.auth.tokens.",
          ),
          403,
        );
      }
      setCookie(c, STATUS_COOKIE, deps.sessions.issue(token), {
        path: "/",
        httpOnly: true,
        sameSite: "Strict",
        secure: isHttps(c),
        maxAge: Math.floor(deps.sessions.ttlMs / 1000),
      });
      gateway.log.info("status page sign-in", { tokenName: token.name });
      return c.redirect("/", 303);
    });
    // Approving pins changes what clients may call: admin only, and a form post from the page.
    app.post("/pins/approve", bodyLimit({ maxSize: LOGIN_BODY_MAX }), async (c) => {
      if (gate(c, "approving definitions") === "sign-in") {
        throw new GatewayError(
          "FORBIDDEN",
          "approving definitions needs an admin token (admin: true in gateway.auth.tokens)",
        );
      }
      const form = await c.req.parseBody({ all: true });
      const server = typeof form.server === "string" ? form.server : "";
      const tools = [form.tool ?? []].flat().filter((t): t is string => typeof t === "string");
      // A per-user server's changes are one user's connection's: the form names whose.
      const user = typeof form.user === "string" && form.user !== "" ? form.user : undefined;
      const approval = gateway.pins.approve(server, tools, user);
      const who = c.get("identity")?.tokenName ?? null;
      gateway.log.info("definitions approved on the status page", { server, tokenName: who });
      if (c.req.header("accept")?.includes("application/json")) return c.json(approval);
      return c.redirect("/", 303);
    });
    app.post("/logout", (c) => {
      deleteCookie(c, STATUS_COOKIE, { path: "/", secure: isHttps(c) });
      return c.redirect("/", 303);
    });
  };
}

/** True when the browser reached us over HTTPS (directly, or through a TLS-ending proxy). */
function isHttps(c: Context<AppEnv>): boolean {
  return new URL(c.req.url).protocol === "https:" ||
    c.req.header("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}
