/**
 * The operator console in a real headless Chromium (Debian's `chromium`, driven by
 * playwright-core), signed in through the form with auth on: per-tool charts, recent calls with
 * date and zone (resource reads and prompt gets included), a server that gave up, live updates
 * without a reload, and the buttons — disable, enable, restart, end a session — each doing what
 * it says; a form on another origin is refused; the page reads without JavaScript and fits a
 * phone. Screenshots go to `test-artifacts/`. Without Chromium the tests skip locally and fail
 * in CI.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { Page } from "playwright-core";
import { nodeServer, ROOT, startTestGateway, waitFor } from "../_helpers/gateway.ts";
import { authedHttpClient } from "../security/_http.ts";
import { CHROMIUM, CHROMIUM_MISSING, CHROMIUM_SKIP, launchChromium } from "../_helpers/chromium.ts";

const ADMIN = "console-admin-token-0123456789";
const USER = "console-user-token-0123456789";

const launch = launchChromium;
const missing = CHROMIUM_MISSING;
const SKIP = CHROMIUM_SKIP;

async function signIn(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.fill("#token", ADMIN);
  await Promise.all([page.waitForURL(`${url}/`), page.click("button[type=submit]")]);
  await page.locator("#upstreams").waitFor();
}

const YAML = `gateway:
  auth:
    tokens:
      - { name: on-call, token: "${ADMIN}", admin: true }
      - { name: agent, token: "${USER}" }
servers:
  echo: ${nodeServer("echo.mjs")}
  changing: ${nodeServer("changing.mjs")}
  prompts: ${nodeServer("prompts.mjs")}
  broken: ${
  nodeServer(
    "exit-at-start.mjs",
    `env: { FATAL_MESSAGE: "fatal: BROKEN_TOKEN is not set" }, restart: { initialDelay: 50ms, maxRestarts: 1 }`,
  )
}
`;

describe("the operator console in a browser", () => {
  it("charts tools, lists calls with date and zone, updates live, and its buttons act", {
    skip: SKIP,
  }, async () => {
    assert.ok(!missing, `${CHROMIUM} is required in CI (apt-get install -y chromium)`);
    const gw = await startTestGateway(YAML);
    const client = await authedHttpClient(gw.url, USER);
    const other = await authedHttpClient(gw.url, USER);
    const browser = await launch(1280, 900);
    const artifacts = join(ROOT, "test-artifacts");
    mkdirSync(artifacts, { recursive: true });
    try {
      for (let i = 0; i < 5; i++) {
        await client.callTool({ name: "echo__echo", arguments: { text: `hello ${i}` } });
      }
      await client.callTool({ name: "echo__fail", arguments: {} });
      await client.readResource({ uri: "changing://base" });
      await client.getPrompt({ name: "prompts__greet" });
      const pool = gw.running.gateway.pool;
      await waitFor(() => pool.get("broken")!.gaveUp, 10_000, "broken to give up");

      const page = await browser.newPage();
      await signIn(page, gw.url);

      // Charts: one row per tool, with both SVG charts.
      const echoRow = page.locator('#tools tr[data-tool="echo__echo"]');
      assert.equal(await echoRow.locator("svg.chart").count(), 2);
      assert.match(await echoRow.innerText(), /\d+\.\d\/min/);
      assert.match(
        await page.locator('#tools tr[data-tool="echo__fail"]').innerText(),
        /100 %/,
      );
      // Recent calls: date and zone; the resource read and the prompt get are there.
      const first = await page.locator("#calls tbody tr").first().innerText();
      assert.match(first, /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC/);
      assert.match(
        await page.locator('#calls tr[data-kind="resource"]').innerText(),
        /resource changing:\/\/base[\s\S]*changing/,
      );
      assert.match(
        await page.locator('#calls tr[data-kind="prompt"]').innerText(),
        /prompt prompts__greet[\s\S]*prompts/,
      );
      // The server that gave up says so, with its stderr behind a disclosure.
      const broken = page.locator('#upstreams tr[data-server="broken"]');
      assert.match(await broken.innerText(), /gave up after \d+ failures?/);
      await broken.locator("summary").click();
      assert.match(await broken.locator("pre").innerText(), /BROKEN_TOKEN is not set/);
      await broken.locator("summary").click();
      assert.equal(await page.locator("#sessions tbody tr[data-session]").count(), 2);
      await page.screenshot({ path: join(artifacts, "console-desktop.png"), fullPage: true });

      // Live: a call made now appears without a reload.
      const calls = await page.locator("#calls tbody tr").count();
      await client.callTool({ name: "echo__echo", arguments: { text: "live" } });
      await waitFor(
        async () =>
          (await page.locator("#calls tbody tr").count()) > calls ||
          /live/.test(await page.locator("#calls").innerText()),
        15_000,
        "the page to update itself",
      );

      // Disable, then enable.
      const echo = page.locator('#upstreams tr[data-server="echo"]');
      await Promise.all([
        page.waitForURL(`${gw.url}/#upstreams`),
        echo.locator("button", { hasText: "Disable" }).click(),
      ]);
      assert.equal(await echo.locator(".state").first().innerText(), "disabled by override");
      assert.equal(pool.get("echo")!.state, "disabled");
      assert.ok(!(await client.listTools()).tools.some((t) => t.name.startsWith("echo__")));
      await Promise.all([
        page.waitForURL(`${gw.url}/#upstreams`),
        echo.locator("button", { hasText: "Enable" }).click(),
      ]);
      await waitFor(() => pool.get("echo")!.state === "up", 10_000, "echo up again");

      // Restart the server that gave up.
      const restarts = pool.get("broken")!.restarts;
      await Promise.all([
        page.waitForURL(`${gw.url}/#upstreams`),
        broken.locator("button", { hasText: "Restart" }).click(),
      ]);
      assert.ok(pool.get("broken")!.restarts > restarts);

      // End the newest session: its client is refused from then on; the other goes on. The
      // restart's answer is still loading when its URL is reached: reload only once it has.
      await page.waitForLoadState("load");
      await page.goto(`${gw.url}/`, { waitUntil: "load" });
      await Promise.all([
        page.waitForURL(`${gw.url}/#sessions`),
        page.locator("#sessions tbody tr[data-session]").last().locator("button").click(),
      ]);
      await assert.rejects(other.listTools());
      assert.ok((await client.listTools()).tools.length > 0);
    } finally {
      await browser.close();
      await other.close().catch(() => {});
      await client.close();
      await gw.stop();
    }
  });

  it("refuses a form posted from another origin, reads without JavaScript, fits a phone", {
    skip: SKIP,
  }, async () => {
    assert.ok(!missing, `${CHROMIUM} is required in CI (apt-get install -y chromium)`);
    const gw = await startTestGateway(YAML);
    const client = await authedHttpClient(gw.url, USER);
    // A page on another port of localhost: same site (the cookie goes along), another origin.
    const evil = createServer((_req, res) => {
      res.setHeader("content-type", "text/html");
      res.end(
        `<form id="f" method="post" action="${gw.url}/admin/servers/echo/disable"></form>` +
          `<script>document.getElementById("f").submit()</script>`,
      );
    });
    await new Promise<void>((r) => evil.listen(0, "127.0.0.1", r));
    const evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/`;
    const browser = await launch(1280, 900);
    const noScript = await launch(390, 844, false);
    const artifacts = join(ROOT, "test-artifacts");
    mkdirSync(artifacts, { recursive: true });
    try {
      await client.callTool({ name: "echo__echo", arguments: { text: "hi" } });
      const page = await browser.newPage();
      await signIn(page, gw.url);
      const refused = page.waitForResponse((r) => r.url().includes("/admin/servers/echo"));
      await page.goto(evilUrl);
      assert.equal((await refused).status(), 403);
      assert.equal(gw.running.gateway.pool.get("echo")!.state, "up", "nothing was disabled");

      const plain = await noScript.newPage();
      await signIn(plain, gw.url);
      assert.equal(
        await plain.locator('#upstreams tr[data-server="echo"] .state').first().innerText(),
        "up",
      );
      assert.ok(await plain.locator('#tools tr[data-tool="echo__echo"] svg.chart').count() > 0);
      const [scrollWidth, innerWidth] = await plain.evaluate(() => [
        document.documentElement.scrollWidth,
        globalThis.innerWidth,
      ]);
      assert.ok(scrollWidth! <= innerWidth!, `phone: scrollWidth ${scrollWidth} > ${innerWidth}`);
      await plain.screenshot({ path: join(artifacts, "console-phone.png"), fullPage: true });
    } finally {
      await browser.close();
      await noScript.close();
      evil.close();
      await client.close();
      await gw.stop();
    }
  });
});
