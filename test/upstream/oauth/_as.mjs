/**
 * The authorization server of the upstream-OAuth tests: `oidc-provider` under node on
 * 127.0.0.1:0 with dynamic client registration, authorization code + PKCE (required), refresh
 * tokens, RFC 8707 resource indicators (JWT access tokens whose audience is the resource) and a
 * short access-token lifetime. Its login form is a plain HTML form: the tests post it as a
 * browser would (`login` = the subject to sign in as).
 *
 * Usage: node _as.mjs '{"accessTtl": 5}'  — prints `{ "issuer": "http://127.0.0.1:PORT" }`.
 *
 * Test-only control route (a fixture, never part of the product):
 * - POST /__revoke: destroys every refresh token issued so far (as an admin revoking access).
 */
import { createServer } from "node:http";
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT } from "jose";
import Provider from "oidc-provider";

const options = JSON.parse(process.argv[2] ?? "{}");
const accessTtl = options.accessTtl ?? 300;
/** Static clients `{ id, secret }`: they may use client_credentials and the token exchange. */
const clients = options.clients ?? [];
const EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const SCOPES = ["openid", "offline_access", "read", "write"];

const { privateKey } = await generateKeyPair("ES256", { extractable: true });
const key = { ...(await exportJWK(privateKey)), kid: "as-1", alg: "ES256", use: "sig" };
const { d: _d, ...publicKey } = key;
const refreshIds = new Set();
let provider;

function build(issuer) {
  provider = new Provider(issuer, {
    jwks: { keys: [key] },
    clients: clients.map((c) => ({
      client_id: c.id,
      client_secret: c.secret,
      grant_types: ["client_credentials", EXCHANGE],
      redirect_uris: [],
      response_types: [],
      scope: "read write",
    })),
    scopes: SCOPES,
    clientDefaults: {
      id_token_signed_response_alg: "ES256",
      grant_types: ["authorization_code", "refresh_token"],
    },
    pkce: { required: () => true },
    features: {
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf ?? undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: "read write",
          audience: resource,
          accessTokenTTL: accessTtl,
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: "ES256" } },
        }),
      },
    },
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    ttl: { RefreshToken: 3600, Grant: 3600, Session: 3600, Interaction: 600 },
  });
  provider.on("refresh_token.saved", (t) => refreshIds.add(t.jti));
  provider.registerGrantType(EXCHANGE, exchange, [
    "subject_token",
    "subject_token_type",
    "requested_token_type",
    "audience",
    "resource",
    "scope",
  ], ["audience", "resource"]);
  provider.on("server_error", (_ctx, err) => process.stderr.write(`${err.stack}\n`));
}

/**
 * RFC 8693 token exchange (oidc-provider has none built in): the subject token must be an access
 * token this server issued; the answer is a new JWT for the requested audience, same subject,
 * with the exchanging client as the actor.
 */
async function exchange(ctx) {
  const { subject_token: subject, audience } = ctx.oidc.params;
  const respond = (status, body) => {
    ctx.status = status;
    ctx.body = body;
  };
  let claims;
  try {
    ({ payload: claims } = await jwtVerify(subject, createLocalJWKSet({ keys: [publicKey] }), {
      issuer: provider.issuer,
    }));
  } catch (err) {
    return respond(400, { error: "invalid_grant", error_description: String(err.message) });
  }
  const aud = [audience].flat()[0];
  if (!aud) return respond(400, { error: "invalid_target", error_description: "no audience" });
  const privateJwk = await crypto.subtle.importKey(
    "jwk",
    key,
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign"],
  );
  const token = await new SignJWT({
    scope: "read",
    client_id: ctx.oidc.client.clientId,
    act: { sub: ctx.oidc.client.clientId },
  })
    .setProtectedHeader({ alg: "ES256", kid: key.kid, typ: "at+jwt" })
    .setIssuer(provider.issuer)
    .setSubject(String(claims.sub))
    .setAudience(aud)
    .setIssuedAt()
    .setExpirationTime(`${accessTtl}s`)
    .setJti(crypto.randomUUID())
    .sign(privateJwk);
  respond(200, {
    access_token: token,
    issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
    token_type: "Bearer",
    expires_in: accessTtl,
  });
}

async function body(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

async function interaction(req, res) {
  const uid = req.url.split("/")[2];
  if (req.method === "GET") {
    await provider.interactionDetails(req, res);
    res.setHeader("content-type", "text/html");
    res.end(
      `<form method="post" action="/interaction/${uid}/login">` +
        `<input name="login"><input name="password" type="password"><button>Sign in</button></form>`,
    );
    return;
  }
  const form = await body(req);
  const details = await provider.interactionDetails(req, res);
  const login = form.get("login");
  if (!login) {
    res.statusCode = 400;
    res.end("login required");
    return;
  }
  const { params } = details;
  const grant = new provider.Grant({ accountId: login, clientId: params.client_id });
  const asked = String(params.scope ?? "").split(" ").filter(Boolean);
  grant.addOIDCScope(asked.join(" "));
  const resources = [params.resource ?? []].flat();
  for (const r of resources) {
    grant.addResourceScope(r, asked.join(" "));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, {
    login: { accountId: login },
    consent: { grantId },
  }, { mergeWithLastSubmission: false });
}

const server = createServer((req, res) => {
  const fail = (err) => {
    res.statusCode = 500;
    res.end(String(err?.stack ?? err));
  };
  if (req.method === "POST" && req.url === "/__revoke") {
    (async () => {
      let n = 0;
      for (const jti of refreshIds) {
        const t = await provider.RefreshToken.find(jti);
        if (t) {
          await t.destroy();
          n++;
        }
      }
      refreshIds.clear();
      res.end(JSON.stringify({ revoked: n }));
    })().catch(fail);
    return;
  }
  if (req.url?.startsWith("/interaction/")) {
    interaction(req, res).catch(fail);
    return;
  }
  provider.callback()(req, res);
});

server.listen(0, "127.0.0.1", () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  build(issuer);
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});
