// The page: loads cleanly, talks to its worker, switches views by keyboard, reads files.
import { statSync } from 'node:fs';
import path from 'node:path';
import { assert, byTestId, coreVersion, ROOT, waitForAttr } from './assert.mjs';

const EXAMPLE = path.join(ROOT, 'public/examples/example-8-ranks.json');

async function open(page, baseUrl, fragment = '') {
  const response = await page.goto(`${baseUrl}${fragment}`);
  assert.equal(response.status(), 200);
  await waitForAttr(page, 'worker-status', 'data-state', 'ready');
}

export const tests = [
  {
    name: 'page loads with its hooks and the worker answers a ping with the core version',
    async run({ page, baseUrl }) {
      await open(page, baseUrl);
      assert.equal(await page.title(), 'Shardscope');
      assert.match(await page.locator('h1').innerText(), /Shardscope/);
      const status = byTestId(page, 'worker-status');
      assert.equal(await status.getAttribute('data-core-version'), coreVersion());
      assert.match(await status.innerText(), new RegExp(`core ${coreVersion().replaceAll('.', '\\.')}`));

      for (const id of ['view-trace', 'view-explore', 'trace-drop-zone', 'load-example', 'trace-status',
        'trace-progress', 'explore-status', 'permalink']) {
        assert.equal(await byTestId(page, id).count(), 1, `exactly one data-testid=${id}`);
      }
      const input = byTestId(page, 'trace-drop-zone').locator('[data-testid="trace-file-input"]');
      assert.equal(await input.count(), 1, 'file input inside the drop zone');
      assert.equal(await input.getAttribute('type'), 'file');
      assert.equal(await input.evaluate((e) => e.multiple), true);
      assert.ok((await input.getAttribute('aria-label'))?.length > 0, 'file input is labelled');
      assert.equal(await byTestId(page, 'trace-status').getAttribute('data-state'), 'idle');
      const progress = byTestId(page, 'trace-progress');
      assert.equal(await progress.evaluate((e) => e.tagName), 'PROGRESS');
      assert.equal(await progress.isVisible(), false, 'no progress bar while idle');
      assert.equal(await byTestId(page, 'explore-status').getAttribute('data-state'), 'idle');
      assert.equal(await byTestId(page, 'view-trace').getAttribute('aria-selected'), 'true');
      assert.equal(await byTestId(page, 'trace-drop-zone').isVisible(), true);
      assert.equal(await byTestId(page, 'explore-status').isVisible(), false);
    },
  },
  {
    name: 'the view switch works by keyboard and is kept in the permalink',
    async run({ page, baseUrl }) {
      await open(page, baseUrl);
      const focused = () => page.evaluate(() => document.activeElement?.getAttribute('data-testid'));
      // Tab from the start of the page reaches the selected tab.
      for (let i = 0; i < 10 && (await focused()) !== 'view-trace'; i += 1) await page.keyboard.press('Tab');
      assert.equal(await focused(), 'view-trace', 'Tab reaches the view switch');

      await page.keyboard.press('ArrowRight');
      await waitForAttr(page, 'view-explore', 'aria-selected', 'true');
      assert.equal(await focused(), 'view-explore');
      assert.equal(await byTestId(page, 'view-trace').getAttribute('aria-selected'), 'false');
      assert.equal(await byTestId(page, 'explore-status').isVisible(), true);
      assert.equal(await byTestId(page, 'trace-drop-zone').isVisible(), false);
      assert.match(page.url(), /#view=explore$/);
      const href = await byTestId(page, 'permalink').getAttribute('href');
      assert.equal(href, `${baseUrl}#view=explore`);

      await page.keyboard.press('ArrowLeft');
      await waitForAttr(page, 'view-trace', 'aria-selected', 'true');
      assert.equal(await focused(), 'view-trace');
      assert.equal(await byTestId(page, 'trace-drop-zone').isVisible(), true);
      await page.keyboard.press('End');
      await waitForAttr(page, 'view-explore', 'aria-selected', 'true');
      await page.keyboard.press('Home');
      await waitForAttr(page, 'view-trace', 'aria-selected', 'true');

      // The selected tab is the only one in the Tab order.
      assert.equal(await byTestId(page, 'view-trace').getAttribute('tabindex'), '0');
      assert.equal(await byTestId(page, 'view-explore').getAttribute('tabindex'), '-1');

      // Opening the permalink reproduces the view.
      const other = await page.context().newPage();
      await open(other, baseUrl, '#view=explore');
      assert.equal(await byTestId(other, 'view-explore').getAttribute('aria-selected'), 'true');
      assert.equal(await byTestId(other, 'explore-status').isVisible(), true);
      await other.close();
    },
  },
  {
    name: 'dropped files are read by the worker',
    async run({ page, baseUrl }) {
      await open(page, baseUrl);
      const sizes = await page.evaluate(() => {
        const a = '{"events": []}\n'.repeat(1000);
        const b = 'x'.repeat(4097);
        const dt = new DataTransfer();
        dt.items.add(new File([a], 'rank0.json', { type: 'application/json' }));
        dt.items.add(new File([b], 'rank1.jsonl'));
        const zone = document.querySelector('[data-testid="trace-drop-zone"]');
        for (const type of ['dragenter', 'dragover', 'drop']) {
          zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
        }
        return [a.length, b.length];
      });
      await waitForAttr(page, 'trace-status', 'data-state', 'done');
      const status = byTestId(page, 'trace-status');
      assert.equal(await status.getAttribute('data-files'), '2');
      assert.equal(await status.getAttribute('data-bytes'), String(sizes[0] + sizes[1]));
      const rows = await page.locator('.file-table tbody tr').allInnerTexts();
      assert.equal(rows.length, 2);
      assert.match(rows[0], /rank0\.json/);
      assert.match(rows[0], /1000/, 'rank0.json has 1000 lines');
      assert.match(rows[1], /rank1\.jsonl/);
      assert.equal(await byTestId(page, 'trace-progress').isVisible(), false);
      assert.equal(await byTestId(page, 'trace-error').count(), 0);
    },
  },
  {
    name: 'files chosen with the file input are read by the worker',
    async run({ page, baseUrl }) {
      await open(page, baseUrl);
      const content = Buffer.from('{"a": 1}\n{"a": 2}\n');
      await byTestId(page, 'trace-file-input').setInputFiles([
        { name: 'picked.jsonl', mimeType: 'application/json', buffer: content },
      ]);
      await waitForAttr(page, 'trace-status', 'data-state', 'done');
      assert.equal(await byTestId(page, 'trace-status').getAttribute('data-bytes'), String(content.length));
      assert.equal(await byTestId(page, 'trace-status').getAttribute('data-files'), '1');
    },
  },
  {
    name: 'the example trace loads',
    async run({ page, baseUrl }) {
      await open(page, baseUrl);
      await byTestId(page, 'load-example').click();
      await waitForAttr(page, 'trace-status', 'data-state', 'done');
      assert.equal(
        await byTestId(page, 'trace-status').getAttribute('data-bytes'),
        String(statSync(EXAMPLE).size),
      );
      assert.match(await page.locator('.file-table').innerText(), /example-8-ranks\.json/);
    },
  },
  {
    name: 'an empty drop is an actionable error, and the next load clears it',
    async run({ page, baseUrl }) {
      await open(page, baseUrl);
      await page.evaluate(() => {
        const zone = document.querySelector('[data-testid="trace-drop-zone"]');
        zone.dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: new DataTransfer() }));
      });
      await waitForAttr(page, 'trace-status', 'data-state', 'error');
      const errors = byTestId(page, 'trace-error');
      assert.equal(await errors.count(), 1);
      assert.match(await errors.innerText(), /No files were selected/);
      await byTestId(page, 'load-example').click();
      await waitForAttr(page, 'trace-status', 'data-state', 'done');
      assert.equal(await errors.count(), 0);
    },
  },
  {
    name: 'a failed example download is shown with the file name',
    async run({ page, context, baseUrl, expectConsoleErrors }) {
      expectConsoleErrors(/404/);
      await context.route('**/examples/**', (route) => route.fulfill({ status: 404, body: 'gone' }));
      await open(page, baseUrl);
      await byTestId(page, 'load-example').click();
      await waitForAttr(page, 'trace-status', 'data-state', 'error');
      const error = byTestId(page, 'trace-error');
      assert.equal(await error.count(), 1);
      assert.equal(await error.getAttribute('data-file'), 'example-8-ranks.json');
      assert.match(await error.innerText(), /example-8-ranks\.json.*HTTP 404/);
    },
  },
  {
    name: 'a worker that cannot start is reported in the page',
    async run({ page, context, baseUrl, expectConsoleErrors }) {
      expectConsoleErrors(/404|worker_loader/);
      await context.route('**/worker_loader.js', (route) => route.fulfill({ status: 404, body: 'gone' }));
      await page.goto(baseUrl);
      await waitForAttr(page, 'worker-status', 'data-state', 'error');
      assert.match(await byTestId(page, 'worker-status').innerText(), /worker/i);
      // Requests made meanwhile fail visibly instead of waiting forever.
      await byTestId(page, 'trace-file-input').setInputFiles([
        { name: 'a.json', mimeType: 'application/json', buffer: Buffer.from('[]') },
      ]);
      await waitForAttr(page, 'trace-status', 'data-state', 'error');
      assert.equal(await byTestId(page, 'trace-error').count(), 1);
    },
  },
];
