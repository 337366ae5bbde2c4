// Shared by the trace-view browser tests: fixtures, drops, row comparison.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { assert, byTestId, ROOT, waitForAttr } from './assert.mjs';

export const FIXTURES = path.join(ROOT, 'tests/fixtures/attribution');

/** stormlog 0.4.3's own answer for a fixture case and preset. */
export function expected(name, preset = 'medium') {
  return JSON.parse(readFileSync(path.join(FIXTURES, 'expected', `${name}.${preset}.json`), 'utf8'));
}

/** Drop files (name → text) on the drop zone, as a browser drag and drop does. */
export async function dropFiles(page, files) {
  await page.evaluate((entries) => {
    const dt = new DataTransfer();
    for (const [name, text] of entries) dt.items.add(new File([text], name, { type: 'application/json' }));
    const zone = document.querySelector('[data-testid="trace-drop-zone"]');
    for (const type of ['dragenter', 'dragover', 'drop']) {
      zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    }
  }, files);
}

/** The attribution rows as shown, compared with stormlog's output value by value. */
export async function assertRowsMatch(page, want) {
  await page.waitForSelector('[data-testid="attribution-count"]');
  assert.equal(await byTestId(page, 'attribution-count').innerText(), String(want.length));
  // Big tables fill in chunks, one per frame: wait for the last row.
  if (want.length > 0) {
    await page.waitForFunction((n) => document.querySelector('.results-table')?.dataset.rows === String(n), want.length);
  }
  const rows = await page.$$eval('[data-testid="attribution-row"]', (trs) => trs.map((tr) => ({
    rank: tr.dataset.rank,
    start: tr.dataset.startNs,
    end: tr.dataset.endNs,
    classification: tr.dataset.classification,
    confidence: tr.dataset.confidence,
  })));
  assert.equal(rows.length, want.length);
  // The table's order is the user's choice: compare in (rank, start) order.
  const key = (rank, start) => [BigInt(rank), BigInt(start)];
  const cmp = ([a1, a2], [b1, b2]) => (a1 < b1 ? -1 : a1 > b1 ? 1 : a2 < b2 ? -1 : a2 > b2 ? 1 : 0);
  rows.sort((a, b) => cmp(key(a.rank, a.start), key(b.rank, b.start)));
  want = [...want].sort((a, b) => cmp(key(a.rank, a.interval_start_ns_text), key(b.rank, b.interval_start_ns_text)));
  // Timestamps exceed 2^53: compare their decimal text, taken from the raw JSON.
  want.forEach((w, i) => {
    assert.equal(rows[i].rank, String(w.rank), `row ${i} rank`);
    assert.equal(BigInt(rows[i].start), BigInt(w.interval_start_ns_text), `row ${i} start`);
    assert.equal(BigInt(rows[i].end), BigInt(w.interval_end_ns_text), `row ${i} end`);
    assert.equal(rows[i].classification, w.classification, `row ${i} classification`);
    assert.equal(Number(rows[i].confidence), w.confidence, `row ${i} confidence`);
  });
}

/** Rows of a JSON results text, with the exact decimal text of their timestamps. */
export function rowsWithText(text) {
  const starts = [...text.matchAll(/"interval_start_ns":\s*(\d+)/g)].map((m) => m[1]);
  const ends = [...text.matchAll(/"interval_end_ns":\s*(\d+)/g)].map((m) => m[1]);
  return JSON.parse(text).map((row, i) => ({ ...row, interval_start_ns_text: starts[i], interval_end_ns_text: ends[i] }));
}

/** stormlog's expected rows for a case and preset (or `preset.label` for extra runs). */
export function expectedRows(name, preset = 'medium') {
  return rowsWithText(readFileSync(path.join(FIXTURES, 'expected', `${name}.${preset}.json`), 'utf8'));
}

export async function open(page, baseUrl, fragment = '') {
  const response = await page.goto(`${baseUrl}${fragment}`);
  assert.equal(response.status(), 200);
  await waitForAttr(page, 'worker-status', 'data-state', 'ready');
}

/** How many results the trace view has shown so far. */
export const runs = async (page) => Number(await byTestId(page, 'trace-status').getAttribute('data-runs'));

/** Wait for the next result after `before` results, and for it to be shown. */
export async function nextResult(page, before, timeout = 20000) {
  await page.waitForFunction(
    (n) => {
      const s = document.querySelector('[data-testid="trace-status"]');
      return Number(s?.dataset.runs) > n && s.dataset.state === 'done';
    },
    before,
    { timeout },
  );
}
