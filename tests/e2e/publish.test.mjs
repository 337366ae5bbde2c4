// Links that open with the data: `#…&src=` (traces fetched from the page's own site) and
// `shardscope report OUT_DIR PATH...` (a static folder and the link that opens it).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assert, byTestId, cli, ROOT, serve, waitForAttr } from './assert.mjs';
import { assertRowsMatch, expectedRows, FIXTURES, open as openAt } from './trace_helpers.mjs';

const TRACES = path.join(FIXTURES, 'traces');

/** A new document each time (a change of fragment alone is no navigation). */
async function open(page, baseUrl, fragment = '') {
  await page.goto('about:blank');
  await openAt(page, baseUrl, fragment);
}

async function exportJson(page) {
  const [download] = await Promise.all([page.waitForEvent('download'), byTestId(page, 'export-json').click()]);
  return readFileSync(await download.path(), 'utf8');
}

export const tests = [
  {
    name: 'shardscope report: the printed link opens the run with its settings, equal to attribute',
    async run({ page, onCleanup }) {
      const out = path.join(mkdtempSync(path.join(tmpdir(), 'report-')), 'site');
      const folder = path.join(TRACES, 'tui_per_rank_files');
      const single = path.join(TRACES, 'markers_some_ranks.json');
      const options = ['--preset', 'high', '--override', 'min_confidence=0.6'];
      const link = cli(['report', out, folder, single, '--page', path.join(ROOT, 'dist'), ...options])
        .toString()
        .trim();
      assert.equal(link, 'index.html#v=1&view=trace&preset=high&o.min_confidence=0.6&src=traces/');
      const server = await serve(out);
      onCleanup(server.stop);
      await page.goto(server.url + link);
      await waitForAttr(page, 'trace-status', 'data-state', 'done', 30000);
      assert.equal(await byTestId(page, 'preset-select').inputValue(), 'high');
      assert.equal(await byTestId(page, 'override-min_confidence').inputValue(), '0.6');
      assert.equal(await byTestId(page, 'trace-status').getAttribute('data-files'), '5');
      const want = cli(['attribute', folder, single, ...options]).toString();
      assert.ok(want.length > 10);
      assert.equal(await exportJson(page), want, 'the opened report equals shardscope attribute');
      // The page's own link keeps the source: a reload opens the same run again.
      assert.match(page.url(), /[#&]src=traces\//);
      await page.reload();
      await waitForAttr(page, 'trace-status', 'data-state', 'done', 30000);
      assert.equal(await exportJson(page), want, 'after a reload');
    },
  },
  {
    name: 'src= a file of the site: fetched and attributed; a missing one is named with its URL',
    async run({ page, baseUrl, expectConsoleErrors }) {
      const file = readFileSync(path.join(TRACES, 'sync_markers_type.json'));
      await page.route('**/runs/today/run.json', (route) => route.fulfill({ body: file, contentType: 'application/json' }));
      await open(page, baseUrl, '#v=1&src=runs/today/run.json');
      await waitForAttr(page, 'trace-status', 'data-state', 'done');
      await assertRowsMatch(page, expectedRows('sync_markers_type', 'medium'));
      // A folder without an index: the error names the URL; nothing is loaded.
      expectConsoleErrors(/404/);
      await open(page, baseUrl, '#v=1&src=nowhere/');
      await waitForAttr(page, 'trace-status', 'data-state', 'error');
      const error = byTestId(page, 'trace-error');
      assert.equal(await error.getAttribute('data-file'), 'nowhere/index.json');
      assert.match(await error.innerText(), /nowhere\/index\.json\s+Could not be fetched \(HTTP 404/);
      assert.match(await error.innerText(), /index\.json/);
      // An index naming a file that is not there: that file's URL.
      await page.route('**/half/index.json', (route) => route.fulfill({ body: '{"files": ["a.json", "gone #2.json"]}' }));
      await page.route('**/half/a.json', (route) => route.fulfill({ body: file }));
      await open(page, baseUrl, '#v=1&src=half/');
      await waitForAttr(page, 'trace-status', 'data-state', 'error');
      assert.equal(await byTestId(page, 'trace-error').getAttribute('data-file'), 'half/gone%20%232.json');
    },
  },
  {
    name: 'src= of another site is refused with a reason; the rest of the link is kept',
    async run({ page, baseUrl }) {
      let asked = false;
      await page.route('https://evil.example/**', (route) => {
        asked = true;
        return route.abort();
      });
      await open(page, baseUrl, '#v=1&preset=low&src=https%3A%2F%2Fevil.example%2Ft%2F');
      assert.equal(await byTestId(page, 'preset-select').inputValue(), 'low');
      const notice = await byTestId(page, 'link-notice').innerText();
      assert.match(notice, /src/);
      assert.match(notice, /another site/);
      assert.equal(await byTestId(page, 'trace-status').getAttribute('data-state'), 'idle');
      assert.equal(asked, false, 'nothing was asked of the other site');
    },
  },
  {
    name: 'src= with a tab, newline, carriage return or backslash is refused with the link notice, nothing fetched',
    async run({ page, baseUrl }) {
      const asked = [];
      await page.route((url) => url.hostname === 'evil.example' || url.pathname.includes('evil.example'), (route) => {
        asked.push(route.request().url());
        return route.abort();
      });
      for (const [i, hidden] of ['%09', '%0A', '%0D', '%5C'].entries()) {
        // A query of its own each time: a new document, not a change of fragment.
        await open(page, `${baseUrl}?case=${i}`, `#v=1&preset=low&src=/${hidden}/evil.example/run.json`);
        assert.equal(await byTestId(page, 'preset-select').inputValue(), 'low', hidden);
        const notice = await byTestId(page, 'link-notice').innerText();
        assert.match(notice, /src/, hidden);
        assert.match(notice, /not a path of this site/, hidden);
        assert.equal(await byTestId(page, 'trace-status').getAttribute('data-state'), 'idle', hidden);
      }
      assert.deepEqual(asked, [], 'nothing was fetched for any of them');
    },
  },
  {
    name: 'src=: progress while fetching, and Cancel stops it with nothing loaded',
    async run({ page, baseUrl }) {
      let release;
      const held = new Promise((resolve) => { release = resolve; });
      await page.route('**/slow/index.json', (route) => route.fulfill({ body: '{"files": ["a.json", "b.json"]}' }));
      await page.route('**/slow/a.json', (route) => route.fulfill({ body: readFileSync(path.join(TRACES, 'sync_markers_type.json')) }));
      await page.route('**/slow/b.json', async (route) => {
        await held;
        await route.fulfill({ body: '[]' }).catch(() => {});
      });
      await open(page, baseUrl, '#v=1&src=slow/');
      const status = byTestId(page, 'trace-status');
      await page.waitForFunction(() => /Fetching slow\/b\.json \(2 of 2\)/.test(document.querySelector('[data-testid="trace-status"]').textContent));
      assert.equal(await status.getAttribute('data-state'), 'loading');
      assert.equal(await byTestId(page, 'trace-progress').getAttribute('value'), '0.5');
      await byTestId(page, 'trace-cancel').click();
      await waitForAttr(page, 'trace-status', 'data-state', 'idle');
      assert.match(await byTestId(page, 'trace-error').innerText(), /Cancelled/);
      release();
      await page.waitForTimeout(500);
      assert.equal(await status.getAttribute('data-state'), 'idle', 'the cancelled fetch never loads');
      assert.equal(await status.getAttribute('data-runs'), '0');
    },
  },
  {
    name: 'another page opens Shardscope and sends files: PING/PONG, then files and settings',
    async run({ page, context, baseUrl }) {
      // The opener: a page of another site (fulfilled here), as a notebook or CI page would be.
      await page.route('http://opener.example/**', (route) => route.fulfill({ body: '<!doctype html><title>opener</title>', contentType: 'text/html' }));
      await page.goto('http://opener.example/run.html');
      const file = readFileSync(path.join(TRACES, 'markers_some_ranks.json'), 'utf8');
      const [popup] = await Promise.all([
        context.waitForEvent('page'),
        page.evaluate(([url, text]) => {
          // The README's example, as a page would run it.
          const win = window.open(url);
          window.__win = win;
          window.__pongs = 0;
          const timer = setInterval(() => win.postMessage('PING', '*'), 50);
          window.addEventListener('message', (e) => {
            if (e.source !== win || e.data !== 'PONG') return;
            window.__pongs += 1;
            if (window.__pongs > 1) return;
            clearInterval(timer);
            const buffer = new TextEncoder().encode(text).buffer;
            win.postMessage({ shardscope: { files: [{ name: 'rank_all.json', buffer }], settings: { preset: 'high', phases: true } } }, '*', [buffer]);
          });
        }, [baseUrl, file]),
      ]);
      await waitForAttr(popup, 'trace-status', 'data-state', 'done', 30000);
      assert.ok(await page.evaluate(() => window.__pongs) >= 1, 'the opener got its PONG');
      assert.equal(await byTestId(popup, 'preset-select').inputValue(), 'high');
      const want = cli(['attribute', path.join(TRACES, 'markers_some_ranks.json'), '--preset', 'high', '--phases']).toString();
      assert.equal(await exportJson(popup), want, 'the sent files equal shardscope attribute with the sent settings');
      // A message from any other window (here: the page itself) is ignored.
      const runs = await byTestId(popup, 'trace-status').getAttribute('data-runs');
      await popup.evaluate(() => window.postMessage({ shardscope: { files: [{ name: 'x.json', buffer: new ArrayBuffer(2) }] } }, '*'));
      await popup.waitForTimeout(300);
      assert.equal(await byTestId(popup, 'trace-status').getAttribute('data-runs'), runs);
      assert.equal(await byTestId(popup, 'trace-status').getAttribute('data-state'), 'done');
      // A malformed message from the opener is explained; the results on screen stay.
      await page.evaluate(() => window.__win.postMessage({ shardscope: { files: 'rank0.json' } }, '*'));
      await waitForAttr(popup, 'trace-status', 'data-state', 'error');
      assert.match(await byTestId(popup, 'trace-error').innerText(), /sent files it cannot read: `files` is not a list/);
      assert.equal(await byTestId(popup, 'attribution-count').innerText(), String(JSON.parse(want).length));
    },
  },
  {
    name: 'a page embedding Shardscope in an iframe sends files the same way; src= opens a zip of a run',
    async run({ page, baseUrl, onCleanup }) {
      // The embedder: another origin (another port; a public one may not frame a
      // local page in Chromium).
      const site = mkdtempSync(path.join(tmpdir(), 'embedder-'));
      writeFileSync(path.join(site, 'notebook.html'),
        `<!doctype html><title>embedder</title><link rel="icon" href="data:,"><iframe id="s" src="${baseUrl}" width="1200" height="700"></iframe>`);
      const embedder = await serve(site);
      onCleanup(embedder.stop);
      await page.goto(`${embedder.url}notebook.html`);
      const file = readFileSync(path.join(TRACES, 'sync_markers_type.json'), 'utf8');
      await page.evaluate((text) => new Promise((resolve) => {
        const win = document.getElementById('s').contentWindow;
        const timer = setInterval(() => win.postMessage('PING', '*'), 50);
        window.addEventListener('message', (e) => {
          if (e.source !== win || e.data !== 'PONG') return;
          clearInterval(timer);
          win.postMessage({ shardscope: { files: [{ name: 'run.json', buffer: new Blob([text]) }] } }, '*');
          resolve();
        });
      }), file);
      const frame = page.frameLocator('#s');
      await frame.locator('[data-testid="trace-status"][data-state="done"]').waitFor({ timeout: 30000 });
      assert.equal(await frame.locator('[data-testid="attribution-count"]').innerText(),
        String(expectedRows('sync_markers_type', 'medium').length));
      // A linked archive is read as the folder it packs.
      const dir = mkdtempSync(path.join(tmpdir(), 'srczip-'));
      const zip = path.join(dir, 'run.zip');
      const folder = path.join(TRACES, 'tui_per_rank_files');
      execFileSync('python3', ['-c', `import sys, zipfile, os
src, zp = sys.argv[1:3]
with zipfile.ZipFile(zp, 'w', zipfile.ZIP_DEFLATED) as z:
    for n in sorted(os.listdir(src)): z.write(os.path.join(src, n), 'run/' + n)`, folder, zip]);
      await page.route('**/runs/run.zip', (route) => route.fulfill({ body: readFileSync(zip), contentType: 'application/zip' }));
      await open(page, baseUrl, '#v=1&src=runs/run.zip');
      await waitForAttr(page, 'trace-status', 'data-state', 'done', 30000);
      assert.equal(await exportJson(page), cli(['attribute', folder]).toString(), 'src= of a zip equals attribute on its folder');
    },
  },
];
