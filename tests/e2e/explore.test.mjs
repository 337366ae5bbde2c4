// The explore view end to end: the page's frontier equals `shardscope explore` for
// several settings, settings changes re-run, permalinks (fresh profile, garbage),
// exports, the scatter's pixels and the page's responsiveness during sweeps.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { assert, assertNoGrossLongTask, byTestId, cli, GUARD, waitForAttr, watchLongTasks } from './assert.mjs';

const runs = async (page) => Number(await byTestId(page, 'explore-status').getAttribute('data-runs'));
const batchRuns = async (page) => Number(await byTestId(page, 'batch-view').getAttribute('data-runs'));

async function openExplore(page, baseUrl, fragment = '#v=1&view=explore') {
  // A new document each time (a fragment change alone is no navigation).
  await page.goto('about:blank');
  const response = await page.goto(`${baseUrl}${fragment}`);
  assert.equal(response.status(), 200);
  await waitForAttr(page, 'explore-status', 'data-state', 'done');
}

/** Wait for a sweep newer than `before` to be shown. */
async function nextSweep(page, before) {
  await page.waitForFunction(
    (n) => {
      const s = document.querySelector('[data-testid="explore-status"]');
      return Number(s?.dataset.runs) > n && s.dataset.state === 'done';
    },
    before,
    { timeout: 20000 },
  );
}

function cliReport(args) {
  return JSON.parse(cli(['explore', ...args, '--format', 'json']).toString());
}

/** Every pareto-row attribute equals the CLI's frontier, in the CLI's order. */
async function assertFrontier(page, args) {
  const want = cliReport(args);
  const summary = byTestId(page, 'explore-summary');
  assert.equal(await summary.getAttribute('data-enumerated'), String(want.total_enumerated));
  assert.equal(await summary.getAttribute('data-feasible'), String(want.total_feasible));
  assert.equal(await summary.getAttribute('data-pareto'), String(want.pareto.length));
  const rows = await page.$$eval('[data-testid="pareto-row"]', (trs) => trs.map((tr) => ({ ...tr.dataset })));
  assert.equal(rows.length, want.pareto.length, 'one pareto-row per frontier config');
  want.pareto.forEach((c, i) => {
    const r = rows[i];
    for (const [attr, field] of [['cp', 'cp'], ['tp', 'tp'], ['pp', 'pp'], ['dp', 'dp'], ['kv', 'kv_shard_mode'],
      ['ffn', 'ffn_shard_scope'], ['tpp', 'tp_placement'], ['cpp', 'cp_placement'], ['ring', 'cp_ring_variant'], ['pes', 'pes_used']]) {
      assert.equal(r[attr], String(c[field]), `row ${i} ${attr}`);
    }
    assert.equal(Number(r.latencyNs), c.total_latency_ns, `row ${i} latency`);
    assert.equal(Number(r.efficiency), c.efficiency_score, `row ${i} efficiency`);
    assert.ok(!/e/i.test(r.latencyNs) && !/e/i.test(r.efficiency), 'plain decimals');
  });
  return want;
}

