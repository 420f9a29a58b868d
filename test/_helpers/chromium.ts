/**
 * A headless Chromium for the browser tests (Debian's `chromium`, driven by playwright-core):
 * where it is, whether to skip (not installed, outside CI), and a launch with a fresh profile.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

/** Debian's Chromium. */
export const CHROMIUM = "/usr/bin/chromium";
/** True when it is not installed. */
export const CHROMIUM_MISSING = !existsSync(CHROMIUM);
/** The `skip` option of a browser test: skipped locally without Chromium, never in CI. */
export const CHROMIUM_SKIP: string | false = CHROMIUM_MISSING && process.env.CI !== "true"
  ? `${CHROMIUM} is not installed`
  : false;

/** A headless Chromium with a fresh profile (playwright takes it as the context's folder). */
export function launchChromium(
  width = 1200,
  height = 800,
  javaScriptEnabled = true,
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "mcpgw-chromium-")), {
    executablePath: CHROMIUM,
    viewport: { width, height },
    javaScriptEnabled,
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
