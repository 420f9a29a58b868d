/**
 * What both OAuth test suites share (test/security's resource-server tests and
 * test/upstream/oauth's upstream credentials): a node child process — an authorization server
 * or a protected MCP server — that says where it listens on its first stdout line, stopped by its
 * PID; and a client_credentials access token from an authorization server's token endpoint.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { ROOT } from "./gateway.ts";

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

/** A client of an authorization server. */
export interface OAuthClient {
  id: string;
  secret: string;
}

/**
 * An access token for `resource` from `issuer`'s token endpoint (the client_credentials grant,
 * the client authenticated with HTTP Basic); rejects naming the status and body otherwise.
 */
export async function clientCredentialsToken(
  issuer: string,
  client: OAuthClient,
  resource: string,
  scope: string,
): Promise<string> {
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
}

/** Stops a child by its PID (SIGTERM) and waits for it to exit. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.on("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
