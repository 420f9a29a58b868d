/**
 * A real OAuth 2.1 / OpenID Connect authorization server for the OAuth tests: `oidc-provider`
 * on 127.0.0.1:0, run under node in its own process (it is a Koa app written for node). It issues
 * JWT access tokens with the client_credentials grant for any resource indicator.
 *
 * Usage: node provider.mjs '<json options>'   options: { clients: [{ id, secret, scope, ttl? }],
 *   scopes: "space separated" }
 * Prints one JSON line `{ "issuer": "http://127.0.0.1:PORT" }` once listening.
 *
 * Test-only control routes (this process is a fixture, never part of the product):
 * - POST /__rotate: a new signing key goes first in the JWKS (the old one stays published);
 * - POST /__sign { header?, claims }: signs `claims` with the current signing key, so tests can
 *   make tokens the provider would never issue (wrong issuer, future nbf) that still verify.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import Provider from "oidc-provider";

const options = JSON.parse(process.argv[2] ?? "{}");
const clients = options.clients ?? [];
const scopes = options.scopes ?? "";

/** Private JWKs, the signing key first. */
const keys = [];
let handle;
let issuer;

async function newKey() {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk = await exportJWK(privateKey);
  return {
    ...jwk,
    // Random, not time-based: two providers started in the same millisecond (a test's own
    // provider and its rogue one) must never publish the same kid.
    kid: `k${keys.length + 1}-${randomUUID()}`,
    alg: "ES256",
    use: "sig",
  };
}

function build() {
  const ttl = new Map(clients.map((c) => [c.id, c.ttl ?? 300]));
  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({
      client_id: c.id,
      client_secret: c.secret,
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
      scope: c.scope,
      id_token_signed_response_alg: "ES256",
    })),
    scopes: scopes.split(" ").filter(Boolean),
    jwks: { keys: [...keys] },
    features: {
      clientCredentials: { enabled: true },
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource, client) => ({
          scope: scopes,
          audience: resource,
          accessTokenTTL: ttl.get(client.clientId) ?? 300,
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: "ES256" } },
        }),
      },
    },
  });
  provider.on("server_error", (_ctx, err) => process.stderr.write(`${err.stack}\n`));
  handle = provider.callback();
}

async function readJson(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : {};
}

async function control(req, res) {
  if (req.url === "/__rotate") {
    keys.unshift(await newKey());
    build();
    res.end(JSON.stringify({ kid: keys[0].kid }));
    return;
  }
  const { header = {}, claims } = await readJson(req);
  const key = keys[0];
  const jws = await new SignJWT(claims)
    .setProtectedHeader({ alg: "ES256", kid: key.kid, typ: "at+jwt", ...header })
    .sign(
      await crypto.subtle.importKey(
        "jwk",
        key,
        { name: "ECDSA", namedCurve: "P-256" },
        false,
        ["sign"],
      ),
    );
  res.end(JSON.stringify({ token: jws }));
}

const server = createServer((req, res) => {
  if (req.method === "POST" && req.url?.startsWith("/__")) {
    control(req, res).catch((err) => {
      res.statusCode = 500;
      res.end(String(err));
    });
    return;
  }
  handle(req, res);
});

keys.push(await newKey());
server.listen(0, "127.0.0.1", () => {
  issuer = `http://127.0.0.1:${server.address().port}`;
  build();
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});
