/**
 * A fourth upstream auth mode is one file: a mode written here (each identity presents its own
 * static access token, kept in a secret store of the test's) is registered beside the built-in
 * ones and a server configured with it is served by the real gateway — each identity on its own
 * connection with its own key, a caller without a key told so, the status row the mode's own,
 * no admin login offered — with nothing else of the gateway told about it.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RunningGateway } from "../../../src/cli/mod.ts";
import { startGateway } from "../../../src/cli/mod.ts";
import { type GatewayConfig, parseConfig } from "../../../src/config/mod.ts";
import { GatewayError } from "../../../src/shared/errors.ts";
import {
  authModeOf,
  LoginFreeCredential,
  ownConnection,
  registerAuthMode,
  serverCredential,
  type UpstreamAuthMode,
} from "../../../src/upstream/oauth/mod.ts";
import { textOf } from "../../_helpers/gateway.ts";
import { clientCredentialsToken } from "../../_helpers/oauth.ts";
import { authedHttpClient } from "../../security/_http.ts";
import { type Parties, seenTokens, startParties } from "./_setup.ts";

const NAME = "static-key-test";
const APPS = [
  { id: "key-one", secret: "key-one-secret-0123456789" },
  { id: "key-two", secret: "key-two-secret-0123456789" },
];
const TOKENS = {
  alice: "alice-token-0123456789",
  bob: "bob-token-0123456789",
  carol: "carol-token-0123456789",
  ops: "ops-token-0123456789ab",
};
/** The secret store of the mode below: an identity's static access token to the upstream. */
const keys = new Map<string, string>();

/** A credential that presents its identity's key from {@link keys}; nothing to log in. */
class StaticKey extends LoginFreeCredential {
  #identity = "";
  withIdentity(identity: string): this {
    this.#identity = identity;
    return this;
  }
  override accessToken(): Promise<string> {
    const key = keys.get(this.#identity);
    if (key !== undefined) return Promise.resolve(key);
    return Promise.reject(
      new GatewayError("UPSTREAM_UNAVAILABLE", `no key for this client on ${this.server.name}`, {
        data: { server: this.server.name, reason: "unavailable" },
      }),
    );
  }
}

const staticKeyMode: UpstreamAuthMode = {
  name: NAME,
  adminLogin: false,
  identityLogin: false,
  serverCredential: (host, server) =>
    serverCredential(host, server, `each client presents its own key (oauth mode ${NAME})`),
  identityCredential: (host, server, identity, slot) =>
    new StaticKey(server, host.store, host.log(server.name), () => "", { slot })
      .withIdentity(identity),
  connectionFor: (server, caller, own) => ownConnection(NAME, server, caller, own),
  statusRow: () => ({ mode: NAME }),
};

/** `config` with every OAuth server's mode set to `mode` (a name the YAML schema lists not). */
function withMode(config: GatewayConfig, mode: string): GatewayConfig {
  return {
    ...config,
    servers: config.servers.map((s) =>
      s.kind === "http" && s.oauth !== null
        ? { ...s, oauth: { ...s.oauth, mode: mode as "shared" } }
        : s
    ),
  };
}

describe("a fourth upstream auth mode, registered as one file", { timeout: 120_000 }, () => {
  let parties: Parties;
  let gw: RunningGateway;
  let base: string;
  const open: Client[] = [];
  const clientOf = async (who: keyof typeof TOKENS) => {
    const client = await authedHttpClient(base, TOKENS[who]);
    open.push(client);
    return client;
  };

  before(async () => {
    registerAuthMode(staticKeyMode);
    parties = await startParties(300, APPS);
    for (const [who, app] of [["alice", APPS[0]!], ["bob", APPS[1]!]] as const) {
      keys.set(
        who,
        await clientCredentialsToken(parties.as.issuer, app, parties.upstream.url, "read"),
      );
    }
    const yaml = "gateway:\n  auth:\n    tokens:\n" +
      Object.entries(TOKENS).map(([name, token]) =>
        `      - { name: ${name}, token: ${token}${name === "ops" ? ", admin: true" : ""} }\n`
      ).join("") +
      `servers:\n  tracker: { url: ${
        JSON.stringify(parties.upstream.url)
      }, oauth: { mode: per-user } }\n`;
    const config = withMode(parseConfig(yaml), NAME);
    assert.equal(authModeOf(config.servers[0]!)?.name, NAME);
    gw = await startGateway(config, { listen: "127.0.0.1:0", watch: false });
    base = `http://127.0.0.1:${gw.http!.port}`;
  });
  after(async () => {
    for (const c of open) await c.close();
    await gw?.stop();
    await parties?.stop();
  });

  it("a name taken by a built-in mode cannot be registered again", () => {
    assert.throws(() => registerAuthMode({ ...staticKeyMode, name: "per-user" }), /exists already/);
  });

  it("serves each identity on its own connection with its own key", async () => {
    const [a, b] = [await clientOf("alice"), await clientOf("bob")];
    const answers = await Promise.all([
      a.callTool({ name: "tracker__whoami", arguments: {} }),
      b.callTool({ name: "tracker__whoami", arguments: {} }),
    ]);
    assert.deepEqual(answers.map(textOf), ["key-one", "key-two"]);
    const seen = new Set(await seenTokens(parties.upstream.base));
    assert.ok(seen.has(keys.get("alice")!) && seen.has(keys.get("bob")!));
  });

  it("an identity without a key gets the mode's own error, not another's connection", async () => {
    const c = await clientOf("carol");
    const answer = await c.callTool({ name: "tracker__whoami", arguments: {} }).then(
      (r) => JSON.stringify(r),
      (e) => String(e),
    );
    assert.match(answer, /no key for this client on tracker/);
  });

  it("the status row is the mode's, and no admin login is offered", async () => {
    const ops = { authorization: `Bearer ${TOKENS.ops}` };
    const status = await (await fetch(`${base}/status.json`, { headers: ops })).json() as {
      upstreams: { name: string; oauth?: unknown }[];
    };
    const tracker = status.upstreams.find((u) => u.name === "tracker")!;
    assert.deepEqual(tracker.oauth, { mode: NAME });
    const login = await fetch(`${base}/oauth/login/tracker`, { method: "POST", headers: ops });
    const text = await login.text();
    assert.equal(login.status, 400, text);
    assert.match(text, /has no login of its own \(oauth mode static-key-test\)/);
    const { accounts } = await (await fetch(`${base}/admin/oauth`, { headers: ops })).json() as {
      accounts: { server: string }[];
    };
    assert.deepEqual(accounts.filter((a) => a.server === "tracker"), []);
  });
});
