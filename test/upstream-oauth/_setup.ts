/**
 * The parts of the upstream-OAuth tests: the authorization server (`_as.mjs`) and the protected
 * MCP server (`oauth-protected.mjs`), each a node child process on 127.0.0.1, and a browser
 * stand-in that follows an authorization URL through the provider's login form with plain HTTP
 * (redirects followed by hand, cookies kept) until the gateway's callback has answered.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { fixture, ROOT } from "../_helpers/gateway.ts";

/** A child process that printed its first line. */
export interface Child {
  child: ChildProcess;
  line: string;
  stop(): Promise<void>;
}

/** Spawns `node args…` and waits (15 s at most) for its first stdout line. */
export async function spawnNode(args: string[], env: Record<string, string> = {}): Promise<Child> {
  const child = spawn("node", args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => fail(new Error("no output within 15 s")), 15_000);
    const fail = (err: Error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`${args.join(" ")}: ${err.message}\n${stderr}`));
    };
    child.on("exit", (code) => fail(new Error(`exited with ${code}`)));
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString("utf8");
      if (out.includes("\n")) {
        clearTimeout(timer);
        child.removeAllListeners("exit");
        resolve(out.split("\n")[0]!);
      }
    });
  });
  return { child, line, stop: () => stopChild(child) };
}

/** The authorization server; `accessTtl` in seconds; `clients` may use the token exchange. */
export async function startAuthServer(
  accessTtl: number,
  clients: { id: string; secret: string }[] = [],
): Promise<Child & { issuer: string }> {
  const c = await spawnNode([
    join(ROOT, "test/upstream-oauth/_as.mjs"),
    JSON.stringify({ accessTtl, clients }),
  ]);
  return { ...c, issuer: (JSON.parse(c.line) as { issuer: string }).issuer };
}

/** The protected MCP server trusting `issuer`; `url` is its `/mcp` endpoint. */
export async function startProtected(
  issuer: string,
): Promise<Child & { url: string; base: string }> {
  const c = await spawnNode([fixture("oauth-protected.mjs")], { ISSUER: issuer });
  const base = `http://127.0.0.1:${c.line.replace("PORT=", "")}`;
  return { ...c, base, url: `${base}/mcp` };
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

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.on("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
