/**
 * The status page in a real headless Chromium (Debian's `chromium`, driven by playwright-core):
 * it renders live upstream state and recent calls; with auth on, an admin signs in through the
 * form and the page fits desktop (1280 px) and phone (390 px) widths without horizontal
 * overflow. Screenshots are kept in `test-artifacts/`. Without Chromium the tests skip locally
 * and fail in CI.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { httpClient, nodeServer, ROOT, startTestGateway, waitFor } from "../_helpers/gateway.ts";
import { authedHttpClient } from "../security/_http.ts";
import { CHROMIUM, CHROMIUM_MISSING, CHROMIUM_SKIP, launchChromium } from "../_helpers/chromium.ts";

const ADMIN = "browser-admin-token-0123456789";

const launch = launchChromium;
const missing = CHROMIUM_MISSING;
const SKIP = CHROMIUM_SKIP;

describe("status page in a browser", () => {
  it(
    "shows each upstream's live state and the recent calls",
    { skip: SKIP },
    async () => {
      assert.ok(!missing, `${CHROMIUM} is required in CI (apt-get install -y chromium)`);
      const gw = await startTestGateway(`
servers:
  echo: ${nodeServer("echo.mjs")}
  crashy: ${nodeServer("crash-mid-call.mjs", "restart: { initialDelay: 60s }")}
  missing: { command: ./not/installed }
`);
      const client = await httpClient(gw.url);
      const browser = await launch(1200, 800);
      try {
        await client.callTool({ name: "echo__echo", arguments: { hello: "world" } });
        await client.callTool({ name: "echo__fail", arguments: {} });
        await client.callTool({ name: "crashy__boom", arguments: {} });
        await waitFor(() => gw.running.gateway.pool.get("crashy")!.state === "down", 10_000);
        const page = await browser.newPage();
        await page.goto(`${gw.url}/`);
        const state = (server: string) =>
          page.locator(`#upstreams tr[data-server="${server}"] .state`).textContent();
        assert.equal(await state("echo"), "up");
        assert.equal(await state("crashy"), "down");
        assert.equal(await state("missing"), "down");
        const missingRow = await page.locator('#upstreams tr[data-server="missing"]').innerText();
        assert.match(missingRow, /command not found/);
        const calls = await page.locator("#calls tbody tr").allInnerTexts();
        assert.equal(calls.length, 3);
        assert.match(calls[0]!, /crashy__boom/);
        assert.match(calls[1]!, /echo__fail\s.*tool_error/);
        assert.match(calls[2]!, /echo__echo\s.*ok/);
        mkdirSync(join(ROOT, "test-artifacts"), { recursive: true });
        await page.screenshot({ path: join(ROOT, "test-artifacts/status.png"), fullPage: true });
      } finally {
        await browser.close();
        await client.close();
        await gw.stop();
      }
    },
  );

  it(
    "lets an admin sign in through the form and fits 1280 px and 390 px widths (auth on)",
    { skip: SKIP },
    async () => {
      assert.ok(!missing, `${CHROMIUM} is required in CI (apt-get install -y chromium)`);
      const gw = await startTestGateway(`
gateway:
  auth:
    tokens:
      - { name: operator-on-call, token: "${ADMIN}", admin: true }
servers:
  echo: ${nodeServer("echo.mjs")}
  crashy: ${nodeServer("crash-mid-call.mjs", "restart: { initialDelay: 60s }")}
  a-server-with-a-rather-long-name-for-phones: { command: ./not/installed/a/very/long/path/to/a/server-binary-that-does-not-exist }
`);
      const client = await authedHttpClient(gw.url, ADMIN);
      const browser = await launch(1280, 800);
      const artifacts = join(ROOT, "test-artifacts");
      mkdirSync(artifacts, { recursive: true });
      try {
        await client.callTool({ name: "echo__echo", arguments: { text: "hello" } });
        await client.callTool({ name: "crashy__boom", arguments: {} }).catch(() => {});
        await waitFor(() => gw.running.gateway.pool.get("crashy")!.state === "down", 10_000);
        await client.callTool({ name: "crashy__work", arguments: {} });
        const page = await browser.newPage();
        const noOverflow = () =>
          page.evaluate(() => [document.documentElement.scrollWidth, globalThis.innerWidth]);

        await page.setViewportSize({ width: 390, height: 844 });
        const login = await page.goto(`${gw.url}/`);
        assert.equal(login!.status(), 401);
        const [loginWidth, loginViewport] = await noOverflow();
        assert.ok(loginWidth! <= loginViewport!, `sign-in page ${loginWidth} > ${loginViewport}`);
        await page.screenshot({ path: join(artifacts, "status-login-phone.png"), fullPage: true });

        await page.fill("#token", "not-the-token-0123456789");
        await Promise.all([page.waitForLoadState("load"), page.click("button[type=submit]")]);
        assert.match(await page.locator("[role=alert]").innerText(), /not valid/);

        await page.fill("#token", ADMIN);
        await Promise.all([
          page.waitForURL(`${gw.url}/`),
          page.click("button[type=submit]"),
        ]);
        await page.locator("#upstreams").waitFor();
        assert.match(await page.locator(".meta").innerText(), /signed in as operator-on-call/);
        const cookies = await browser.cookies(gw.url);
        const session = cookies.find((c) => c.name === "mcpgw_status")!;
        assert.ok(session, "no status cookie");
        assert.equal(session.httpOnly, true);
        assert.equal(session.sameSite, "Strict");
        assert.ok(!session.value.includes(ADMIN), "the token is in the cookie");
        assert.equal(await page.evaluate(() => document.cookie), "", "cookie readable by script");

        for (
          const [name, width, height] of [["desktop", 1280, 800], ["phone", 390, 844]] as const
        ) {
          await page.setViewportSize({ width, height });
          await page.reload();
          await page.locator("#calls").waitFor();
          const [scrollWidth, innerWidth] = await noOverflow();
          assert.ok(
            scrollWidth! <= innerWidth!,
            `${name}: scrollWidth ${scrollWidth} > ${innerWidth}`,
          );
          const work = page.locator("#calls tbody tr", { hasText: "crashy__work" });
          assert.match(await work.innerText(), /crashy[\s\S]*down/);
          assert.equal(
            await page.locator(`#upstreams tr[data-server="echo"] .state`).innerText(),
            "up",
          );
          await page.screenshot({ path: join(artifacts, `status-${name}.png`), fullPage: true });
        }
      } finally {
        await browser.close();
        await client.close();
        await gw.stop();
      }
    },
  );
});
