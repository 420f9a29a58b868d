/**
 * An MCP App rendered through the gateway in a real headless Chromium (Debian's `chromium`,
 * driven by playwright-core), on both protocol eras: a host page built on ext-apps' `AppBridge`
 * renders server b's view, read through the gateway from the URI its tool points at, and the
 * view's button calls `chart_data` by its upstream name — which both servers offer, so only the
 * view's resource, named by the host, sends it to b. The view itself is an ext-apps `App`. Both
 * browser modules are bundled with Bun's bundler before the test. Screenshots are kept in
 * `test-artifacts/`. Without Chromium the test skips locally and fails in CI.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type BrowserContext, chromium } from "playwright-core";
import { ROOT, startTestGateway, type TestGateway, textOf } from "../../_helpers/gateway.ts";
import { appsServer, ERAS, FULL, viewOf } from "./_apps.ts";

const CHROMIUM = "/usr/bin/chromium";
const missing = !existsSync(CHROMIUM);
const inCi = process.env.CI === "true";
const SKIP = missing && !inCi ? `${CHROMIUM} is not installed` : false;

/** Bundles a browser module of `test/fixtures/apps/` with its imports; the bundle's path. */
function bundle(dir: string, name: string): string {
  const out = join(dir, name.replace(/\.mjs$/, ".js"));
  execFileSync(join(ROOT, "node_modules/.bin/bun"), [
    "build",
    join(ROOT, "test/fixtures/apps", name),
    "--target=browser",
    "--format=esm",
    `--outfile=${out}`,
  ], { cwd: ROOT, stdio: "ignore", timeout: 60_000 });
  return out;
}

describe("an MCP App in a browser, through the gateway", { skip: SKIP }, () => {
  let gw: TestGateway;
  let hostScript: string;
  let browser: BrowserContext;
  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-apps-browser-"));
    const view = bundle(dir, "view.mjs");
    hostScript = readFileSync(bundle(dir, "host.mjs"), "utf8");
    gw = await startTestGateway(`
gateway:
  auth: { tokens: [{ name: full, token: ${FULL} }] }
servers:
  a: ${appsServer("a", "protocol: legacy", { VIEW_SCRIPT: view })}
  b: ${appsServer("b", "protocol: modern", { VIEW_SCRIPT: view })}
`);
    browser = await chromium.launchPersistentContext(
      mkdtempSync(join(tmpdir(), "mcpgw-chromium-")),
      {
        executablePath: CHROMIUM,
        viewport: { width: 800, height: 400 },
        args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
      },
    );
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
  });

  for (const { era, revision, connect } of ERAS) {
    it(`renders b's view and its button calls b's tool (${era})`, async () => {
      assert.ok(!missing, `${CHROMIUM} is required in CI (apt-get install -y chromium)`);
      const client = await connect(gw.url, FULL);
      const page = await browser.newPage();
      try {
        const { tools } = await client.listTools();
        const resourceUri = viewOf(tools.find((t) => t.name === "b__show_chart")) as string;
        assert.equal(resourceUri, "ui://b/charts/view.html");
        const read = await client.readResource({ uri: resourceUri });
        const html = (read.contents[0] as { text: string }).text;
        const toolResult = await client.callTool({ name: "b__show_chart", arguments: {} });

        const errors: string[] = [];
        page.on("pageerror", (err) => errors.push(err.message));
        const calls: string[] = [];
        await page.exposeFunction(
          "mcpCallTool",
          (params: Parameters<typeof client.callTool>[0]) => {
            calls.push(params.name);
            return client.callTool(params);
          },
        );
        await page.setContent(
          `<!doctype html><html><body><h2>test host</h2><div id="host">` +
            `</div></body></html>`,
        );
        await page.addScriptTag({ content: hostScript, type: "module" });
        await page.waitForFunction(() => "renderApp" in globalThis, null, { timeout: 20_000 });
        await page.evaluate(
          (args) =>
            (globalThis as unknown as { renderApp(a: unknown): Promise<void> }).renderApp(args),
          { html, resourceUri, toolResult },
        );
        const view = page.frameLocator("#view");
        assert.equal(await view.locator("h1").textContent(), "Chart from server b");
        await view.locator("body[data-connected=yes]").waitFor({ timeout: 20_000 });
        assert.equal(
          await view.locator("body").getAttribute("data-tool-result"),
          textOf(toolResult),
        );
        await view.locator("#load").click();
        await view.locator("#out", { hasText: /./ }).waitFor({ timeout: 20_000 });
        assert.equal(await view.locator("#out").textContent(), "data from b");
        assert.deepEqual(calls, ["chart_data"]);
        assert.deepEqual(errors, []);
        mkdirSync(join(ROOT, "test-artifacts"), { recursive: true });
        await page.screenshot({ path: join(ROOT, `test-artifacts/mcp-app-${revision}.png`) });
      } finally {
        await page.close();
        await client.close();
      }
    });
  }
});
