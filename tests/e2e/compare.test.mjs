// Comparing two runs in the page (beyond stormlog): run B from its card (picker or a
// drop onto it), the per-rank table and its verdict equal `shardscope compare`, exports
// byte for byte, each run keeps its own settings, the permalink carries run B, and a
// bad run B never costs run A's results.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { assert, byTestId, cli, ROOT } from './assert.mjs';
import { nextResult, open, runs } from './trace_helpers.mjs';

const EDGES = path.join(ROOT, 'tests/fixtures/attribution_edges/traces');
const PERFECT = path.join(EDGES, 'clocks_perfect.json');
const SKEWED = path.join(EDGES, 'clocks_skewed.json');

const runsB = async (page) => Number(await byTestId(page, 'compare-card').getAttribute('data-runs'));

/** Wait for run B's next result after `before`. */
async function nextB(page, before) {
  await page.waitForFunction((n) => {
    const card = document.querySelector('[data-testid="compare-card"]');
    return Number(card?.dataset.runs) > n && card.dataset.state === 'done';
  }, before, { timeout: 20000 });
}

async function pickA(page, file) {
  const before = await runs(page);
  await byTestId(page, 'trace-file-input').setInputFiles(file);
  await nextResult(page, before);
}

async function pickB(page, file) {
  const before = await runsB(page);
  await byTestId(page, 'compare-b-input').setInputFiles(file);
  await nextB(page, before);
}

const rowsOf = (page) => byTestId(page, 'compare-row').evaluateAll((trs) => trs.map((tr) => [
  tr.getAttribute('data-rank'), tr.getAttribute('data-change')]));

async function downloads(page, aligned) {
  const out = {};
  for (const format of ['json', 'csv']) {
    const [download] = await Promise.all([
      page.waitForEvent('download'), byTestId(page, `compare-export-${format}`).click()]);
    const suffix = aligned ? '-aligned-clocks' : '';
    assert.equal(download.suggestedFilename(), `shardscope-compare${suffix}.${format}`);
    out[format] = readFileSync(await download.path()).toString();
  }
  return out;
}

