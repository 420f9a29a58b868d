/**
 * Debian's headless Chromium for browser tests, driven by playwright-core. Without it the tests
 * skip locally and fail in CI.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

/** Where Debian installs Chromium. */
export const CHROMIUM = "/usr/bin/chromium";
/** True when Chromium is not installed here. */
export const NO_CHROMIUM = !existsSync(CHROMIUM);
/** The `skip` option of a browser test: skipped without Chromium, except in CI. */
export const SKIP_WITHOUT_CHROMIUM: string | false = NO_CHROMIUM && process.env.CI !== "true"
  ? `${CHROMIUM} is not installed`
  : false;

/** A headless Chromium with a fresh profile and a `width`×`height` viewport. */
export function launchChromium(width = 1200, height = 800): Promise<BrowserContext> {
  return chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "mcpgw-chromium-")), {
    executablePath: CHROMIUM,
    viewport: { width, height },
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
  });
}
