// A whole session by keyboard only (issue 20, point 2): load the example, zoom, list the
// keys, walk the intervals and select one on the timeline, switch views, walk the
// frontier on the scatter and select a configuration, zoom it, pin it, export. Nothing
// here clicks; every step checks what it changed, and that the focus ring shows.
import { assert, byTestId, waitForAttr } from './assert.mjs';
import { open } from './trace_helpers.mjs';

const focused = (page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid'));

/** Press Tab (Shift+Tab with `back`) until the element with `testid` has the focus. */
async function tabTo(page, testid, { back = false, max = 80 } = {}) {
  for (let i = 0; i < max; i += 1) {
    if ((await focused(page)) === testid) break;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  assert.equal(await focused(page), testid, `${back ? 'Shift+Tab' : 'Tab'} reaches ${testid}`);
  // The focus ring: :focus-visible draws an outline on whatever has the focus.
  const ring = await page.evaluate(() => {
    const s = getComputedStyle(document.activeElement);
    return { style: s.outlineStyle, width: parseFloat(s.outlineWidth) };
  });
  assert.ok(ring.style !== 'none' && ring.width >= 2, `${testid} shows a focus ring: ${JSON.stringify(ring)}`);
}

const attr = (page, testid, name) => byTestId(page, testid).getAttribute(name);

export const tests = [
  {
    name: 'keyboard only: a session through both views',
    async run({ page, baseUrl }) {
      await open(page, baseUrl);
      await tabTo(page, 'load-example');
      await page.keyboard.press('Enter');
      await waitForAttr(page, 'trace-status', 'data-state', 'done', 30000);
      await page.waitForSelector('[data-testid="timeline-canvas"][data-paint-ms]');

      // The timeline: W zooms, ? lists the keys, Esc closes the list, then resets.
      await tabTo(page, 'timeline-canvas');
      const start = () => attr(page, 'timeline-canvas', 'data-view-start-ns');
      const whole = await start();
      const viewStartIsNot = (v) => page.waitForFunction((x) => document.querySelector('[data-testid="timeline-canvas"]').dataset.viewStartNs !== x, v);
      const viewStartIs = (v) => page.waitForFunction((x) => document.querySelector('[data-testid="timeline-canvas"]').dataset.viewStartNs === x, v);
      await page.keyboard.press('w');
      await viewStartIsNot(whole);
      await page.keyboard.press('?');
      await byTestId(page, 'timeline-key-help').waitFor();
      assert.match(await byTestId(page, 'timeline-key-help').innerText(), /Enter\s+select that interval/);
      await page.keyboard.press('Escape');
      await byTestId(page, 'timeline-key-help').waitFor({ state: 'detached' });
      assert.notEqual(await start(), whole, 'Esc closed the list only');
      await page.keyboard.press('Escape');
      await viewStartIs(whole);

      // → puts the cursor on the first interval (read out), Enter selects it.
      await page.keyboard.press('ArrowRight');
      const cursor = byTestId(page, 'timeline-cursor');
      await page.waitForFunction(() => /^rank \d+ /.test(document.querySelector('[data-testid="timeline-cursor"]').textContent));
      const first = page.locator('[data-testid="attribution-row"]').first();
      const earliest = await page.evaluate(() => {
        const rows = [...document.querySelectorAll('[data-testid="attribution-row"]')];
        return rows.map((r) => BigInt(r.dataset.startNs)).reduce((a, b) => (b < a ? b : a)).toString();
      });
      assert.ok(await first.count());
      await page.keyboard.press('Enter');
      await byTestId(page, 'interval-detail').waitFor();
      assert.equal(await attr(page, 'interval-detail', 'data-start-ns'), earliest, 'the earliest interval selected');
      const rank = await attr(page, 'interval-detail', 'data-rank');
      assert.match(await cursor.textContent(), new RegExp(`^rank ${rank} `));
      // ↓ moves to another rank's interval; Enter selects that one; Enter again zooms to it.
      await page.keyboard.press('ArrowDown');
      await page.waitForFunction((r) => !document.querySelector('[data-testid="timeline-cursor"]').textContent.startsWith(`rank ${r} `), rank);
      await page.keyboard.press('Enter');
      await page.waitForFunction((r) => document.querySelector('[data-testid="interval-detail"]')?.dataset.rank !== r, rank);
      await page.keyboard.press('Enter');
      await viewStartIsNot(whole);
      const [s, e] = [BigInt(await attr(page, 'timeline-canvas', 'data-view-start-ns')), BigInt(await attr(page, 'timeline-canvas', 'data-view-end-ns'))];
      const selStart = BigInt(await attr(page, 'interval-detail', 'data-start-ns'));
      assert.ok(s <= selStart && selStart <= e, 'zoomed to the selected interval');
      await page.keyboard.press('Escape');

      // Back up the page to the view switch, and on to the explorer.
      await tabTo(page, 'view-trace', { back: true, max: 120 });
      await page.keyboard.press('ArrowRight');
      await waitForAttr(page, 'view-explore', 'aria-selected', 'true');
      await waitForAttr(page, 'explore-status', 'data-state', 'done', 30000);
      await page.waitForSelector('[data-testid="scatter-canvas"][data-paint-ms]');

      // The scatter: → walks the frontier from its fewest PEs, Enter selects; → and Enter
      // again select the next one along it.
      const KNOBS = ['cp', 'tp', 'pp', 'dp', 'kv', 'ffn', 'tpp', 'cpp', 'ring'];
      const selected = async () => {
        const d = byTestId(page, 'config-detail');
        const knobs = (await Promise.all(KNOBS.map((k) => d.getAttribute(`data-${k}`)))).join('.');
        return { knobs, pes: Number(await d.getAttribute('data-pes')), latency: Number(await d.getAttribute('data-latency-ns')) };
      };
      const frontier = await page.evaluate((knobs) => [...document.querySelectorAll('[data-testid="pareto-row"]')].map((r) => ({
        knobs: knobs.map((k) => r.getAttribute(`data-${k}`)).join('.'),
        pes: Number(r.dataset.pes),
      })), KNOBS);
      assert.ok(frontier.length > 2, `${frontier.length} frontier configs`);
      await tabTo(page, 'scatter-canvas');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('Enter');
      await byTestId(page, 'config-detail').waitFor();
      const a = await selected();
      assert.ok(frontier.some((f) => f.knobs === a.knobs), `${a.knobs} is on the frontier`);
      assert.equal(a.pes, Math.min(...frontier.map((f) => f.pes)), 'the walk starts at the fewest PEs');
      await byTestId(page, 'scatter-canvas').focus();
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('Enter');
      await page.waitForFunction((k) => {
        const d = document.querySelector('[data-testid="config-detail"]');
        return d && ['cp', 'tp', 'pp', 'dp', 'kv', 'ffn', 'tpp', 'cpp', 'ring'].map((n) => d.getAttribute(`data-${n}`)).join('.') !== k;
      }, a.knobs);
      const b = await selected();
      assert.ok(frontier.some((f) => f.knobs === b.knobs), `${b.knobs} is on the frontier`);
      assert.ok(b.pes > a.pes || (b.pes === a.pes && b.latency >= a.latency), 'the next one along the frontier');
      // + zooms (Reset zoom turns on), Esc resets.
      const reset = byTestId(page, 'scatter-reset-zoom');
      assert.equal(await reset.isDisabled(), true);
      await byTestId(page, 'scatter-canvas').focus();
      await page.keyboard.type('+');
      await page.waitForFunction(() => !document.querySelector('[data-testid="scatter-reset-zoom"]').disabled);
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => document.querySelector('[data-testid="scatter-reset-zoom"]').disabled);

      // Pin it, then export the results as JSON, by Tab and Enter.
      await tabTo(page, 'pin-config');
      await page.keyboard.press('Enter');
      await page.waitForSelector('[data-testid="pinned-compare"] .compare-item');
      await tabTo(page, 'explore-export-json', { back: true, max: 200 });
      const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
      assert.match(download.suggestedFilename(), /\.json$/);
    },
  },
];
