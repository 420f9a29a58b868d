/**
 * The status page in a real headless Chromium (Debian's `chromium`, driven by playwright-core):
 * it renders live upstream state and recent calls, and a screenshot is kept in
 * `test-artifacts/status.png`. Without Chromium the test skips locally and fails in CI.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { chromium } from "playwright-core";
import { httpClient, nodeServer, ROOT, startTestGateway, waitFor } from "../_helpers/gateway.ts";

const CHROMIUM = "/usr/bin/chromium";
const missing = !existsSync(CHROMIUM);
const inCi = process.env.CI === "true";

describe("status page in a browser", () => {
  it(
    "shows each upstream's live state and the recent calls",
    { skip: missing && !inCi ? `${CHROMIUM} is not installed` : false },
    async () => {
      assert.ok(!missing, `${CHROMIUM} is required in CI (apt-get install -y chromium)`);
      const gw = await startTestGateway(`
servers:
  echo: ${nodeServer("echo.mjs")}
  crashy: ${nodeServer("crash-mid-call.mjs", "restart: { initialDelay: 60s }")}
  missing: { command: ./not/installed }
`);
      const client = await httpClient(gw.url);
      // A fresh profile per run: playwright takes it as the persistent context's folder.
      const browser = await chromium.launchPersistentContext(
        mkdtempSync(join(tmpdir(), "mcpgw-chromium-")),
        {
          executablePath: CHROMIUM,
          viewport: { width: 1200, height: 800 },
          args: [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
          ],
        },
      );
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
});
