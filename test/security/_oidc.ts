/**
 * Starts the real authorization server of the OAuth tests (`_oidc/provider.mjs`, oidc-provider
 * under node in a child process, on 127.0.0.1:0) and talks to it over HTTP only.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "../_helpers/gateway.ts";

/** A client of the provider: client_credentials with these scopes; `ttl` in seconds. */
export interface ProviderClient {
  id: string;
  secret: string;
  scope: string;
  ttl?: number;
}

/** A running provider. */
export interface TestProvider {
  issuer: string;
  /** An access token for `resource` from the token endpoint (client_credentials grant). */
  token(client: ProviderClient, resource: string, scope?: string): Promise<string>;
  /** Publishes a new signing key first in the JWKS; returns its `kid`. */
  rotate(): Promise<string>;
  /** Signs arbitrary claims with the current signing key (a token the provider never issued). */
  sign(claims: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
  stop(): Promise<void>;
}

/** Starts a provider; rejects if it does not say where it listens within 15 s. */
export async function startProvider(
  clients: ProviderClient[],
  scopes: string,
): Promise<TestProvider> {
  const script = join(ROOT, "test/security/_oidc/provider.mjs");
  const child = spawn("node", [script, JSON.stringify({ clients, scopes })], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  const issuer = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => fail(new Error("provider did not start within 15 s")), 15_000);
    const fail = (err: Error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`${err.message}\n${stderr}`));
    };
    child.on("exit", (code) => fail(new Error(`provider exited with ${code}`)));
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString("utf8");
      const line = out.split("\n")[0];
      if (out.includes("\n") && line) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { issuer: string }).issuer);
      }
    });
  });
  const post = async (path: string, body: unknown) => {
    const res = await fetch(issuer + path, { method: "POST", body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    return await res.json() as Record<string, string>;
  };
  return {
    issuer,
    async token(client, resource, scope = client.scope) {
      const res = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: {
          authorization: `Basic ${btoa(`${client.id}:${client.secret}`)}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ grant_type: "client_credentials", scope, resource }),
      });
      const body = await res.json() as { access_token?: string };
      if (res.status !== 200 || !body.access_token) {
        throw new Error(`token endpoint answered ${res.status}: ${JSON.stringify(body)}`);
      }
      return body.access_token;
    },
    rotate: async () => (await post("/__rotate", {})).kid!,
    sign: async (claims, header) => (await post("/__sign", { claims, header })).token!,
    stop: () => stopChild(child),
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.removeAllListeners("exit");
    child.on("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
