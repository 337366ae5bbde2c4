// Light and dark (issue 20, point 5): the page follows prefers-color-scheme until the user
// picks a theme, keeps the pick, paints its canvases in the theme shown, and exports PNGs
// in the light theme unless asked for dark ones.
import { readFileSync } from 'node:fs';
import { assert, byTestId, waitForAttr } from './assert.mjs';
import { open } from './trace_helpers.mjs';

/** Defines `meanLuminance(pixels)` in the page: mean relative luminance (0 black … 1
 * white) of RGBA pixels, opaque ones only, every fourth pixel. */
const MEAN_LUMINANCE = `window.meanLuminance = (px) => {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < px.length; i += 16) {
    if (px[i + 3] < 200) continue;
    sum += (0.2126 * px[i] + 0.7152 * px[i + 1] + 0.0722 * px[i + 2]) / 255;
    n += 1;
  }
  return n ? sum / n : NaN;
}`;

/** Mean luminance of a canvas's painted pixels. */
async function canvasLuminance(page, testid) {
  await page.evaluate(MEAN_LUMINANCE);
  return page.evaluate((id) => {
    const canvas = document.querySelector(`[data-testid="${id}"]`);
    return window.meanLuminance(canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data);
  }, testid);
}

/** Mean luminance of a downloaded PNG, decoded by the browser. */
async function pngLuminance(page, download) {
  const bytes = [...readFileSync(await download.path())];
  await page.evaluate(MEAN_LUMINANCE);
  return page.evaluate(async (b) => {
    const bitmap = await createImageBitmap(new Blob([new Uint8Array(b)], { type: 'image/png' }));
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = canvas.getContext('2d');
    ctx.drawImage(bitmap, 0, 0);
    return window.meanLuminance(ctx.getImageData(0, 0, bitmap.width, bitmap.height).data);
  }, bytes);
}

const background = (page) => page.evaluate(() => getComputedStyle(document.body.parentElement).backgroundColor);

async function waitForLuminance(page, testid, test, what) {
  const deadline = Date.now() + 10000;
  let last;
  while (Date.now() < deadline) {
    last = await canvasLuminance(page, testid);
    if (test(last)) return last;
    await page.waitForTimeout(100);
  }
  assert.fail(`${testid}: ${what}; mean luminance ${last}`);
}

const DARK = (l) => l < 0.3;
const LIGHT = (l) => l > 0.7;

export const tests = [
  {
    name: 'theme: follows the system, the pick is kept across reloads, canvases repaint in it',
    async run({ page, baseUrl }) {
      await page.emulateMedia({ colorScheme: 'dark' });
      await open(page, baseUrl);
      assert.equal(await page.locator('html').getAttribute('data-theme'), 'dark');
      assert.equal(await byTestId(page, 'theme-select').inputValue(), 'system');
      assert.equal(await background(page), 'rgb(18, 22, 26)');
      await byTestId(page, 'load-example').click();
      await waitForAttr(page, 'trace-status', 'data-state', 'done', 30000);
      await page.waitForSelector('[data-testid="timeline-canvas"][data-paint-ms]');
      await waitForLuminance(page, 'timeline-canvas', DARK, 'dark lanes on a dark page');

      // The system turns light: the page follows while the choice is "system".
      await page.emulateMedia({ colorScheme: 'light' });
      await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
      assert.equal(await background(page), 'rgb(244, 245, 246)');
      await waitForLuminance(page, 'timeline-canvas', LIGHT, 'light lanes once the system is light');

      // An explicit pick wins over the system and survives a reload.
      await byTestId(page, 'theme-select').selectOption('dark');
      await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
      await waitForLuminance(page, 'timeline-canvas', DARK, 'dark lanes once dark is picked');
      assert.equal(await page.evaluate(() => localStorage.getItem('shardscope.theme')), 'dark');
      await page.reload();
      await byTestId(page, 'theme-select').waitFor();
      assert.equal(await page.locator('html').getAttribute('data-theme'), 'dark');
      assert.equal(await byTestId(page, 'theme-select').inputValue(), 'dark');

      // The explorer's scatter is painted dark too, and light again after the switch.
      await page.goto('about:blank');
      await open(page, baseUrl, '#v=1&view=explore');
      await waitForAttr(page, 'explore-status', 'data-state', 'done', 30000);
      await page.waitForSelector('[data-testid="scatter-canvas"][data-paint-ms]');
      await waitForLuminance(page, 'scatter-canvas', DARK, 'a dark scatter');
      await byTestId(page, 'theme-select').selectOption('light');
      await waitForLuminance(page, 'scatter-canvas', LIGHT, 'a light scatter');
      // Back to following the system (light here): nothing kept.
      await byTestId(page, 'theme-select').selectOption('system');
      assert.equal(await page.evaluate(() => localStorage.getItem('shardscope.theme')), null);
    },
  },
  {
    name: 'theme: PNG exports are light on a dark page unless dark PNGs are asked for',
    async run({ page, baseUrl }) {
      await page.emulateMedia({ colorScheme: 'dark' });
      await open(page, baseUrl);
      await byTestId(page, 'load-example').click();
      await waitForAttr(page, 'trace-status', 'data-state', 'done', 30000);
      await page.waitForSelector('[data-testid="timeline-canvas"][data-paint-ms]');
      await waitForLuminance(page, 'timeline-canvas', DARK, 'dark lanes');
      const exportPng = async (testid) => {
        const [download] = await Promise.all([page.waitForEvent('download'), byTestId(page, testid).click()]);
        return pngLuminance(page, download);
      };
      const light = await exportPng('export-png');
      assert.ok(LIGHT(light), `the timeline's PNG is light by default (mean luminance ${light})`);
      assert.equal(await byTestId(page, 'dark-exports').isChecked(), false);
      await byTestId(page, 'dark-exports').check();
      const dark = await exportPng('export-png');
      assert.ok(DARK(dark), `with dark PNGs on, the timeline's PNG is dark (mean luminance ${dark})`);
      // The scatter's export follows the same setting, which is kept.
      await page.goto('about:blank');
      await open(page, baseUrl, '#v=1&view=explore');
      await waitForAttr(page, 'explore-status', 'data-state', 'done', 30000);
      await page.waitForSelector('[data-testid="scatter-canvas"][data-paint-ms]');
      assert.equal(await byTestId(page, 'dark-exports').isChecked(), true);
      assert.ok(DARK(await exportPng('explore-export-png')), 'a dark scatter PNG');
      await byTestId(page, 'dark-exports').uncheck();
      assert.ok(LIGHT(await exportPng('explore-export-png')), 'a light scatter PNG');
    },
  },
];
