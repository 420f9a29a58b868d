/**
 * The parts of the upstream-OAuth tests: the authorization server (`_as.mjs`) and the protected
 * MCP server (`oauth-protected.mjs`), each a node child process on 127.0.0.1, and a browser
 * stand-in that follows an authorization URL through the provider's login form with plain HTTP
 * (redirects followed by hand, cookies kept) until the gateway's callback has answered; and the
 * gateway itself, served in this process from a config file of its own.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningGateway, startGateway } from "../../../src/cli/mod.ts";
import { parseConfig } from "../../../src/config/mod.ts";
import { fixture, ROOT } from "../../_helpers/gateway.ts";
import { type Child, spawnNode } from "../../_helpers/oauth.ts";

export type { Child };

/** The authorization server; `accessTtl` in seconds; `clients` may use the token exchange. */
export async function startAuthServer(
  accessTtl: number,
  clients: { id: string; secret: string }[] = [],
): Promise<Child & { issuer: string }> {
  const c = await spawnNode([
    join(ROOT, "test/upstream/oauth/_as.mjs"),
    JSON.stringify({ accessTtl, clients }),
  ]);
  return { ...c, issuer: (JSON.parse(c.line) as { issuer: string }).issuer };
}

/**
 * The protected MCP server trusting `issuer`; `url` is its `/mcp` endpoint. `declare:
 * "per-subject"` makes every declaration name the caller's subject (`_per-subject.mjs`).
 */
export async function startProtected(
  issuer: string,
  declare: "fixed" | "per-subject" = "fixed",
): Promise<Child & { url: string; base: string }> {
  const c = await spawnNode([fixture("oauth-protected.mjs")], { ISSUER: issuer, DECLARE: declare });
  const base = `http://127.0.0.1:${c.line.replace("PORT=", "")}`;
  return { ...c, base, url: `${base}/mcp` };
}

/** The authorization server and the protected MCP server that trusts it. */
export interface Parties {
  as: Child & { issuer: string };
  upstream: Child & { url: string; base: string };
  stop(): Promise<void>;
}

/**
 * Starts both parties ({@link startAuthServer}'s arguments, then {@link startProtected}'s
 * `declare`); `stop` ends the upstream first.
 */
export async function startParties(
  accessTtl: number,
  clients: { id: string; secret: string }[] = [],
  declare: "fixed" | "per-subject" = "fixed",
): Promise<Parties> {
  const as = await startAuthServer(accessTtl, clients);
  const upstream = await startProtected(as.issuer, declare);
  return {
    as,
    upstream,
    stop: async () => {
      await upstream.stop();
      await as.stop();
    },
  };
}

/** Writes `yaml` as `gateway.yaml` in a fresh temp folder named from `prefix`; the file. */
export function configFile(prefix: string, yaml: string): string {
  const file = join(mkdtempSync(join(tmpdir(), prefix)), "gateway.yaml");
  writeFileSync(file, yaml);
  return file;
}

/** Serves the config in `file` on 127.0.0.1:0 (no file watching); the gateway and its base URL. */
export async function startFromFile(
  file: string,
): Promise<{ gw: RunningGateway; base: string }> {
  const gw = await startGateway(parseConfig(readFileSync(file, "utf8"), { file }), {
    listen: "127.0.0.1:0",
    watch: false,
  });
  return { gw, base: `http://127.0.0.1:${gw.http!.port}` };
}

/** Every bearer token the protected server was shown so far. */
export async function seenTokens(base: string): Promise<string[]> {
  return await (await fetch(`${base}/__seen`)).json() as string[];
}

/**
 * Plays the browser: opens `authorizationUrl`, signs in as `login` on the provider's form, and
 * follows the redirects to the gateway's callback. Resolves with the callback's answer.
 */
export async function browserLogin(
  authorizationUrl: string,
  login: string,
): Promise<{ status: number; text: string; url: string }> {
  const jar = new Map<string, string>();
  const send = async (url: string, init: RequestInit = {}) => {
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair!.indexOf("=");
      jar.set(pair!.slice(0, i), pair!.slice(i + 1));
    }
    return res;
  };
  let url = authorizationUrl;
  let res = await send(url);
  for (let hops = 0; hops < 10; hops++) {
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get("location")!, url).href;
      await res.body?.cancel();
      res = await send(url);
      continue;
    }
    const text = await res.text();
    const form = /<form method="post" action="([^"]+)"/.exec(text);
    if (!form) return { status: res.status, text, url };
    url = new URL(form[1]!, url).href;
    res = await send(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ login, password: "x" }).toString(),
    });
  }
  throw new Error(`too many redirects from ${authorizationUrl}`);
}

/** Revokes every refresh token the authorization server issued. */
export async function revokeAll(issuer: string): Promise<void> {
  const res = await fetch(`${issuer}/__revoke`, { method: "POST" });
  if (!res.ok) throw new Error(`revoke answered ${res.status}`);
}