export const tests = [
  {
    name: 'the default sweep equals shardscope explore (within the sweep-time guard) and the scatter is drawn',
    async run({ page, baseUrl }) {
      await openExplore(page, baseUrl);
      await assertFrontier(page, []);
      // The eight configs at 5.480 ms that differ only in kv, ffn and placement are one
      // group: a ×8 badge listing them on the first row, the seven others marked tied to it.
      const first = byTestId(page, 'pareto-row').first();
      assert.equal(await first.getAttribute('data-ties'), '8');
      assert.equal((await first.locator('.ties-badge').textContent()).trim(), '×8');
      const listed = (await first.locator('.ties-badge').getAttribute('title')).split('\n').slice(1);
      const firstKey = await first.getAttribute('data-key');
      const tied = await page.locator(`[data-testid="pareto-row"][data-tied-to="${firstKey}"]`).evaluateAll((rs) => rs.map((r) => r.dataset.key));
      assert.deepEqual(listed, [firstKey, ...tied], 'the badge lists the group, its first row first');
      assert.equal(tied.length, 7);
      const elapsed = Number(await byTestId(page, 'explore-summary').getAttribute('data-elapsed-ms'));
      console.log(`        default sweep: ${elapsed} ms in the worker (guard ${GUARD.sweepMs} ms; the 100 ms goal is make bench-web's)`);
      assert.ok(elapsed > 0, 'the sweep time is reported');
      assert.ok(elapsed < GUARD.sweepMs, `sweep took ${elapsed} ms, over the ${GUARD.sweepMs} ms regression guard`);
      const canvas = byTestId(page, 'scatter-canvas');
      await page.waitForFunction(() => document.querySelector('[data-testid="scatter-canvas"]').dataset.paintMs);
      const pixels = await canvas.evaluate((c) => {
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        const colours = new Set();
        for (let i = 0; i < d.length; i += 4 * 5) colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
        return { colours: colours.size, width: c.width, css: c.getBoundingClientRect().width };
      });
      assert.ok(pixels.colours > 20, `${pixels.colours} colours`);
      assert.equal(pixels.width, Math.round(pixels.css * (await page.evaluate(() => devicePixelRatio))));
      console.log(`        scatter paint: ${await canvas.getAttribute('data-paint-ms')} ms`);
    },
  },
  {
    name: 'settings changed through the inputs re-run the sweep: an MoE model with ep 8, then prefill',
    async run({ page, baseUrl }) {
      await openExplore(page, baseUrl);
      await watchLongTasks(page);
      let before = await runs(page);
      await byTestId(page, 'model-select').selectOption('deepseek-v3');
      await byTestId(page, 'ep-input').fill('8');
      await byTestId(page, 'ep-input').press('Tab');
      await byTestId(page, 'batch-input').fill('64');
      await byTestId(page, 'batch-input').press('Tab');
      await nextSweep(page, before);
      await page.waitForTimeout(250);
      await assertFrontier(page, ['--model', 'deepseek-v3', '--ep', '8', '--batch', '64']);

      before = await runs(page);
      await byTestId(page, 'model-select').selectOption('llama3.1-8b');
      await byTestId(page, 'ep-input').fill('1');
      await byTestId(page, 'ep-input').press('Tab');
      await byTestId(page, 'batch-input').fill('1');
      await byTestId(page, 'batch-input').press('Tab');
      await byTestId(page, 'mode-select').selectOption('prefill');
      await byTestId(page, 's-kv-input').fill('4096');
      await byTestId(page, 's-kv-input').press('Tab');
      await nextSweep(page, before);
      await page.waitForTimeout(250);
      await assertFrontier(page, ['--model', 'llama3.1-8b', '--mode', 'prefill', '--s-kv', '4096']);
      await assertNoGrossLongTask(page, 'sweeps');
    },
  },
  {
    name: 'a bad input is explained beside it and never sweeps; SLAs filter before the Pareto step',
    async run({ page, baseUrl }) {
      await openExplore(page, baseUrl);
      const unset = byTestId(page, 'explore-summary').locator('.stat', { hasText: 'no objective set' });
      assert.equal(await unset.locator('.stat-value').innerText(), '–', 'without an SLA no count is claimed');
      const before = await runs(page);
      await byTestId(page, 'batch-input').fill('0');
      await byTestId(page, 'batch-input').press('Tab');
      await page.waitForFunction(() => document.querySelector('#batch-input-error')?.textContent.length > 0);
      assert.equal(await page.locator('#batch-input-error').innerText(), '--batch (0) must be between 1 and 16777216');
      await page.waitForTimeout(300);
      assert.equal(await runs(page), before, 'no sweep');
      await byTestId(page, 'batch-input').fill('1');
      await byTestId(page, 'sla-tpot-input').fill('6');
      await byTestId(page, 'sla-tpot-input').press('Tab');
      await nextSweep(page, before);
      await page.waitForTimeout(250);
      const want = await assertFrontier(page, ['--sla-tpot-ms', '6']);
      assert.ok(Number.isInteger(want.total_within_sla) && want.total_within_sla < want.total_feasible, 'the objective leaves configs out');
      const within = await byTestId(page, 'explore-summary').locator('.stat', { hasText: 'within the objectives' }).locator('.stat-value').innerText();
      assert.equal(within, String(want.total_within_sla));
    },
  },
  {
    name: 'selecting a config explains it; a permalink restores settings, selection and pins in a fresh profile',
    async run({ page, baseUrl, freshPage }) {
      await openExplore(page, baseUrl, '#v=1&view=explore&model=mixtral-8x7b&batch=8');
      await assertFrontier(page, ['--model', 'mixtral-8x7b', '--batch', '8']);
      const row = byTestId(page, 'pareto-row').nth(1);
      await row.click();
      const detail = byTestId(page, 'config-detail');
      await detail.waitFor();
      for (const a of ['data-cp', 'data-tp', 'data-pp', 'data-dp', 'data-kv', 'data-ffn', 'data-tpp', 'data-cpp', 'data-ring', 'data-latency-ns', 'data-pes', 'data-efficiency']) {
        assert.equal(await detail.getAttribute(a), await row.getAttribute(a), a);
      }
      assert.match(await detail.innerText(), /Bottleneck/);
      await byTestId(page, 'pin-config').click();
      await byTestId(page, 'color-select').selectOption('tp');
      await page.waitForTimeout(400);
      const href = await byTestId(page, 'permalink').getAttribute('href');
      assert.match(href, /model=mixtral-8x7b/);
      assert.match(href, /cfg=/);
      assert.match(href, /pin=/);
      assert.match(href, /color=tp/);
      assert.ok(href.length < 2000);
      const key = await detail.getAttribute('data-key');

      const other = await freshPage();
      await other.goto(href);
      await waitForAttr(other, 'explore-status', 'data-state', 'done');
      assert.equal(await byTestId(other, 'model-select').inputValue(), 'mixtral-8x7b');
      assert.equal(await byTestId(other, 'batch-input').inputValue(), '8');
      assert.equal(await byTestId(other, 'color-select').inputValue(), 'tp');
      await assertFrontier(other, ['--model', 'mixtral-8x7b', '--batch', '8']);
      await byTestId(other, 'config-detail').waitFor();
      assert.equal(await byTestId(other, 'config-detail').getAttribute('data-key'), key);
      assert.match(await byTestId(other, 'pinned-compare').innerText(), new RegExp(key.replaceAll('.', '\\.').replaceAll('+', '\\+')));
      await other.waitForFunction(() => /memory per PE/.test(document.querySelector('[data-testid="pinned-compare"]').innerText));
      assert.equal(await byTestId(other, 'link-notice').count(), 0);
      await page.waitForTimeout(100);
    },
  },
  {
    name: 'the sensitivity and batch canvases are drawn; a batch sweep never grossly blocks the page and can be cancelled',
    async run({ page, baseUrl }) {
      await openExplore(page, baseUrl, '#v=1&view=explore&tpot=20');
      await byTestId(page, 'pareto-row').first().click();
      for (const id of ['sensitivity-canvas', 'batch-canvas']) {
        await page.waitForSelector(`[data-testid="${id}"][data-drawn]`, { timeout: 20000 });
        const colours = await byTestId(page, id).evaluate((c) => {
          const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          const set = new Set();
          for (let i = 0; i < d.length; i += 4 * 3) set.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
          return set.size;
        });
        assert.ok(colours > 10, `${id}: ${colours} colours`);
      }
      await waitForAttr(page, 'batch-view', 'data-state', 'done');
      await watchLongTasks(page);
      const t0 = Date.now();
      // Counted, not watched: "running" can be over before a poll from here sees it.
      const shown = await batchRuns(page);
      await byTestId(page, 'batch-run').click();
      await page.waitForFunction((n) => {
        const v = document.querySelector('[data-testid="batch-view"]');
        return Number(v.dataset.runs) > n && v.dataset.state === 'done';
      }, shown, { timeout: 30000 });
      console.log(`        batch sweep (B = 1…512): ${Date.now() - t0} ms in the page`);
      await page.waitForTimeout(300);
      await assertNoGrossLongTask(page, 'batch sweep');
      // Hover names a point; a click switches to its batch size and selects it.
      const canvas = byTestId(page, 'batch-canvas');
      const box = await canvas.boundingBox();
      await page.waitForFunction(() => document.querySelector('[data-testid="batch-canvas"]').dataset.probe);
      const found = (await canvas.getAttribute('data-probe')).split(',').map(Number);
      await page.mouse.move(box.x + found[0], box.y + found[1]);
      await page.locator('.batch-card .timeline-tooltip').waitFor();
      const tip = await page.locator('.batch-card .timeline-tooltip').innerText();
      const [, batch, key] = tip.match(/B = (\d+) · (\S+)/);
      const before = await runs(page);
      await page.mouse.click(box.x + found[0], box.y + found[1]);
      await nextSweep(page, before);
      assert.equal(await byTestId(page, 'batch-input').inputValue(), batch);
      await waitForAttr(page, 'config-detail', 'data-key', key);
      // Cancel: the running batch sweep stops at once; the last batch view stays. Started
      // and cancelled in the page, between two of its tasks: the worker's answer, which
      // comes in a task of its own, cannot finish the sweep first however busy the
      // machine is. Timed there too (a round trip from here would time the test's own
      // messages).
      await waitForAttr(page, 'batch-view', 'data-state', 'done');
      const batchesBefore = await batchRuns(page);
      const cancel = await page.evaluate(async () => {
        const view = document.querySelector('[data-testid="batch-view"]');
        document.querySelector('[data-testid="batch-run"]').click();
        // The page shows "running" in microtasks of this task (its effects).
        for (let i = 0; i < 10000 && view.dataset.state !== 'running'; i += 1) await Promise.resolve();
        const running = view.dataset.state === 'running';
        const t0 = performance.now();
        document.querySelector('[data-testid="batch-cancel"]').click();
        while (view.dataset.state !== 'done') {
          await new Promise((r) => setTimeout(r, 1));
          if (performance.now() - t0 > 5000) break;
        }
        return { running, ms: performance.now() - t0 };
      });
      assert.ok(cancel.running, 'the batch sweep was running when cancelled');
      assert.equal(await byTestId(page, 'batch-view').getAttribute('data-state'), 'done');
      assert.ok(cancel.ms < GUARD.cancelMs, `cancel took ${cancel.ms} ms, over the ${GUARD.cancelMs} ms regression guard`);
      await page.waitForTimeout(500);
      assert.equal(await batchRuns(page), batchesBefore, 'the cancelled sweep is never shown');
    },
  },
  {
    name: 'a custom model: edited fields equal the CLI with --model-json, travel in a short link, export and import',
    async run({ page, baseUrl, freshPage }) {
      await openExplore(page, baseUrl);
      // "custom…" in the model select opens the editor.
      await byTestId(page, 'model-select').selectOption('custom');
      await page.waitForFunction(() => document.querySelector('[data-testid="model-editor"]').open);
      let before = await runs(page);
      await byTestId(page, 'model-field-layers').fill('40');
      await byTestId(page, 'model-field-layers').press('Tab');
      await byTestId(page, 'model-field-name').fill('half-70b');
      await byTestId(page, 'model-field-name').press('Tab');
      await nextSweep(page, before);
      await page.waitForTimeout(250);
      assert.equal(await byTestId(page, 'model-select').inputValue(), 'custom');
      // The exported file is what --model-json reads; the frontier equals the CLI's with it.
      const [file] = await Promise.all([page.waitForEvent('download'), byTestId(page, 'model-export').click()]);
      assert.equal(file.suggestedFilename(), 'half-70b.json');
      const modelPath = await file.path();
      const model = JSON.parse(readFileSync(modelPath, 'utf8'));
      assert.equal(model.layers, 40);
      await assertFrontier(page, ['--model-json', modelPath]);
      // A bad field is explained beside it, named as the CLI names it.
      before = await runs(page);
      await byTestId(page, 'model-field-h_q').fill('0');
      await byTestId(page, 'model-field-h_q').press('Tab');
      await page.waitForFunction(() => document.querySelector('.custom-field.invalid .field-error')?.textContent.length > 0);
      assert.match(await page.locator('.custom-field.invalid .field-error').innerText(), /model\.h_q/);
      await byTestId(page, 'model-field-h_q').fill('64');
      await byTestId(page, 'model-field-h_q').press('Tab');
      await nextSweep(page, before);
      await page.waitForTimeout(400);
      const href = await byTestId(page, 'permalink').getAttribute('href');
      assert.match(href, /m\.layers=40/);
      assert.ok(href.length < 2000, `${href.length} characters`);

      const other = await freshPage();
      await other.goto(href);
      await waitForAttr(other, 'explore-status', 'data-state', 'done');
      await assertFrontier(other, ['--model-json', modelPath]);

      // Import: a file with the same fields gives the same sweep.
      await openExplore(page, baseUrl);
      before = await runs(page);
      await page.locator('[data-testid="model-editor"] summary').click();
      await byTestId(page, 'model-import').setInputFiles(modelPath);
      await nextSweep(page, before);
      await page.waitForTimeout(250);
      await assertFrontier(page, ['--model-json', modelPath]);
    },
  },
  {
    name: 'all 28,800 configurations in a virtualised table, in the CLI --all order; the search box finds one by baseline',
    async run({ page, baseUrl }) {
      await openExplore(page, baseUrl);
      await byTestId(page, 'show-all-configs').click();
      await page.waitForSelector('[data-testid="config-row"]');
      const inDom = await byTestId(page, 'config-row').count();
      assert.ok(inDom > 10 && inDom < 100, `${inDom} rows in the DOM`);
      const all = cliReport(['--all']).all;
      const firstKeys = await byTestId(page, 'config-row').evaluateAll((rows) => rows.slice(0, 5).map((r) => r.dataset.key));
      const key = (c) => `cp${c.cp}.tp${c.tp}.pp${c.pp}.dp${c.dp}.${c.kv_shard_mode}.${c.ffn_shard_scope}.${c.tp_placement}.${c.cp_placement}.${c.cp_ring_variant}`;
      assert.deepEqual(firstKeys, all.slice(0, 5).map(key));
      // Scroll to the end: the last rows are the CLI's last ones.
      await page.locator('.all-scroll').evaluate((el) => { el.scrollTop = el.scrollHeight; });
      await page.waitForFunction((n) => [...document.querySelectorAll('[data-testid="config-row"]')].some((r) => Number(r.dataset.rank) === n), all.length);
      const lastKey = await page.locator(`[data-testid="config-row"][data-rank="${all.length}"]`).getAttribute('data-key');
      assert.equal(lastKey, key(all[all.length - 1]));
      await byTestId(page, 'config-search').fill('cp=2,tp=4,pp=1,dp=1,kv=split,ffn=TP+CP,tpp=pe,cpp=pe,ring=qoml');
      await byTestId(page, 'config-search').press('Enter');
      await waitForAttr(page, 'config-detail', 'data-key', 'cp2.tp4.pp1.dp1.split.TP+CP.pe.pe.qoml');
      await page.waitForSelector('[data-testid="config-row"][aria-selected="true"]');
      await byTestId(page, 'config-search').fill('cp=3');
      await byTestId(page, 'config-search').press('Enter');
      await page.waitForFunction(() => document.querySelector('#config-search-error')?.textContent.length > 0);
    },
  },
  {
    name: 'scenarios: three kept settings equal shardscope explore --scenario, are drawn, toggled, removed and travel in a link',
    async run({ page, baseUrl, freshPage }) {
      await openExplore(page, baseUrl, '#v=1&view=explore&model=llama3.1-405b');
      const add = byTestId(page, 'scenario-add');
      const settle = async (n) => page.waitForFunction((count) => {
        const rows = [...document.querySelectorAll('[data-testid="scenario-row"]')];
        const summary = document.querySelector('[data-testid="scenario-summary"]');
        return rows.length === count && rows.every((r) => r.dataset.frontier)
          && Number(summary?.dataset.scenarios) === count;
      }, n, { timeout: 20000 });
      await add.click();
      let before = await runs(page);
      await byTestId(page, 'machine-select').selectOption('h100-hgx');
      await nextSweep(page, before);
      await add.click();
      before = await runs(page);
      await byTestId(page, 'machine-select').selectOption('tile-wafer');
      await byTestId(page, 'batch-input').fill('8');
      await byTestId(page, 'batch-input').press('Tab');
      await nextSweep(page, before);
      await add.click();
      await settle(3);
      const want = cliReport(['--model', 'llama3.1-405b', '--scenario', 'machine=h200-hgx',
        '--scenario', 'machine=h100-hgx', '--scenario', 'machine=tile-wafer,batch=8']);
      const rows = await page.$$eval('[data-testid="scenario-row"]', (li) => li.map((r) => ({ ...r.dataset })));
      assert.deepEqual(rows.map((r) => r.name), want.scenarios.map((s) => s.name));
      assert.deepEqual(rows.map((r) => Number(r.frontier)), want.scenarios.map((s) => s.report.pareto.length));
      const summary = byTestId(page, 'scenario-summary');
      const text = await summary.innerText();
      for (const line of want.comparison.summary) assert.ok(text.includes(line), `summary has: ${line}`);
      assert.match(text, /≤ 4096 PEs/);
      // The scatter shows each frontier in its colour: Okabe–Ito blue (#0072B2) for the first.
      await page.waitForTimeout(300);
      const blue = async () => page.$eval('[data-testid="scatter-canvas"]', (c) => {
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4) if (d[i] === 0x00 && d[i + 1] === 0x72 && d[i + 2] === 0xb2) n += 1;
        return n;
      });
      const shownBlue = await blue();
      assert.ok(shownBlue > 50, `blue pixels of the first scenario: ${shownBlue}`);
      // Its legend box hides it; the others stay.
      await page.getByLabel(`Show ${want.scenarios[0].name} on the scatter`).uncheck();
      await page.waitForTimeout(400);
      assert.equal(await byTestId(page, 'scenario-row').first().getAttribute('data-shown'), 'false');
      const hiddenBlue = await blue();
      assert.ok(hiddenBlue < shownBlue / 5, `blue pixels once hidden: ${hiddenBlue} (shown: ${shownBlue})`);
      // At most four.
      await add.click();
      await settle(4);
      assert.ok(await add.isDisabled(), 'no fifth scenario');
      // The link carries them; a fresh profile compares the same four.
      await page.waitForTimeout(300);
      const href = await byTestId(page, 'permalink').getAttribute('href');
      assert.equal((href.match(/&sc=/g) || []).length, 4, href);
      assert.ok(href.length < 2000, `${href.length} characters`);
      const other = await freshPage();
      await other.goto(href);
      await waitForAttr(other, 'explore-status', 'data-state', 'done');
      await other.waitForFunction(() => {
        const rows = [...document.querySelectorAll('[data-testid="scenario-row"]')];
        return rows.length === 4 && rows.every((r) => r.dataset.frontier);
      }, null, { timeout: 20000 });
      const again = await other.$$eval('[data-testid="scenario-row"]', (li) => li.map((r) => r.dataset.name));
      assert.deepEqual(again, [...rows.map((r) => r.name), `${rows[2].name} #2`]);
      // Removing one compares the rest.
      await page.getByLabel(`Remove scenario ${want.scenarios[1].name}`).click();
      await settle(3);
      const left = await page.$$eval('[data-testid="scenario-row"]', (li) => li.map((r) => r.dataset.name));
      assert.ok(!left.includes(want.scenarios[1].name), left.join(', '));
    },
  },
  {
    name: 'a selected config that ties lists the group; a click on a member selects it',
    async run({ page, baseUrl }) {
      await openExplore(page, baseUrl);
      const first = byTestId(page, 'pareto-row').first();
      const key = await first.getAttribute('data-key');
      await first.click();
      await waitForAttr(page, 'config-detail', 'data-key', key);
      const ties = byTestId(page, 'config-ties');
      assert.equal(await ties.getAttribute('data-ties'), '8');
      await ties.locator('summary').click();
      const listed = await ties.locator('li code').allInnerTexts();
      const tied = await page.locator(`[data-testid="pareto-row"][data-tied-to="${key}"]`).evaluateAll((rs) => rs.map((r) => r.dataset.key));
      assert.deepEqual(listed, tied);
      await ties.locator('li button').nth(2).click();
      await waitForAttr(page, 'config-detail', 'data-key', tied[2]);
      assert.equal(await byTestId(page, 'config-ties').getAttribute('data-ties'), '8');
      const again = await byTestId(page, 'config-ties').locator('li code').allTextContents();
      assert.ok(again.includes(key), `${key} in ${again.join(' ')}`);
    },
  },
  {
    name: 'the batch view\'s bold envelope is the 2-D frontier of shardscope explore --batch-sweep over every batch size',
    async run({ page, baseUrl }) {
      await openExplore(page, baseUrl);
      await waitForAttr(page, 'batch-view', 'data-state', 'done');
      const shown = (await byTestId(page, 'batch-view').getAttribute('data-envelope')).split(' ');
      const rep = JSON.parse(cli(['explore', '--batch-sweep', '1,2,4,8,16,32,64,128,256,512', '--format', 'json']).toString());
      const key = (c) => `cp${c.cp}.tp${c.tp}.pp${c.pp}.dp${c.dp}.${c.kv_shard_mode}.${c.ffn_shard_scope}.${c.tp_placement}.${c.cp_placement}.${c.cp_ring_variant}`;
      const points = rep.batches.flatMap((b) => b.pareto.map((c) => ({
        word: `${b.batch}:${key(c)}`, x: 1e9 / c.total_latency_ns, y: c.throughput_per_pe_tok_s,
      }))).filter((p) => p.x > 0 && p.y > 0 && Number.isFinite(p.x) && Number.isFinite(p.y));
      const beats = (q, p) => q.x >= p.x && q.y >= p.y && (q.x > p.x || q.y > p.y);
      const envelope = points.filter((p) => !points.some((q) => beats(q, p)));
      assert.deepEqual([...shown].sort(), envelope.map((p) => p.word).sort());
      // In order of tokens/s per user, and more than one batch size on it.
      const at = Object.fromEntries(points.map((p) => [p.word, p]));
      for (let i = 1; i < shown.length; i += 1) assert.ok(at[shown[i - 1]].x <= at[shown[i]].x, `${shown[i - 1]} before ${shown[i]}`);
      assert.ok(new Set(shown.map((w) => w.split(':')[0])).size > 1, shown.join(' '));
      console.log(`        envelope: ${shown.length} corners over ${new Set(shown.map((w) => w.split(':')[0])).size} batch sizes, of ${points.length} frontier points`);
    },
  },
  {
    name: 'predicted vs measured memory: the example trace\'s peak device memory per rank beside the selected config\'s prediction',
    async run({ page, baseUrl }) {
      await openExplore(page, baseUrl);
      await byTestId(page, 'pareto-row').first().click();
      await page.waitForSelector('[data-testid="config-detail"]');
      assert.equal(await byTestId(page, 'memory-measured').count(), 0);
      assert.match(await byTestId(page, 'config-detail').innerText(), /Load a trace in the trace view/);
      // Load the example in the trace view; the explorer's card follows.
      await byTestId(page, 'view-trace').click();
      const before = Number(await byTestId(page, 'trace-status').getAttribute('data-runs'));
      await byTestId(page, 'load-example').click();
      await page.waitForFunction((n) => {
        const s = document.querySelector('[data-testid="trace-status"]');
        return Number(s?.dataset.runs) > n && s.dataset.state === 'done';
      }, before, { timeout: 20000 });
      await byTestId(page, 'view-explore').click();
      const card = byTestId(page, 'memory-measured');
      await card.waitFor();
      // Each rank's largest device_used_bytes, from the file itself.
      const events = JSON.parse(gunzipSync(readFileSync('public/examples/example-16-ranks.json.gz')).toString());
      const peak = new Map();
      for (const e of events) {
        if (e.event_type === 'sample' && e.device_used_bytes != null) peak.set(e.rank, Math.max(peak.get(e.rank) ?? 0, e.device_used_bytes));
      }
      const peaks = [...peak.values()].sort((a, b) => a - b);
      const median = (peaks[peaks.length / 2 - 1] + peaks[peaks.length / 2]) / 2;
      assert.equal(await card.getAttribute('data-ranks'), String(peaks.length));
      assert.equal(Number(await card.getAttribute('data-min-bytes')), peaks[0]);
      assert.equal(Number(await card.getAttribute('data-max-bytes')), peaks[peaks.length - 1]);
      assert.equal(Number(await card.getAttribute('data-median-bytes')), median);
      const c = cliReport([]).pareto[0];
      const predicted = (c.weights_gb + c.kv_gb + c.transient_gb) * 1e9;
      assert.ok(Math.abs(Number(await card.getAttribute('data-predicted-bytes')) - predicted) < 1, 'predicted bytes');
      const pct = ((median - predicted) / predicted) * 100;
      assert.ok(Math.abs(Number(await card.getAttribute('data-diff-pct')) - pct) < 1e-9, `difference ${pct} %`);
      const text = await card.innerText();
      const gib = (b) => (b / 2 ** 30).toFixed(2);
      assert.ok(text.includes(`${gib(median)} GiB per rank (median; ${gib(peaks[0])}–${gib(peaks[peaks.length - 1])} GiB over 16 ranks)`), text);
      assert.match(text, /The trace has 16 ranks and this configuration uses 8 PEs/);
    },
  },
  {
    name: 'calibration: a measurement of the selected config refits the model, the frontier equals explore --calibrate, the link and exports carry it',
    async run({ page, baseUrl, freshPage }) {
      await openExplore(page, baseUrl);
      const first = byTestId(page, 'pareto-row').first();
      const key = await first.getAttribute('data-key');
      await first.click();
      await waitForAttr(page, 'config-detail', 'data-key', key);
      const predictedNs = Number(await byTestId(page, 'config-detail').getAttribute('data-latency-ns'));
      assert.equal(await byTestId(page, 'explore-summary').getAttribute('data-calibrated'), 'false');
      // A value that is not a number is refused beside the input; nothing is swept.
      const before = await runs(page);
      await byTestId(page, 'calibrate-input').fill('fast');
      await byTestId(page, 'calibrate-apply').click();
      await page.waitForSelector('.calibrate-form .problem');
      assert.match(await page.locator('.calibrate-form .problem').innerText(), /not a positive number/);
      assert.equal(await byTestId(page, 'calibration-summary').count(), 0);
      // Measured twice as slow as predicted: one common factor of 2.
      const measuredMs = String((predictedNs * 2) / 1e6);
      await byTestId(page, 'calibrate-input').fill(measuredMs);
      await byTestId(page, 'calibrate-input').press('Enter');
      await nextSweep(page, before);
      const card = byTestId(page, 'calibration-summary');
      await waitForAttr(page, 'calibration-summary', 'data-measurements', '1');
      await page.waitForFunction(() => document.querySelector('[data-testid="calibration-summary"]')?.dataset.errorAfterPct);
      const errBefore = Number(await card.getAttribute('data-error-before-pct'));
      const errAfter = Number(await card.getAttribute('data-error-after-pct'));
      // Off by a factor of two: the fit's error (the root mean square of the log ratios,
      // as a factor less one) is 100 %.
      assert.ok(Math.abs(errBefore - 100) < 1e-6, `error before ${errBefore}`);
      assert.ok(errAfter < 1e-6, `error after ${errAfter}`);
      assert.ok(Math.abs(Number(await card.getAttribute('data-scale-compute')) - 2) < 1e-6);
      assert.match(await card.innerText(), /calibrated to 1 measurement: compute, memory and network ×2\.000/);
      assert.equal(await byTestId(page, 'explore-summary').getAttribute('data-calibrated'), 'true');
      // The calibrated frontier is the CLI's with the same measurement.
      const measurement = `cfg=${key},latency_ms=${measuredMs},batch=1,s_kv=32768,mode=decode`;
      const want = await assertFrontier(page, ['--calibrate', measurement]);
      assert.equal(Number(await card.getAttribute('data-error-before-pct')), want.calibration.error_before_pct);
      assert.equal(Number(await card.getAttribute('data-error-after-pct')), want.calibration.error_after_pct);
      assert.ok(Math.abs(want.pareto[0].total_latency_ns - 2 * predictedNs) < 1e-3 * predictedNs);
      // The selected config's card shows the calibrated latency.
      await page.waitForFunction((ns) => Math.abs(Number(document.querySelector('[data-testid="config-detail"]').dataset.latencyNs) - ns) < ns * 1e-6,
        2 * predictedNs);
      // Exports are named and made with the calibration.
      const [json] = await Promise.all([page.waitForEvent('download'), byTestId(page, 'explore-export-json').click()]);
      assert.match(json.suggestedFilename(), /-calibrated\.json$/);
      assert.equal(readFileSync(await json.path(), 'utf8'), cli(['explore', '--calibrate', measurement, '--format', 'json']).toString());
      // The link carries the measurement: a fresh profile opens calibrated.
      await page.waitForTimeout(300);
      const href = await byTestId(page, 'permalink').getAttribute('href');
      assert.match(href, /&cal=/);
      const other = await freshPage();
      await other.goto(href);
      await waitForAttr(other, 'explore-status', 'data-state', 'done');
      await other.waitForFunction(() => document.querySelector('[data-testid="calibration-summary"]')?.dataset.errorAfterPct);
      assert.equal(Number(await byTestId(other, 'calibration-summary').getAttribute('data-error-after-pct')), want.calibration.error_after_pct);
      assert.equal(await byTestId(other, 'explore-summary').getAttribute('data-calibrated'), 'true');
      // Clearing it returns to the model as specified.
      const cleared = await runs(page);
      await byTestId(page, 'calibrate-clear').click();
      await nextSweep(page, cleared);
      assert.equal(await byTestId(page, 'calibration-summary').count(), 0);
      assert.equal(await byTestId(page, 'explore-summary').getAttribute('data-calibrated'), 'false');
      await assertFrontier(page, []);
    },
  },
  {
    name: 'garbage and truncated links open the explore view with defaults and one notice',
    async run({ page, baseUrl }) {
      for (const fragment of [
        '#v=1&view=explore&model=gpt-9&batch=-3&cfg=nonsense&pin=a,b',
        '#v=1&view=explore&model=llama3.1-70b&s_kv=327',
        '#v=1&view=explore&%E0%A4%A=1&mode=',
        '#v=7&view=explore',
      ]) {
        await openExplore(page, baseUrl, fragment);
        assert.equal(await byTestId(page, 'view-explore').getAttribute('aria-selected'), 'true', fragment);
        assert.ok(await byTestId(page, 'pareto-row').count() > 0, fragment);
        const notices = await byTestId(page, 'link-notice').count();
        assert.ok(notices <= 1, fragment);
        if (!fragment.includes('s_kv=327')) assert.equal(notices, 1, `notice for ${fragment}`);
      }
      // The last link holds nothing usable but the view: every setting is the default.
      assert.equal(await byTestId(page, 's-kv-input').inputValue(), '32768');
    },
  },
  {
    name: 'explore-export-json is byte for byte shardscope explore --format json (and --all with infeasible shown)',
    async run({ page, baseUrl }) {
      await openExplore(page, baseUrl, '#v=1&view=explore&model=qwen2.5-72b');
      const [json] = await Promise.all([page.waitForEvent('download'), byTestId(page, 'explore-export-json').click()]);
      assert.equal(readFileSync(await json.path(), 'utf8'), cli(['explore', '--model', 'qwen2.5-72b', '--format', 'json']).toString());
      const [csv] = await Promise.all([page.waitForEvent('download'), byTestId(page, 'explore-export-csv').click()]);
      assert.equal(readFileSync(await csv.path(), 'utf8'), cli(['explore', '--model', 'qwen2.5-72b', '--format', 'csv']).toString());
      await byTestId(page, 'infeasible-toggle').check();
      const [all] = await Promise.all([page.waitForEvent('download'), byTestId(page, 'explore-export-json').click()]);
      assert.equal(readFileSync(await all.path(), 'utf8'), cli(['explore', '--model', 'qwen2.5-72b', '--all', '--format', 'json']).toString());
      const [png] = await Promise.all([page.waitForEvent('download'), byTestId(page, 'explore-export-png').click()]);
      const bytes = readFileSync(await png.path());
      assert.equal(bytes.subarray(1, 4).toString(), 'PNG');
      assert.equal(bytes.readUInt32BE(16), await byTestId(page, 'scatter-canvas').evaluate((c) => c.width));
    },
  },
];
