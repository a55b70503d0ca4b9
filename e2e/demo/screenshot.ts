// Full-page screenshots for the demo-world spec, into SCREENSHOT_DIR: the window grows to the content, because the
// console scrolls inside <main>.
import path from "node:path";
import type { Page } from "@playwright/test";
import { SCREENSHOT_DIR } from "../fixtures/test-env";

const WIDTH = 1440;
const MIN_HEIGHT = 900;
const MAX_HEIGHT = 4000;

/** Saves `<name>.png` with everything the page would scroll to in view. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const before = page.viewportSize();
  await page.setViewportSize({ width: WIDTH, height: MIN_HEIGHT });
  // The tallest scrolling box, measured from the top of the window; an open dialog counts as content too.
  const height = await page.evaluate(() => {
    let tallest = document.documentElement.scrollHeight;
    for (const element of document.querySelectorAll<HTMLElement>("main, main *, dialog[open]")) {
      const { overflowY } = getComputedStyle(element);
      const scrolls = overflowY === "auto" || overflowY === "scroll" || element.tagName === "DIALOG";
      if (scrolls)
        tallest = Math.max(tallest, element.scrollHeight + Math.max(0, element.getBoundingClientRect().top) + 32);
    }
    return tallest;
  });
  await page.setViewportSize({ width: WIDTH, height: Math.min(Math.max(Math.ceil(height), MIN_HEIGHT), MAX_HEIGHT) });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
  if (before) await page.setViewportSize(before);
}
