// Nothing lost: switching views and back keeps the loaded traces, results, settings and
// the explore state; a failed load or a cancelled one keeps what was on screen.
import { assert, byTestId, waitForAttr } from './assert.mjs';
import { dropFiles, nextResult, open, runs } from './trace_helpers.mjs';

/** Start a run with `action` and wait for its result. */
async function nextRun(page, action) {
  const before = await runs(page);
  await action();
  await nextResult(page, before, 30000);
}

async function traceState(page) {
  const canvas = byTestId(page, 'timeline-canvas');
  return {
    count: await byTestId(page, 'attribution-count').innerText(),
    rows: await page.locator('[data-testid="attribution-row"]').count(),
    preset: await byTestId(page, 'preset-select').inputValue(),
    files: await byTestId(page, 'trace-status').getAttribute('data-files'),
    window: [await canvas.getAttribute('data-view-start-ns'), await canvas.getAttribute('data-view-end-ns')],
    selected: await page.locator('[data-testid="interval-detail"]').getAttribute('data-start-ns'),
  };
}

async function exploreState(page) {
  const detail = byTestId(page, 'config-detail');
  return {
    batch: await byTestId(page, 'batch-input').inputValue(),
    model: await byTestId(page, 'model-select').inputValue(),
    pareto: await byTestId(page, 'explore-summary').getAttribute('data-pareto'),
    selected: (await detail.count()) ? await detail.getAttribute('data-tp') : null,
  };
}

export const tests = [
  {
    name: 'switching views and back keeps the traces, results, settings, window, selection and explore state',
    async run({ page, baseUrl }) {
      await open(page, baseUrl);
      await nextRun(page, () => byTestId(page, 'load-example').click());
      await nextRun(page, () => byTestId(page, 'preset-select').selectOption('high'));
      await waitForAttr(page, 'trace-status', 'data-state', 'done');
      // Zoom in twice and select an interval.
      await byTestId(page, 'timeline-canvas').focus();
      await page.keyboard.press('w');
      await page.keyboard.press('w');
      await page.locator('[data-testid="attribution-row"]').nth(3).click();
      await byTestId(page, 'interval-detail').waitFor();
      await page.waitForFunction(() => {
        const t = document.querySelector('.results-table');
        return t && t.dataset.rows === document.querySelector('[data-testid="attribution-count"]').textContent;
      });
      await page.waitForTimeout(300);
      const trace = await traceState(page);
      assert.ok(Number(trace.count) > 0 && trace.rows === Number(trace.count), JSON.stringify(trace));
      assert.ok(trace.selected, 'an interval is selected');

      // The explore view: other settings and a selected configuration.
      await byTestId(page, 'view-explore').click();
      await page.waitForSelector('[data-testid="explore-summary"][data-elapsed-ms]', { timeout: 30000 });
      await byTestId(page, 'batch-input').fill('8');
      await byTestId(page, 'batch-input').press('Tab');
      await page.waitForFunction(() => document.querySelector('[data-testid="explore-status"]')?.dataset.state === 'done', null, { timeout: 30000 });
      await page.waitForTimeout(200);
      await page.locator('[data-testid="pareto-row"]').nth(1).click();
      await byTestId(page, 'config-detail').waitFor();
      const explore = await exploreState(page);
      assert.equal(explore.batch, '8');

      // Back and forth: nothing was lost, nothing was read or swept again.
      const runsBefore = await runs(page);
      await byTestId(page, 'view-trace').click();
      await byTestId(page, 'timeline-canvas').waitFor();
      await page.waitForTimeout(300);
      assert.deepEqual(await traceState(page), trace);
      assert.equal(await runs(page), runsBefore, 'no re-run');
      await byTestId(page, 'view-explore').click();
      await byTestId(page, 'config-detail').waitFor();
      assert.deepEqual(await exploreState(page), explore);
    },
  },
  {
    name: 'a load that fails keeps the results on screen and says why',
    async run({ page, baseUrl }) {
      await open(page, baseUrl);
      await nextRun(page, () => byTestId(page, 'load-example').click());
      const count = await byTestId(page, 'attribution-count').innerText();
      await page.waitForFunction((n) => document.querySelector('.results-table')?.dataset.rows === n, count);
      const rows = await page.locator('[data-testid="attribution-row"]').count();
      assert.equal(String(rows), count);
      await dropFiles(page, [['broken.json', '[{"schema_version": 4, ']]);
      await waitForAttr(page, 'trace-status', 'data-state', 'error');
      assert.match(await byTestId(page, 'trace-error').innerText(), /broken\.json/);
      // The earlier results are still there, intact.
      assert.equal(await byTestId(page, 'attribution-count').innerText(), count);
      assert.equal(await page.locator('[data-testid="attribution-row"]').count(), rows);
      assert.ok(await byTestId(page, 'timeline-canvas').isVisible());
    },
  },
];
