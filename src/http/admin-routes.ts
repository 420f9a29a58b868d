/**
 * The admin API (`/admin/…`): what the command line's `servers`, `sessions` and `logout` verbs
 * and the console's buttons call. Reads answer JSON; actions answer JSON to a client that posts
 * JSON or nothing (the command line, with a bearer admin token), and a redirect back to the page
 * to a form post (the console, with its cookie). Each answers admin tokens only (or anyone when
 * auth is off, on loopback), and an action must come from the gateway's own origin
 * (`sameOriginCheck`). The actions themselves, and their audit lines, are the ops room's.
 */
import type { Context, Handler, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Gateway } from "../gateway/mod.ts";
import { GatewayError, httpStatusOf, messageOf } from "../shared/errors.ts";
import type { AppEnv } from "./app.ts";
import { sameOriginCheck, statusGate } from "./security/mod.ts";

/** Who acts, as the actions take it. */
export interface AdminActor {
  tokenName: string | null;
  via: "api" | "console";
}

/** The operator's actions (`OperatorControl` in the ops room). */
export interface AdminActions {
  restart(name: string, actor: AdminActor): Promise<void>;
  setEnabled(name: string, enabled: boolean, actor: AdminActor): Promise<void>;
  endSession(handle: string, actor: AdminActor): Promise<void>;
  logout(server: string, identity: string | null, actor: AdminActor): Promise<void>;
  approve(
    server: string,
    tools: readonly string[],
    actor: AdminActor,
    user?: string,
  ): Promise<unknown>;
}

/** What the admin routes read and do. */
export interface AdminRoutesDeps {
  gateway: Gateway;
  actions: AdminActions;
  /** Every upstream's status (the status page's rows), each with its `name`. */
  servers: () => readonly { name: string }[];
  /** Every open session (by handle). */
  sessions: () => readonly unknown[];
  /** The logins held to OAuth upstreams. */
  accounts: () => Promise<readonly unknown[]>;
  /** The HTML a console form gets when its action is refused or fails. */
  problemPage: (message: string) => string | Promise<string>;
}

/** Largest action body accepted (a form of a few fields). */
const ACTION_BODY_MAX = 8 * 1024;

