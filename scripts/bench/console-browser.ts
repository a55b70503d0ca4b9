// Time to interactive of the ledger page in Chromium (Playwright): first row visible, and React's handlers attached.
import { chromium } from "@playwright/test";
import { CHROMIUM_LAUNCH_OPTIONS } from "../../e2e/fixtures/test-env";
import type { ConsoleServer } from "./console-server";

export interface PageTiming {
  /** Milliseconds from the start of navigation until the table's first operation row is visible. */
  firstRowMs: number;
  /** Milliseconds until the first row is visible and the pager's buttons answer clicks (hydrated). */
  interactiveMs: number;
}

/**
 * Loads the ledger page `count` times in fresh tabs of one signed-in browser (so static assets are cached, as for an
 * operator).
 */
export async function ledgerPageTimings(server: ConsoleServer, count: number): Promise<PageTiming[]> {
  const browser = await chromium.launch(CHROMIUM_LAUNCH_OPTIONS);
  try {
    const context = await browser.newContext();
    const [name, value] = server.cookie.split(/=(.*)/s) as [string, string];
    await context.addCookies([{ name, value, url: server.baseUrl }]);
    const timings: PageTiming[] = [];
    // One unmeasured load fills the browser's cache with the page's scripts.
    for (let i = 0; i <= count; i++) {
      const page = await context.newPage();
      await page.goto(`${server.baseUrl}/`, { waitUntil: "commit" });
      // performance.now() counts from the navigation's start in the page's own clock.
      const firstRowMs = await page
        .waitForFunction(
          () => {
            const row = document.querySelector("[data-operation-row]");
            return row && row.getBoundingClientRect().height > 0 ? performance.now() : null;
          },
          null,
          { polling: "raf", timeout: 60_000 },
        )
        .then((handle) => handle.jsonValue() as Promise<number>);
      const interactiveMs = await page
        .waitForFunction(
          () => {
            const button = document.querySelector('nav[aria-label="Pages of the ledger"] button');
            return button && Object.keys(button).some((key) => key.startsWith("__reactProps"))
              ? performance.now()
              : null;
          },
          null,
          { polling: "raf", timeout: 60_000 },
        )
        .then((handle) => handle.jsonValue() as Promise<number>);
      if (i > 0) timings.push({ firstRowMs, interactiveMs: Math.max(firstRowMs, interactiveMs) });
      await page.close();
    }
    return timings;
  } finally {
    await browser.close();
  }
}
