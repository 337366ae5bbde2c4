// Any screen (issue 20, point 4): the canvases fill their width and are drawn at the
// screen's pixel ratio — 1, 2 and 3 — in both views (sharp on HiDPI phones too).
import { chromium } from 'playwright-core';
import { assert, byTestId, CHROMIUM, CHROMIUM_ARGS, waitForAttr } from './assert.mjs';
import { open } from './trace_helpers.mjs';

/** The canvas's backing store against its CSS box and its container's width. */
function backing(page, testid) {
  return page.evaluate((id) => {
    const c = document.querySelector(`[data-testid="${id}"]`);
    const box = c.getBoundingClientRect();
    return {
      width: c.width,
      height: c.height,
      cssWidth: box.width,
      cssHeight: box.height,
      parentWidth: c.parentElement.getBoundingClientRect().width,
    };
  }, testid);
}

export const tests = [
  {
    name: 'canvases are drawn at devicePixelRatio 1, 2 and 3 and fill their width',
    async run({ baseUrl }) {
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      try {
        for (const dpr of [1, 2, 3]) {
          const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: dpr });
          await page.goto(baseUrl);
          await waitForAttr(page, 'worker-status', 'data-state', 'ready', 30000);
          await byTestId(page, 'load-example').click();
          await waitForAttr(page, 'trace-status', 'data-state', 'done', 30000);
          await page.waitForSelector('[data-testid="timeline-canvas"][data-paint-ms]');
          for (const id of ['timeline-canvas', 'scatter-canvas']) {
            if (id === 'scatter-canvas') {
              await byTestId(page, 'view-explore').click();
              await waitForAttr(page, 'explore-status', 'data-state', 'done', 30000);
              await page.waitForSelector('[data-testid="scatter-canvas"][data-paint-ms]');
            }
            const b = await backing(page, id);
            // One backing pixel per device pixel (a box of 929.25 CSS px has 1858.5 of them
            // at ×2: within one CSS pixel).
            assert.ok(Math.abs(b.width - b.cssWidth * dpr) < dpr, `${id}'s width at ×${dpr}: ${JSON.stringify(b)}`);
            assert.ok(Math.abs(b.height - b.cssHeight * dpr) < dpr, `${id}'s height at ×${dpr}: ${JSON.stringify(b)}`);
            assert.ok(Math.abs(b.cssWidth - b.parentWidth) <= 1, `${id} fills its width at ×${dpr}: ${JSON.stringify(b)}`);
          }
          await page.close();
        }
      } finally {
        await browser.close();
      }
    },
  },
  {
    name: 'text zoomed to 200 %: no sideways scrolling, the layout steps down to one column',
    async run({ page, baseUrl }) {
      await page.setViewportSize({ width: 1280, height: 800 });
      const sideways = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      // The browser's text size doubled (16 px → 32 px, as in its settings): every size and
      // breakpoint is in rem or %, so the page's 15 px becomes 30 px and the layout steps down.
      const cdp = await page.context().newCDPSession(page);
      const zoom = () => cdp.send('Page.setFontSizes', { fontSizes: { standard: 32, fixed: 26 } });
      await open(page, baseUrl);
      await zoom();
      await byTestId(page, 'load-example').click();
      await waitForAttr(page, 'trace-status', 'data-state', 'done', 30000);
      await page.waitForSelector('[data-testid="timeline-canvas"][data-paint-ms]');
      assert.equal(await sideways(), 0, 'the trace view at 200 % text scrolls sideways');
      const toggle = page.locator('[data-testid="settings-drawer-toggle"][aria-controls="trace-drawer"]');
      assert.equal(await toggle.isVisible(), true, 'at 200 % text the settings move into the drawer');
      assert.equal(await page.evaluate(() => getComputedStyle(document.documentElement).fontSize), '30px', "the page's base text doubled");
      const status = await page.evaluate(() => parseFloat(getComputedStyle(document.querySelector('.trace-status')).fontSize));
      assert.equal(status, 27, 'the status line (0.9 rem) doubled from 13.5 px');
      await page.goto('about:blank');
      await open(page, baseUrl, '#v=1&view=explore');
      await zoom();
      await waitForAttr(page, 'explore-status', 'data-state', 'done', 30000);
      await page.waitForSelector('[data-testid="pareto-row"]');
      assert.equal(await sideways(), 0, 'the explore view at 200 % text scrolls sideways');
    },
  },
];