export const tests = [
  {
    name: 'compare: run B from its card; table, verdict and exports equal shardscope compare; each run keeps its settings; the link carries B',
    async run({ page, baseUrl }) {
      await open(page, baseUrl);
      await pickA(page, PERFECT);
      assert.equal(await byTestId(page, 'compare-table').count(), 0, 'no table before run B');
      await pickB(page, SKEWED);
      const want = JSON.parse(cli(['compare', '--a', PERFECT, '--b', SKEWED]).toString());
      assert.deepEqual(await rowsOf(page), want.ranks.map((r) => [String(r.rank), r.change]));
      assert.equal(await byTestId(page, 'compare-verdict').innerText(), want.verdict);
      assert.match(want.verdict, /^B has 100 % fewer confident spikes \(12 → 0\)/);
      // The timeline draws run B's lane under each of run A's, lined up at the starts
      // (rank 2's clock is 250 ms behind in run B) or at a chosen collective.
      const lanes = (key) => page.evaluate((k) => document.querySelector('[data-testid="timeline-canvas"]').dataset[k], key);
      await page.waitForFunction(() => document.querySelector('[data-testid="timeline-canvas"]').dataset.lanesPerRank === '2');
      const shift = Number(await lanes('bShiftNs'));
      assert.ok(Math.abs(shift - 250e6) <= 10e3, `B's lanes shifted by ${shift} ns`);
      // Hovering run B's lane of rank 1 (the fourth lane) shows run B's own interval there.
      const box = await byTestId(page, 'timeline-canvas').boundingBox();
      const laneY = box.y + 22 + 3.5 * ((box.height - 28) / 8);
      let seen = '';
      for (let x = box.x + 70; x < box.x + box.width - 70 && !/suspect/.test(seen); x += 6) {
        await page.mouse.move(x, laneY);
        seen = await page.locator('.timeline-tooltip').innerText().catch(() => '');
      }
      assert.match(seen, /^run B\nrank 1 · /, seen);
      assert.match(seen, /suspect/, 'B\'s rank 1 intervals are suspect');
      await page.mouse.move(box.x + 5, box.y + 5);
      await byTestId(page, 'compare-axis').selectOption('collective');
      await page.waitForFunction(() => document.querySelector('[data-testid="timeline-canvas"]').dataset.bShiftNs === '0');
      await byTestId(page, 'compare-axis-collective').fill('3');
      await byTestId(page, 'compare-axis-collective').press('Tab');
      await page.waitForFunction(() => location.hash.includes('cmp=coll:2'));
      assert.equal(await lanes('bShiftNs'), '0', "rank 0's clock is the same in both runs");
      let got = await downloads(page, false);
      assert.equal(got.json, cli(['compare', '--a', PERFECT, '--b', SKEWED, '--format', 'json']).toString());
      assert.equal(got.csv, cli(['compare', '--a', PERFECT, '--b', SKEWED, '--format', 'csv']).toString());

      // Sorting by a change keeps every row; by rank descending reverses them.
      await page.locator('[data-testid="compare-table"] button[data-sort="rank"]').click();
      assert.deepEqual((await rowsOf(page)).map((r) => r[0]), ['3', '2', '1', '0']);

      // Run B's own settings: aligned clocks for B only leave A's settings alone.
      await page.locator('[data-testid="settings-run"][data-run="B"]').click();
      let before = await runsB(page);
      await byTestId(page, 'compare-align-attribute-toggle').check();
      await nextB(page, before);
      await page.locator('[data-testid="settings-run"][data-run="A"]').click();
      assert.equal(await byTestId(page, 'compare-align-attribute-toggle').count(), 0);
      assert.equal(await byTestId(page, 'align-attribute-toggle').isChecked(), false, "A's clocks stay raw");
      // Both on aligned clocks: the skewed run is the perfect one.
      before = await runs(page);
      await byTestId(page, 'align-attribute-toggle').check();
      await nextResult(page, before);
      const aligned = JSON.parse(cli(['compare', '--a', PERFECT, '--b', SKEWED, '--align-clocks']).toString());
      assert.equal(await byTestId(page, 'compare-verdict').innerText(), aligned.verdict);
      assert.equal(aligned.verdict, 'B has as many confident spikes as A (12); peak gaps unchanged');
      assert.deepEqual((await rowsOf(page)).map((r) => r[1]), ['same', 'same', 'same', 'same']);
      got = await downloads(page, true);
      assert.equal(got.json, cli(['compare', '--a', PERFECT, '--b', SKEWED, '--align-clocks', '--format', 'json']).toString());
      await page.waitForFunction(() => location.hash.includes('b.files=clocks_skewed.json') && location.hash.includes('b.clocks=aligned'));

      // The link asks for both runs' files in a fresh page, B's settings already set.
      const href = await byTestId(page, 'permalink').getAttribute('href');
      await page.goto('about:blank');
      await open(page, new URL(href).origin + new URL(href).pathname, new URL(href).hash);
      await pickA(page, PERFECT);
      assert.match(await byTestId(page, 'compare-card').innerText(), /clocks_skewed\.json/);
      await pickB(page, SKEWED);
      assert.equal(await byTestId(page, 'compare-verdict').innerText(), aligned.verdict);

      // Removing run B removes the table; run A stays.
      await byTestId(page, 'compare-remove').click();
      assert.equal(await byTestId(page, 'compare-table').count(), 0);
      assert.ok((await runs(page)) >= 1);
      await page.waitForFunction(() => document.querySelector('[data-testid="timeline-canvas"]').dataset.lanesPerRank === '1');
    },
  },
  {
    name: 'compare: a drop onto the card loads run B; a bad run B is reported on the card and run A stays',
    async run({ page, baseUrl }) {
      await open(page, baseUrl);
      await pickA(page, PERFECT);
      const runsA = await runs(page);
      const drop = async (name, text) => page.evaluate(([n, t]) => {
        const dt = new DataTransfer();
        dt.items.add(new File([t], n, { type: 'application/json' }));
        const card = document.querySelector('[data-testid="compare-card"] p');
        for (const type of ['dragenter', 'dragover', 'drop']) {
          card.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
        }
      }, [name, text]);
      let before = await runsB(page);
      await drop('broken.json', '[{"schema_version": 4,');
      await byTestId(page, 'compare-error').first().waitFor();
      assert.match(await byTestId(page, 'compare-error').first().innerText(), /broken\.json/);
      assert.equal(await runs(page), runsA, 'run A was not touched');
      assert.equal(await byTestId(page, 'trace-error').count(), 0);
      assert.equal(await byTestId(page, 'compare-table').count(), 0);
      before = await runsB(page);
      await drop('clocks_skewed.json', readFileSync(SKEWED, 'utf8'));
      await nextB(page, before);
      assert.equal(await byTestId(page, 'compare-row').count(), 4);
      assert.equal(await runs(page), runsA, 'the drop went to run B');
      assert.match(await byTestId(page, 'compare-status').innerText(), /Run B: 1 file .* 4 ranks · 12 intervals/);
    },
  },
];