/** Registers the routes on `app` (after the security chain). */
export function adminRoutes(deps: AdminRoutesDeps): (app: Hono<AppEnv>) => void {
  const { gateway, actions } = deps;
  /** Refuses all but admins (and, for an action, all but the gateway's own pages). */
  const admin = (c: Context<AppEnv>, what: string): AdminActor => {
    const gate = statusGate(c, gateway.config.gateway.tokens !== null);
    if (gate !== "open" && gate !== "admin") {
      throw new GatewayError(
        "FORBIDDEN",
        `${what} needs an admin token (admin: true in gateway.auth.tokens)`,
      );
    }
    sameOriginCheck(c.req.raw, gateway.config.gateway.publicUrl);
    return { tokenName: c.get("identity")?.tokenName ?? null, via: isForm(c) ? "console" : "api" };
  };
  const server = (name: string) => {
    const found = deps.servers().find((s) => s.name === name);
    if (!found) throw new GatewayError("RESOURCE_NOT_FOUND", `no server "${name}" is configured`);
    return found;
  };
  /** The answer to a done action: back to the page for a form, else JSON. */
  const done = (c: Context<AppEnv>, anchor: string, body: Record<string, unknown>) =>
    isForm(c) && !c.req.header("accept")?.includes("application/json")
      ? c.redirect(`/#${anchor}`, 303)
      : c.json({ ok: true, ...body });
  const limit = bodyLimit({ maxSize: ACTION_BODY_MAX });
  /** An action's handler: a console form that is refused gets a page saying why. */
  const action = (handler: Handler<AppEnv>): Handler<AppEnv> => async (c, next) => {
    try {
      return await handler(c, next);
    } catch (err) {
      const status = httpStatusOf(err);
      if (!isForm(c) || c.req.header("accept")?.includes("application/json") || status >= 500) {
        throw err;
      }
      return c.html(await deps.problemPage(messageOf(err)), status as 400);
    }
  };
  return (app) => {
    app.get("/admin/servers", (c) => {
      admin(c, "listing servers");
      return c.json({ servers: deps.servers() });
    });
    app.get("/admin/servers/:name/logs", (c) => {
      admin(c, "reading a server's log");
      const name = c.req.param("name");
      server(name);
      const u = gateway.pool.get(name)!;
      if (u.config.kind !== "stdio") {
        throw new GatewayError("USAGE", `server "${name}" is not a stdio server: it has no stderr`);
      }
      return c.json({ server: name, lines: u.stderrTail });
    });
    app.post(
      "/admin/servers/:name/:action",
      limit,
      action(async (c) => {
        const name = c.req.param("name")!;
        const verb = c.req.param("action")!;
        const actor = admin(c, `${verb} of a server`);
        if (verb === "restart") await actions.restart(name, actor);
        else if (verb === "disable" || verb === "enable") {
          await actions.setEnabled(name, verb === "enable", actor);
        } else {
          throw new GatewayError(
            "USAGE",
            `unknown server action "${verb}" (restart, disable or enable)`,
          );
        }
        return done(c, "upstreams", { server: server(name) });
      }),
    );
    app.get("/admin/sessions", (c) => {
      admin(c, "listing sessions");
      return c.json({ sessions: deps.sessions() });
    });
    const end = async (c: Context<AppEnv>) => {
      const actor = admin(c, "ending a session");
      const handle = c.req.param("handle")!;
      await actions.endSession(handle, actor);
      return done(c, "sessions", { session: handle, ended: true });
    };
    app.post("/admin/sessions/:handle/end", limit, action(end));
    app.delete("/admin/sessions/:handle", end);
    app.get("/admin/oauth", async (c) => {
      admin(c, "listing upstream logins");
      return c.json({ accounts: await deps.accounts() });
    });
    app.post(
      "/admin/oauth/:server/logout",
      limit,
      action(async (c) => {
        const actor = admin(c, "logging out of an upstream");
        const name = c.req.param("server")!;
        const identity = (await fields(c)).identity;
        const who = typeof identity === "string" && identity !== "" ? identity : null;
        await actions.logout(name, who, actor);
        return done(c, "accounts", { server: name, identity: who, loggedOut: true });
      }),
    );
    // Approving pins changes what clients may call: the page's approve button posts here.
    app.post(
      "/pins/approve",
      limit,
      action(async (c) => {
        const actor = admin(c, "approving definitions");
        const form = await fields(c);
        const name = typeof form.server === "string" ? form.server : "";
        const tools = [form.tool ?? []].flat().filter((t): t is string => typeof t === "string");
        // A per-user server's changes are one user's connection's: the form names whose.
        const user = typeof form.user === "string" && form.user !== "" ? form.user : undefined;
        const approval = await actions.approve(name, tools, actor, user);
        if (isForm(c) && !c.req.header("accept")?.includes("application/json")) {
          return c.redirect("/", 303);
        }
        return c.json(approval);
      }),
    );
  };
}

/** True when the body is a form (the console's buttons). */
function isForm(c: Context<AppEnv>): boolean {
  const type = c.req.header("content-type") ?? "";
  return type.startsWith("application/x-www-form-urlencoded") ||
    type.startsWith("multipart/form-data");
}

/** The body's fields: a form's, or a JSON object's (an empty body has none). */
async function fields(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  if (isForm(c)) return await c.req.parseBody({ all: true });
  const text = await c.req.text();
  if (text.trim() === "") return {};
  try {
    const body = JSON.parse(text) as unknown;
    if (body !== null && typeof body === "object" && !Array.isArray(body)) {
      return body as Record<string, unknown>;
    }
  } catch { /* answered below */ }
  throw new GatewayError("USAGE", "the body must be a form or a JSON object");
}
