// Local only: every request stays on the page's origin, the Content-Security-Policy is in
// force, and using the page never trips it (no inline script or style anywhere). Code that
// Playwright evaluates is exempt from the policy's eval rule, so eval is not probed here;
// the policy text (no 'unsafe-eval') is.
import { assert, byTestId, waitForAttr } from './assert.mjs';
import { open } from './trace_helpers.mjs';

const POLICY =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'";

/** Collect CSP violations from the first script on (the page's own, its workers' not). */
async function watchViolations(page) {
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__violations.push(`${e.violatedDirective} blocked ${e.blockedURI || '(inline)'}: ${e.sample}`);
    });
  });
}

/** Runs `download` and waits for the file it saves. */
async function download(page, testid) {
  const [file] = await Promise.all([page.waitForEvent('download'), byTestId(page, testid).click()]);
  assert.ok((await file.path()) !== null, `${testid} saved a file`);
}

export const tests = [
  {
    name: 'a whole session (both views, exports, hovers, tables) sends nothing off the origin and trips no CSP rule',
    async run({ page, context, baseUrl }) {
      const origin = new URL(baseUrl).origin;
      const requests = [];
      // The context sees the page's requests and its workers'.
      context.on('request', (r) => requests.push(r.url()));
      await watchViolations(page);
      await open(page, baseUrl);

      // Trace view: the example, a re-run, hovers, a selection, every export.
      await byTestId(page, 'load-example').click();
      await waitForAttr(page, 'trace-status', 'data-state', 'done', 30000);
      await byTestId(page, 'preset-select').selectOption('high');
      await waitForAttr(page, 'trace-status', 'data-runs', '2', 30000);
      const canvas = byTestId(page, 'timeline-canvas');
      const box = await canvas.boundingBox();
      await canvas.hover({ position: { x: box.width * 0.5, y: 60 } });
      await page.locator('[data-testid="attribution-row"]').first().click();
      await byTestId(page, 'interval-detail').waitFor();
      for (const id of ['export-json', 'export-csv', 'export-png']) await download(page, id);

      // Explore view: a sweep, a selection (bars), hover, zoom band, all configs, exports.
      await byTestId(page, 'view-explore').click();
      await page.waitForSelector('[data-testid="explore-summary"][data-elapsed-ms]', { timeout: 30000 });
      await page.locator('[data-testid="pareto-row"]').first().click();
      await byTestId(page, 'config-detail').waitFor();
      const scatter = byTestId(page, 'scatter-canvas');
      const s = await scatter.boundingBox();
      await scatter.hover({ position: { x: s.width * 0.3, y: s.height * 0.6 } });
      await page.mouse.down();
      await page.mouse.move(s.x + s.width * 0.5, s.y + s.height * 0.8, { steps: 4 });
      await page.mouse.up();
      await byTestId(page, 'show-all-configs').click();
      await page.locator('.all-table tbody tr[data-key]').first().waitFor();
      for (const id of ['explore-export-json', 'explore-export-csv', 'explore-export-png']) await download(page, id);
      await page.waitForTimeout(300);

      const offsite = requests.filter((u) => !(u.startsWith(`${origin}/`) || u.startsWith(`blob:${origin}/`) || u.startsWith('data:')));
      console.log(`        ${requests.length} requests, ${offsite.length} off the origin`);
      assert.ok(requests.length >= 8, `the page, its code and the example were requested (${requests.length})`);
      assert.ok(requests.some((u) => /worker(_simd)?_bg\.wasm$/.test(u)), "the workers' wasm is among the requests");
      assert.ok(requests.some((u) => u.includes('worker_loader.js')), "the workers' own requests are seen too");
      assert.deepEqual(offsite, [], 'no request leaves the origin');
      assert.deepEqual(await page.evaluate(() => window.__violations), [], 'no CSP violation');
    },
  },
  {
    name: 'the Content-Security-Policy is in force: an injected inline script and an inline style do not apply',
    async run({ page, baseUrl, expectConsoleErrors }) {
      expectConsoleErrors(/Content Security Policy/);
      await watchViolations(page);
      await open(page, baseUrl);
      const meta = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
      assert.equal(meta, POLICY);
      const outcome = await page.evaluate(async () => {
        window.__ran = false;
        const s = document.createElement('script');
        s.textContent = 'window.__ran = true;';
        document.head.appendChild(s);
        const styled = document.createElement('div');
        styled.setAttribute('style', 'width: 123px');
        document.body.appendChild(styled);
        // Violation reports arrive asynchronously: wait for them (not a fixed time).
        for (let i = 0; i < 500 && !window.__violations.some((v) => v.startsWith('script-src')); i += 1) {
          await new Promise((r) => setTimeout(r, 10));
        }
        return { ran: window.__ran, width: styled.getBoundingClientRect().width, violations: window.__violations };
      });
      assert.equal(outcome.ran, false, 'inline script blocked');
      assert.notEqual(outcome.width, 123, 'inline style attribute blocked');
      assert.ok(outcome.violations.some((v) => v.startsWith('script-src')), outcome.violations.join('; '));
      // Scripts, the stylesheet and preloads carry integrity hashes.
      const unhashed = await page.evaluate(() =>
        [...document.querySelectorAll('script[src], link[rel="stylesheet"], link[rel="modulepreload"], link[rel="preload"]')]
          .filter((e) => !e.integrity)
          .map((e) => e.outerHTML),
      );
      assert.deepEqual(unhashed, [], 'every script, stylesheet and preload has an integrity hash');
    },
  },
];
