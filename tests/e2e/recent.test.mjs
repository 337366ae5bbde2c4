// Recent traces: kept in the browser (Cache Storage), listed on the empty trace view,
// reopened with their settings, deleted, offered to a link that asks for their files,
// never kept while keeping is off; a full storage is said, the results stay.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { assert, byTestId, cli, waitForAttr } from './assert.mjs';
import { FIXTURES, open as openAt } from './trace_helpers.mjs';

const TRACES = path.join(FIXTURES, 'traces');

/** A new document each time (a change of fragment alone is no navigation). */
async function open(page, baseUrl, fragment = '') {
  await page.goto('about:blank');
  await openAt(page, baseUrl, fragment);
}

async function pick(page, files) {
  await byTestId(page, 'trace-file-input').setInputFiles(files);
  await waitForAttr(page, 'trace-status', 'data-state', 'done', 30000);
}

async function exportJson(page) {
  const [download] = await Promise.all([page.waitForEvent('download'), byTestId(page, 'export-json').click()]);
  return readFileSync(await download.path(), 'utf8');
}

/** Poll an asynchronous check in the page until it holds (waitForFunction would take
 *  the promise it returns for a truthy answer). */
async function until(page, check, timeout = 20000) {
  const deadline = Date.now() + timeout;
  while (!(await page.evaluate(check))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${check}`);
    await page.waitForTimeout(50);
  }
}

/** The kept list as the page stored it. */
const keptNames = (page) => page.$$eval('[data-testid="recent-trace"]', (li) => li.map((e) => e.dataset.name));

export const tests = [
  {
    name: 'a loaded set is kept: listed after a reload, reopened with its settings to identical results, deleted',
    async run({ page, baseUrl }) {
      await open(page, baseUrl);
      const files = ['rank0_events.json', 'rank1_events.json', 'rank2_events.json', 'rank3_events.json']
        .map((f) => path.join(TRACES, 'tui_per_rank_files', f));
      await byTestId(page, 'preset-select').selectOption('high');
      await pick(page, files);
      const want = cli(['attribute', ...files, '--preset', 'high']).toString();
      assert.equal(await exportJson(page), want);
      // A second, single file: newest first.
      await pick(page, path.join(TRACES, 'sync_markers_type.json'));
      // The kept list is written after the results show: wait for it before reloading.
      await until(page, async () => {
        const c = await caches.open('shardscope-recent');
        const r = await c.match('__recent__/list.json');
        return r && JSON.parse(await r.text()).sets.length === 2;
      });
      await open(page, baseUrl);
      await byTestId(page, 'recent-traces').waitFor();
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="recent-trace"]').length === 2);
      assert.deepEqual(await keptNames(page), ['sync_markers_type.json', 'rank0_events.json + 3 more']);
      assert.match(await byTestId(page, 'recent-trace').nth(1).innerText(), /4 files · .* · \d{4}-\d\d-\d\d \d\d:\d\d/);
      // Reopen: the same results with the settings it was shown with.
      assert.equal(await byTestId(page, 'preset-select').inputValue(), 'medium');
      await byTestId(page, 'recent-trace').nth(1).getByRole('button', { name: /^Reopen/ }).click();
      await waitForAttr(page, 'trace-status', 'data-state', 'done', 30000);
      assert.equal(await byTestId(page, 'preset-select').inputValue(), 'high');
      assert.equal(await exportJson(page), want, 'the reopened set equals the first load');
      // Reopening moved it first, without a second copy.
      await open(page, baseUrl);
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="recent-trace"]').length === 2);
      assert.deepEqual(await keptNames(page), ['rank0_events.json + 3 more', 'sync_markers_type.json']);
      // Delete: gone now and after a reload, its bytes too.
      await byTestId(page, 'recent-trace').nth(0).getByTestId('recent-delete').click();
      assert.deepEqual(await keptNames(page), ['sync_markers_type.json']);
      await until(page, async () => {
        const keys = await (await caches.open('shardscope-recent')).keys();
        return keys.filter((k) => !k.url.endsWith('list.json')).length === 1;
      });
      await open(page, baseUrl);
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="recent-trace"]').length === 1);
      assert.deepEqual(await keptNames(page), ['sync_markers_type.json']);
    },
  },
  {
    name: 'a link asking for kept files offers the kept copy; keeping off keeps nothing and forgets',
    async run({ page, baseUrl }) {
      await open(page, baseUrl);
      const file = path.join(TRACES, 'markers_some_ranks.json');
      await pick(page, file);
      await until(page, async () => {
        const r = await (await caches.open('shardscope-recent')).match('__recent__/list.json');
        return r && JSON.parse(await r.text()).sets.length === 1;
      });
      await open(page, baseUrl, '#v=1&preset=low&files=markers_some_ranks.json');
      await byTestId(page, 'recent-offer').click();
      await waitForAttr(page, 'trace-status', 'data-state', 'done', 30000);
      assert.equal(await exportJson(page), cli(['attribute', file, '--preset', 'medium']).toString(),
        'the kept copy reopens with the settings it was kept with');
      // Off: forgets what was kept, and keeps nothing more.
      await open(page, baseUrl);
      await byTestId(page, 'recent-trace').first().waitFor();
      await byTestId(page, 'recent-keep-toggle').uncheck();
      assert.equal(await byTestId(page, 'recent-trace').count(), 0);
      await pick(page, path.join(TRACES, 'sync_markers_type.json'));
      await page.waitForTimeout(500);
      await open(page, baseUrl);
      await byTestId(page, 'recent-traces').waitFor();
      assert.equal(await byTestId(page, 'recent-keep-toggle').isChecked(), false, 'the choice is remembered');
      assert.equal(await byTestId(page, 'recent-trace').count(), 0);
      assert.equal(await page.evaluate(async () => (await caches.keys()).includes('shardscope-recent')), false);
    },
  },
  {
    name: 'a full storage is said beside the results, which stay',
    async run({ page, baseUrl }) {
      await page.addInitScript(() => {
        if (typeof Cache === 'undefined') return;
        const put = Cache.prototype.put;
        Cache.prototype.put = function (request, response) {
          const url = typeof request === 'string' ? request : request.url;
          if (url.includes('__recent__/set-')) {
            return Promise.reject(new DOMException('The quota has been exceeded.', 'QuotaExceededError'));
          }
          return put.call(this, request, response);
        };
      });
      await open(page, baseUrl);
      await pick(page, path.join(TRACES, 'sync_markers_type.json'));
      const problem = page.locator('.recent-problem, [data-testid="trace-error"]').filter({ hasText: 'Could not keep' });
      await problem.first().waitFor();
      assert.match(await problem.first().innerText(), /quota/i);
      assert.equal(await byTestId(page, 'trace-status').getAttribute('data-state'), 'done');
      assert.ok(Number(await byTestId(page, 'attribution-count').innerText()) > 0, 'the results stay');
    },
  },
];
