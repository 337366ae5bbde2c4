// Accessibility (issue 20, point 1): axe-core 4.14 in every state of both views, in the
// light and the dark theme, reports no violation of impact serious or critical. axe-core is run
// through the DevTools protocol (page.evaluate), which the page's CSP does not govern.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { assert, byTestId, ROOT, waitForAttr } from './assert.mjs';
import { FIXTURES, open } from './trace_helpers.mjs';

const AXE = readFileSync(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');
const TRACES = path.join(FIXTURES, 'traces');

/** The serious and critical violations axe-core finds in the page as it is now. */
async function violations(page) {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
  });
}

async function clean(page, state) {
  assert.deepEqual(await violations(page), [], `axe-core in the state: ${state}`);
}

const axeTests = (scheme) => [
  {
    name: `axe-core, ${scheme} theme: the trace view empty, loaded, with a selection, an error, the clocks panel and a comparison`,
    async run({ page, baseUrl }) {
      await page.emulateMedia({ colorScheme: scheme });
      await open(page, baseUrl);
      assert.equal(await page.locator('html').getAttribute('data-theme'), scheme);
      await clean(page, 'empty trace view');
      await byTestId(page, 'load-example').click();
      await waitForAttr(page, 'trace-status', 'data-state', 'done', 30000);
      await byTestId(page, 'clock-panel').waitFor();
      await clean(page, 'the example loaded (timeline, table, clocks panel)');
      const label = () => byTestId(page, 'timeline-canvas').getAttribute('aria-label');
      const count = await byTestId(page, 'attribution-count').innerText();
      assert.match(await label(), new RegExp(`^Timeline of 16 ranks, ${count} intervals, 0\\.00–\\d+\\.\\d\\d s\\. W and S zoom`));
      await byTestId(page, 'attribution-row').nth(1).click();
      const row = byTestId(page, 'attribution-row').nth(1);
      assert.match(await label(), new RegExp(`; selected: rank ${await row.getAttribute('data-rank')} \\w+ \\d+\\.\\d\\d–\\d+\\.\\d\\d s\\.`));
      await clean(page, 'an interval selected');
      // Every class's badge on a selected row (contrast against the selection's colour).
      for (const cls of ['collective_confident', 'collective_likely', 'collective_suspect']) {
        const row = page.locator(`[data-testid="attribution-row"][data-classification="${cls}"]`).first();
        if (await row.count()) {
          await row.click();
          await clean(page, `a ${cls} row selected`);
        }
      }
      await byTestId(page, 'compare-b-input').setInputFiles(path.join(TRACES, 'sync_markers_type.json'));
      await byTestId(page, 'compare-table').waitFor({ timeout: 30000 });
      await clean(page, 'two runs compared');
      await byTestId(page, 'trace-file-input').setInputFiles([
        { name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('[{"oops": ') },
      ]);
      await byTestId(page, 'trace-error').first().waitFor();
      await clean(page, 'an error shown');
    },
  },
  {
    name: `axe-core, ${scheme} theme: the explore view by default, a config selected, the custom editor open, every configuration`,
    async run({ page, baseUrl }) {
      await page.emulateMedia({ colorScheme: scheme });
      await open(page, baseUrl, '#v=1&view=explore');
      await waitForAttr(page, 'explore-status', 'data-state', 'done', 30000);
      assert.equal(await page.locator('html').getAttribute('data-theme'), scheme);
      await clean(page, 'explore default');
      await byTestId(page, 'pareto-row').first().click();
      await byTestId(page, 'config-detail').waitFor();
      await clean(page, 'a configuration selected');
      await byTestId(page, 'model-select').selectOption('custom');
      await page.waitForFunction(() => document.querySelector('[data-testid="model-editor"]').open);
      await clean(page, 'the custom model editor open');
      await byTestId(page, 'show-all-configs').click();
      await page.waitForSelector('[data-testid="config-row"]');
      await clean(page, 'all configurations listed');
    },
  },
];

export const tests = [
  ...axeTests('light'),
  ...axeTests('dark'),
  {
    name: 'no horizontal scrolling at 390, 768, 1280 and 2560 px, in both views with results; settings in a drawer below 900 px',
    async run({ page, baseUrl }) {
      for (const width of [390, 768, 1280, 2560]) {
        await page.setViewportSize({ width, height: 844 });
        await page.goto('about:blank');
        await open(page, baseUrl);
        await byTestId(page, 'load-example').click();
        await waitForAttr(page, 'trace-status', 'data-state', 'done', 30000);
        await byTestId(page, 'attribution-row').first().waitFor();
        const sideways = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.equal(await sideways(), 0, `trace view at ${width} px scrolls sideways`);
        // Below ~900 px the settings wait in a drawer: the timeline follows the inputs and
        // the status, within the first screen and a half.
        const toggle = page.locator('[data-testid="settings-drawer-toggle"][aria-controls="trace-drawer"]');
        const preset = byTestId(page, 'preset-select');
        if (width < 900) {
          assert.equal(await preset.isVisible(), false, `settings hidden at ${width} px`);
          const top = await page.evaluate(() => document.querySelector('.timeline-card').getBoundingClientRect().top + scrollY);
          assert.ok(top < 844 * 1.5, `the timeline starts at ${top} px at ${width} px`);
          await toggle.click();
          assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
          await preset.waitFor();
          assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Close', 'the focus moves into the drawer');
          assert.equal(await sideways(), 0, `the open drawer at ${width} px scrolls sideways`);
          await page.keyboard.press('Escape');
          await preset.waitFor({ state: 'hidden' });
          assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-controls')), 'trace-drawer', 'and back to the button');
        } else {
          assert.equal(await toggle.isVisible(), false, `no drawer at ${width} px`);
          assert.equal(await preset.isVisible(), true, `settings in the sidebar at ${width} px`);
        }
        await page.goto('about:blank');
        await open(page, baseUrl, '#v=1&view=explore');
        await waitForAttr(page, 'explore-status', 'data-state', 'done', 30000);
        await byTestId(page, 'show-all-configs').click();
        await page.waitForSelector('[data-testid="config-row"]');
        assert.equal(await sideways(), 0, `explore view at ${width} px scrolls sideways`);
      }
    },
  },
];
