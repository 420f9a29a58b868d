/**
 * CORS from a real page on another origin, in headless Chromium: the SDK's own client, bundled
 * for the browser, connects through the gateway over streamable HTTP and legacy SSE (its
 * preflights answered, the session id read from an exposed header), reads a refusal's
 * `WWW-Authenticate` and the OAuth metadata; a page on an origin outside `gateway.cors.origins`
 * gets nothing.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { BrowserContext } from "playwright-core";
import { nodeServer, ROOT, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { CHROMIUM_MISSING, CHROMIUM_SKIP, launchChromium } from "../_helpers/chromium.ts";

const TOKEN = "cors-page-token-0123456789";

/** Bundles the page's client module for the browser; its text. */
function bundlePage(): string {
  const out = join(mkdtempSync(join(tmpdir(), "mcpgw-cors-")), "page.js");
  execFileSync(join(ROOT, "node_modules/.bin/bun"), [
    "build",
    join(ROOT, "test/fixtures/cors/page.mjs"),
    "--target=browser",
    "--format=esm",
    `--outfile=${out}`,
  ], { cwd: ROOT, stdio: "ignore", timeout: 60_000 });
  return readFileSync(out, "utf8");
}

/** Serves the page (`/`) and its script (`/page.js`) on 127.0.0.1, port 0. */
async function servePage(script: string): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    if (req.url === "/page.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(script);
    } else {
      res.writeHead(200, { "content-type": "text/html" })
        .end('<!doctype html><title>page</title><script type="module" src="/page.js"></script>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port };
}

describe("CORS from a page on another origin (Chromium)", { skip: CHROMIUM_SKIP }, () => {
  let gw: TestGateway;
  let site: { server: Server; port: number };
  let browser: BrowserContext;

  before(async () => {
    site = await servePage(bundlePage());
    // The page is served as http://localhost:<port>; the gateway listens on 127.0.0.1.
    gw = await startTestGateway(`
gateway:
  auth:
    tokens: [{ name: page, token: "${TOKEN}" }]
    oauth: { issuer: "https://auth.example.test", audience: "https://mcp.example.test/mcp" }
  cors: { origins: ["http://localhost:${site.port}"] }
servers:
  echo: ${nodeServer("echo.mjs")}
`);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
    site?.server.close();
  });

  /**
   * Runs the page's function `name` (see the fixture) at `origin` with `args`: what it returned,
   * or the text of what it threw.
   */
  async function run(origin: string, name: string, ...args: string[]): Promise<unknown> {
    assert.ok(!CHROMIUM_MISSING, "Chromium is required in CI (apt-get install -y chromium)");
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/`);
      await page.waitForFunction(() => "overStreamableHttp" in globalThis);
      return await page.evaluate(async ([fn, ...rest]) => {
        const table = globalThis as never as Record<string, (...a: string[]) => Promise<unknown>>;
        try {
          return await table[fn!]!(...rest);
        } catch (err) {
          return `threw ${String(err)}`;
        }
      }, [name, ...args]);
    } finally {
      await page.close();
    }
  }

  const allowed = () => `http://localhost:${site.port}`;

  it("serves the SDK client of an allowed page over streamable HTTP", async () => {
    const got = await run(allowed(), "overStreamableHttp", gw.url, TOKEN) as {
      tools: string[];
      text: string;
      sessionId: string;
      protocolVersion: string;
    };
    assert.ok(got.tools?.includes("echo__echo"), JSON.stringify(got));
    assert.equal(got.text, JSON.stringify({ from: "page" }));
    assert.match(got.sessionId, /^[0-9a-f-]{36}$/, "Mcp-Session-Id is readable");
    assert.ok(got.protocolVersion, "Mcp-Protocol-Version is known");
  });

  it("serves the SDK client of an allowed page over /sse and /message", async () => {
    const got = await run(allowed(), "overSse", gw.url, TOKEN) as { text: string };
    assert.equal(got.text, JSON.stringify({ via: "sse" }), JSON.stringify(got));
  });

  it("lets the page read a 401's WWW-Authenticate and the OAuth metadata", async () => {
    const refused = await run(allowed(), "refused", gw.url) as {
      status: number;
      challenge: string | null;
    };
    assert.equal(refused.status, 401, JSON.stringify(refused));
    assert.match(refused.challenge ?? "", /^Bearer .*resource_metadata=/);
    const meta = await run(allowed(), "metadata", gw.url) as {
      status: number;
      body: { authorization_servers?: string[] };
    };
    assert.equal(meta.status, 200, JSON.stringify(meta));
    assert.deepEqual(meta.body.authorization_servers, ["https://auth.example.test"]);
  });

  it("gives a page on an origin outside gateway.cors.origins nothing", async () => {
    // Same host and port, other name: another origin, not listed.
    const got = await run(`http://127.0.0.1:${site.port}`, "overStreamableHttp", gw.url, TOKEN);
    assert.match(String(got), /^threw .*(Failed to fetch|TypeError)/);
  });
});
