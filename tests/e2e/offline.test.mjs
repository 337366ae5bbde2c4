// Offline after one visit (sw.js precaches the build), installable (manifest, icons), and
// a new deploy taking over on the next visit without mixing builds.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assert, byTestId, cli, ROOT, serve, waitForAttr } from './assert.mjs';

/** Wait until this page is controlled by its service worker. */
async function controlled(page) {
  await page.waitForFunction(() => navigator.serviceWorker?.controller?.state === 'activated', null, { timeout: 30000 });
}

async function download(page, testid) {
  const [file] = await Promise.all([page.waitForEvent('download'), byTestId(page, testid).click()]);
  return readFileSync(await file.path(), 'utf8');
}

/** A copy of dist/ as a deploy: index.html marked with `mark`, sw.js written for it. */
function deploy(dir, mark) {
  cpSync(path.join(ROOT, 'dist'), dir, { recursive: true });
  const index = path.join(dir, 'index.html');
  writeFileSync(index, readFileSync(index, 'utf8').replace('<title>Shardscope</title>', `<title>Shardscope</title><meta name="deploy" content="${mark}">`));
  execFileSync('python3', [path.join(ROOT, 'scripts/build/offline.py'), dir]);
}

export const tests = [
  {
    name: 'after one visit the page works offline: reload, the example, both views and every export',
    async run({ page, context, baseUrl }) {
      await page.goto(baseUrl);
      await waitForAttr(page, 'worker-status', 'data-state', 'ready');
      await controlled(page);
      // The same policy as before: the service worker is a same-origin script.
      const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
      assert.match(csp, /worker-src 'self' blob:; connect-src 'self'/);
      // Installable: a manifest with 192 and 512 px icons that load.
      const manifest = await page.evaluate(async () => (await fetch(document.querySelector('link[rel=manifest]').href)).json());
      assert.deepEqual(manifest.icons.filter((i) => i.type === 'image/png').map((i) => i.sizes), ['192x192', '512x512']);
      await context.setOffline(true);
      try {
        await page.reload();
        await waitForAttr(page, 'worker-status', 'data-state', 'ready');
        for (const icon of ['icon-192.png', 'icon-512.png']) {
          assert.ok(await page.evaluate(async (u) => (await fetch(u)).ok, icon), `${icon} offline`);
        }
        await byTestId(page, 'load-example').click();
        await waitForAttr(page, 'trace-status', 'data-state', 'done', 30000);
        const json = await download(page, 'export-json');
        assert.ok(JSON.parse(json).length > 0, 'the example attributed offline');
        assert.match(await download(page, 'export-csv'), /^rank,/);
        assert.ok(JSON.parse(await download(page, 'export-perfetto')).traceEvents.length > 0);
        const png = async (testid) => {
          const [file] = await Promise.all([page.waitForEvent('download'), byTestId(page, testid).click()]);
          return readFileSync(await file.path()).subarray(1, 4).toString();
        };
        assert.equal(await png('export-png'), 'PNG');
        await page.locator('[role="tab"]', { hasText: 'Parallelism explorer' }).click();
        await waitForAttr(page, 'explore-status', 'data-state', 'done', 30000);
        const explored = JSON.parse(await download(page, 'explore-export-json'));
        const want = JSON.parse(cli(['explore', '--format', 'json']).toString());
        assert.equal(explored.pareto.length, want.pareto.length, 'the default sweep offline equals the CLI');
        assert.match(await download(page, 'explore-export-csv'), /,/);
        assert.equal(await png('explore-export-png'), 'PNG');
      } finally {
        await context.setOffline(false);
      }
    },
  },
  {
    name: 'a new deploy takes over on the next visit, never mixing builds; older caches are deleted',
    async run({ page, onCleanup }) {
      const dir = path.join(mkdtempSync(path.join(tmpdir(), 'deploy-')), 'site');
      deploy(dir, 'one');
      const server = await serve(dir);
      onCleanup(server.stop);
      const mark = () => page.getAttribute('meta[name="deploy"]', 'content');
      const builds = () => page.evaluate(async () => (await caches.keys()).filter((k) => k.startsWith('shardscope-build-')));
      await page.goto(server.url);
      await controlled(page);
      assert.equal(await mark(), 'one');
      assert.equal((await builds()).length, 1);
      // Deploy two: this visit is still build one (from its cache); two installs meanwhile
      // and the open page is told, with a reload.
      deploy(dir, 'two');
      await page.reload();
      await waitForAttr(page, 'worker-status', 'data-state', 'ready');
      assert.equal(await mark(), 'one', 'the visit during the update is one build throughout');
      await byTestId(page, 'update-notice').waitFor({ timeout: 30000 });
      await byTestId(page, 'update-notice').getByRole('button', { name: 'Reload' }).click();
      await page.waitForLoadState();
      await waitForAttr(page, 'worker-status', 'data-state', 'ready');
      assert.equal(await mark(), 'two', 'the next visit is the new build');
      assert.equal((await builds()).length, 2, 'the previous build kept for pages still open on it');
      // Deploy three: build one's cache goes.
      deploy(dir, 'three');
      await page.reload();
      await byTestId(page, 'update-notice').waitFor({ timeout: 30000 });
      await page.reload();
      await waitForAttr(page, 'worker-status', 'data-state', 'ready');
      assert.equal(await mark(), 'three');
      assert.equal((await builds()).length, 2);
      await byTestId(page, 'load-example').click();
      await waitForAttr(page, 'trace-status', 'data-state', 'done', 30000);
    },
  },
];
