// `make bench-web`: the browser's figures for issue 8, measured in Debian's headless
// Chromium on the built dist/ (not part of `make test`; timings never are).
//
//   node scripts/bench-web.mjs DIST_DIR TRACE...
//
// For each trace (chosen 2 s after the page opened): wall time from choosing the file to
// the results on screen, the
// worker's own split (FileReaderSync reads, parse, attribution, timeline index), the
// worker's wasm memory afterwards and the main thread's long tasks. On the last trace,
// frame times while the timeline is zoomed and panned every frame. Then the explore
// view's default sweep and its 10-batch sweep, and the gzip size of the first load.
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { CHROMIUM, CHROMIUM_ARGS, watchLongTasks } from '../tests/e2e/assert.mjs';

const [dist, ...traces] = process.argv.slice(2);
if (!dist || traces.length === 0) {
  console.error('usage: node scripts/bench-web.mjs DIST_DIR TRACE...');
  process.exit(2);
}

const port = 18000 + Math.floor(Math.random() * 2000);
const server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', dist], {
  stdio: 'ignore',
});
const baseUrl = `http://127.0.0.1:${port}/`;
const stop = () => server.kill();
process.on('exit', stop);

async function waitForServer() {
  for (let i = 0; i < 100; i += 1) {
    try {
      if ((await fetch(baseUrl)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no server at ${baseUrl}`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const mb = (bytes) => (bytes / 1e6).toFixed(1);
const ms = (x) => `${Math.round(x)} ms`;

async function freshPage(browser, fragment = '', ready = 'trace-status') {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(baseUrl + fragment);
  await page.waitForSelector(`[data-testid="${ready}"]`);
  return { context, page };
}

async function status(page, name) {
  return page.locator('[data-testid="trace-status"]').getAttribute(name);
}

/** Load one trace and read the worker's figures; the page stays open for more. */
async function loadTrace(page, file) {
  // As a person would: the page has been open a moment (its workers have started and
  // warmed up) when the file is chosen.
  await page.waitForFunction(() => /ready/i.test(document.body.innerText), null, { timeout: 30000 });
  await page.waitForTimeout(2000);
  await watchLongTasks(page);
  const before = Number(await status(page, 'data-runs'));
  const t0 = Date.now();
  await page.locator('[data-testid="trace-file-input"]').setInputFiles(file);
  await page.waitForFunction(
    (n) => Number(document.querySelector('[data-testid="trace-status"]').dataset.runs) > n,
    before,
    { timeout: 600000, polling: 20 },
  );
  const wall = Date.now() - t0;
  const state = await status(page, 'data-state');
  if (state !== 'done') throw new Error(`${file}: state ${state}: ${await page.locator('[data-testid="trace-status"]').innerText()}`);
  await page.waitForTimeout(300);
  return {
    file,
    bytes: statSync(file).size,
    wall,
    events: Number(await status(page, 'data-events')),
    preparse: Number(await status(page, 'data-preparse-ms')),
    parse: Number(await status(page, 'data-parse-ms')),
    read: Number(await status(page, 'data-read-ms')),
    attribute: Number(await status(page, 'data-attribute-ms')),
    index: Number(await status(page, 'data-index-ms')),
    wasm: Number(await status(page, 'data-wasm-bytes')),
    longTasks: await page.evaluate(() => window.__longTasks),
  };
}

/** Zoom in, pan across and zoom out, one key press per animation frame. */
async function frameTimes(page) {
  await page.locator('[data-testid="timeline-canvas"]').focus();
  return page.evaluate(async () => {
    const canvas = document.querySelector('[data-testid="timeline-canvas"]');
    const keys = [...Array(12).fill('w'), ...Array(60).fill('d'), ...Array(60).fill('a'), ...Array(12).fill('s')];
    const frames = [];
    const paints = [];
    let lastPaint = canvas.dataset.paintMs;
    let last = await new Promise((r) => requestAnimationFrame(r));
    for (const key of keys) {
      canvas.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
      const now = await new Promise((r) => requestAnimationFrame(r));
      frames.push(now - last);
      last = now;
      if (canvas.dataset.paintMs !== lastPaint) {
        lastPaint = canvas.dataset.paintMs;
        paints.push(Number(lastPaint));
      }
    }
    return { frames, paints, query: Number(canvas.dataset.queryMs) };
  });
}

async function explore(browser) {
  const { context, page } = await freshPage(browser, '#v=1&view=explore', 'explore-summary');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="explore-summary"]')?.dataset.elapsedMs) > 0, null, { timeout: 60000 });
  // The first sweep includes the worker's start; re-run a few times for the steady state.
  const sweeps = [];
  for (const batch of ['2', '4', '8', '16', '1']) {
    await page.locator('[data-testid="batch-input"]').fill(batch);
    await page.locator('[data-testid="batch-input"]').press('Tab');
    // The sweep is debounced 100 ms; two sweeps can take the same whole milliseconds, so
    // wait for the answer to this batch rather than for a changed time.
    await page.waitForFunction(
      (b) => document.querySelector('[data-testid="explore-status"]')?.dataset.state === 'done'
        && new URLSearchParams(location.hash.slice(1)).get('batch') === (b === '1' ? null : b),
      batch,
      { timeout: 60000 },
    );
    await page.waitForTimeout(300);
    await page.waitForFunction(() => document.querySelector('[data-testid="explore-status"]')?.dataset.state === 'done', null, { timeout: 60000 });
    sweeps.push(Number(await page.locator('[data-testid="explore-summary"]').getAttribute('data-elapsed-ms')));
  }
  const batches = [];
  for (let i = 0; i < 3; i += 1) {
    await page.waitForFunction(() => document.querySelector('[data-testid="batch-view"]')?.dataset.state === 'done', null, { timeout: 60000 });
    batches.push(Number(await page.locator('[data-testid="batch-view"]').getAttribute('data-elapsed-ms')));
    await page.locator('[data-testid="batch-run"]').click();
    await page.waitForTimeout(50);
  }
  await context.close();
  return { sweeps, batches };
}

function firstLoad() {
  const rows = [];
  for (const name of readdirSync(dist)) {
    const file = path.join(dist, name);
    if (!statSync(file).isFile()) continue;
    const raw = readFileSync(file);
    rows.push({ name, bytes: raw.length, gzip: gzipSync(raw, { level: 9 }).length });
  }
  return rows;
}

await waitForServer();
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
console.log(`bench-web: Chromium ${browser.version()}, ${baseUrl}, navigator.hardwareConcurrency = ${await (async () => {
  const { context, page } = await freshPage(browser);
  const n = await page.evaluate(() => navigator.hardwareConcurrency);
  await context.close();
  return n;
})()}`);

const loads = [];
let frames;
for (const [i, file] of traces.entries()) {
  const { context, page } = await freshPage(browser);
  loads.push(await loadTrace(page, file));
  if (i === traces.length - 1) frames = await frameTimes(page);
  await context.close();
}

console.log('\n| trace | events | wall to results | two workers: read + parse ranges | loading worker: reads | parse/stitch | attribution | index | MB/s (wall) | wasm memory | longest main-thread task |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const l of loads) {
  console.log(`| ${path.basename(l.file)} (${mb(l.bytes)} MB) | ${l.events.toLocaleString('en')} | ${ms(l.wall)} | ${ms(l.preparse)} | ${ms(l.read)} | ${ms(l.parse)} | ${ms(l.attribute)} | ${ms(l.index)} | ${(l.bytes / 1e3 / l.wall).toFixed(0)} | ${mb(l.wasm)} MB | ${l.longTasks.length ? `${Math.max(...l.longTasks)} ms` : 'none over 50 ms'} |`);
}
if (frames) {
  console.log(`\ntimeline of ${path.basename(traces.at(-1))}: ${frames.frames.length} frames, one zoom or pan key per frame:`);
  console.log(`  frame interval median ${frames.frames.length ? median(frames.frames).toFixed(1) : '-'} ms, p95 ${pct(frames.frames, 0.95).toFixed(1)} ms, max ${Math.max(...frames.frames).toFixed(1)} ms`);
  if (frames.paints.length) {
    console.log(`  paint median ${median(frames.paints).toFixed(1)} ms, max ${Math.max(...frames.paints).toFixed(1)} ms (${frames.paints.length} paints); last worker query ${frames.query} ms`);
  }
}
const ex = await explore(browser);
console.log(`\nexplore: default sweep in the worker ${ex.sweeps.map((x) => x.toFixed(0)).join(', ')} ms (median ${median(ex.sweeps).toFixed(0)}); 10-batch sweep round trip ${ex.batches.map((x) => x.toFixed(0)).join(', ')} ms (median ${median(ex.batches).toFixed(0)})`);

const files = firstLoad().filter((f) => !f.name.endsWith('.map'));
console.log('\n| first-load file | bytes | gzip -9 |');
console.log('|---|---|---|');
for (const f of files) console.log(`| ${f.name} | ${f.bytes.toLocaleString('en')} | ${f.gzip.toLocaleString('en')} |`);
const total = files.reduce((a, f) => a + f.gzip, 0);
console.log(`| **total** | ${files.reduce((a, f) => a + f.bytes, 0).toLocaleString('en')} | **${total.toLocaleString('en')}** |`);
await browser.close();
stop();
