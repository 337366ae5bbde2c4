// The page: loads cleanly, talks to its worker, switches views by keyboard, reads files.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { assert, byTestId, cli, coreVersion, ROOT, waitForAttr } from './assert.mjs';
import { assertRowsMatch, dropFiles, expectedRows, FIXTURES, open, rowsWithText } from './trace_helpers.mjs';

const EXAMPLE = path.join(ROOT, 'public/examples/example-16-ranks.json.gz');
const PER_RANK = path.join(FIXTURES, 'traces/tui_per_rank_files');

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
      await page.waitForFunction(() => location.hash === '#v=1&view=explore');
      const href = await byTestId(page, 'permalink').getAttribute('href');
      assert.equal(href, `${baseUrl}#v=1&view=explore`);

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
    name: 'dropped per-rank files are combined and attributed exactly as stormlog does',
    async run({ page, baseUrl }) {
      await open(page, baseUrl);
      const names = readdirSync(PER_RANK).sort();
      const files = names.map((n) => [n, readFileSync(path.join(PER_RANK, n), 'utf8')]);
      await dropFiles(page, files);
      await waitForAttr(page, 'trace-status', 'data-state', 'done');
      const status = byTestId(page, 'trace-status');
      assert.equal(await status.getAttribute('data-files'), String(names.length));
      const bytes = names.reduce((sum, n) => sum + statSync(path.join(PER_RANK, n)).size, 0);
      assert.equal(await status.getAttribute('data-bytes'), String(bytes));
      assert.ok(Number(await status.getAttribute('data-events')) > 100, 'events counted');
      for (const name of ['data-parse-ms', 'data-attribute-ms']) {
        const value = await status.getAttribute(name);
        assert.match(value ?? '', /^\d+(\.\d+)?$/, `${name} is a plain decimal (got ${value})`);
      }
      await assertRowsMatch(page, expectedRows('tui_per_rank_files'));
      assert.equal(await byTestId(page, 'trace-progress').isVisible(), false);
      assert.equal(await byTestId(page, 'trace-error').count(), 0);
    },
  },
  {
    name: 'a file chosen with the file input is attributed (JSONL)',
    async run({ page, baseUrl }) {
      await open(page, baseUrl);
      const file = path.join(FIXTURES, 'traces/jsonl_segment.jsonl');
      await byTestId(page, 'trace-file-input').setInputFiles([
        { name: 'jsonl_segment.jsonl', mimeType: 'application/json', buffer: readFileSync(file) },
      ]);
      await waitForAttr(page, 'trace-status', 'data-state', 'done');
      assert.equal(await byTestId(page, 'trace-status').getAttribute('data-bytes'), String(statSync(file).size));
      assert.equal(await byTestId(page, 'trace-status').getAttribute('data-files'), '1');
      await assertRowsMatch(page, expectedRows('jsonl_segment'));
    },
  },
  {
    name: 'the example trace loads and is attributed',
    async run({ page, baseUrl }) {
      await open(page, baseUrl);
      await byTestId(page, 'load-example').click();
      await waitForAttr(page, 'trace-status', 'data-state', 'done');
      assert.equal(
        await byTestId(page, 'trace-status').getAttribute('data-bytes'),
        String(statSync(EXAMPLE).size),
      );
      // The page's rows are the command line's for the same file.
      const want = JSON.parse(cli(['attribute', EXAMPLE, '--format', 'json']).toString());
      await assertRowsMatch(page, rowsWithText(cli(['attribute', EXAMPLE, '--format', 'json']).toString()));
      const classes = new Set(want.map((r) => r.classification));
      assert.deepEqual([...classes].sort(), ['collective_confident', 'collective_likely', 'collective_suspect'],
        'the example shows every classification');
    },
  },
  {
    name: 'a broken file beside good ones is reported by name, and the good ones are still analysed',
    async run({ page, baseUrl }) {
      await open(page, baseUrl);
      const names = readdirSync(PER_RANK).sort();
      const files = names.map((n) => [n, readFileSync(path.join(PER_RANK, n), 'utf8')]);
      files.push(['rank9_events.json', '[{"schema_version": 4, "rank": -1']);
      await dropFiles(page, files);
      await waitForAttr(page, 'trace-status', 'data-state', 'done');
      const errors = byTestId(page, 'trace-error');
      assert.equal(await errors.count(), 1);
      assert.equal(await errors.getAttribute('data-file'), 'rank9_events.json');
      assert.match(await errors.innerText(), /rank9_events\.json/);
      assert.match(await errors.innerText(), /line 1/);
      await assertRowsMatch(page, expectedRows('tui_per_rank_files'));
    },
  },
  {
    name: 'a file that is not a trace is an actionable error with its name',
    async run({ page, baseUrl }) {
      await open(page, baseUrl);
      await dropFiles(page, [['notes.json', '{"hello": "world"}']]);
      await waitForAttr(page, 'trace-status', 'data-state', 'error');
      const error = byTestId(page, 'trace-error');
      assert.equal(await error.count(), 1);
      assert.equal(await error.getAttribute('data-file'), 'notes.json');
      assert.match(await error.innerText(), /JSON payload does not contain telemetry events/);
      assert.match(await error.innerText(), /notes\.json/);
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
      assert.match(await errors.innerText(), /Nothing to load/);
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
      assert.equal(await error.getAttribute('data-file'), 'example-16-ranks.json.gz');
      assert.match(await error.innerText(), /example-16-ranks\.json\.gz[\s\S]*HTTP 404/);
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
