// Hostile inputs: each one is answered with a message a person can act on, the results
// on screen stay, and the page keeps working (the next load succeeds).
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync, ftruncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assert, byTestId, waitForAttr } from './assert.mjs';
import { nextResult, open, runs } from './trace_helpers.mjs';

/** A stormlog v4 sample; `patch` replaces parts of its text. */
function record(patch = (t) => t) {
  return patch(
    '{"schema_version": 4, "session_id": "s", "timestamp_ns": 1, "event_type": "sample", "collector": "c", ' +
      '"sampling_interval_ms": 1, "pid": 1, "host": "h", "device_id": 0, "allocator_allocated_bytes": 1, ' +
      '"allocator_reserved_bytes": 1, "allocator_active_bytes": null, "allocator_inactive_bytes": null, ' +
      '"allocator_change_bytes": 0, "device_used_bytes": 2, "device_free_bytes": null, "device_total_bytes": 10, ' +
      '"context": null, "metadata": {"backend": "cuda"}}',
  );
}

async function withExample(page, baseUrl) {
  await open(page, baseUrl);
  const before = await runs(page);
  await byTestId(page, 'load-example').click();
  await nextResult(page, before, 30000);
  return byTestId(page, 'attribution-count').innerText();
}

/** Give `files` to the file input; wait for the error; return its text. */
async function refused(page, files) {
  await byTestId(page, 'trace-file-input').setInputFiles(files);
  await waitForAttr(page, 'trace-status', 'data-state', 'error', 60000);
  return (await page.locator('[data-testid="trace-error"]').allInnerTexts()).join('\n');
}

/** The example's results are still shown, and a new load still works. */
async function stillWorking(page, count) {
  assert.equal(await byTestId(page, 'attribution-count').innerText(), count, 'the earlier results stay');
  const before = await runs(page);
  await byTestId(page, 'load-example').click();
  await nextResult(page, before, 30000);
}

export const tests = [
  {
    name: 'deep nesting, a binary file, 1e400 and 2^64 counters, an empty folder: each explained, the page keeps working',
    async run({ page, baseUrl }) {
      const dir = mkdtempSync(path.join(tmpdir(), 'shardscope-hostile-'));
      const file = (name, text) => {
        const p = path.join(dir, name);
        writeFileSync(p, text);
        return p;
      };
      const count = await withExample(page, baseUrl);
      const cases = [
        [file('nested.json', '['.repeat(100000) + ']'.repeat(100000)), /Nesting too deep.*nested\.json.*not a stormlog export/s],
        [file('binary.json', Buffer.from(Array.from({ length: 65536 }, (_, i) => (i * 7919 + 131) % 256))), /not valid UTF-8.*binary\.json/s],
        [file('inf.json', `[${record((t) => t.replace('"allocator_allocated_bytes": 1', '"allocator_allocated_bytes": 1e400'))}]`), /allocator_allocated_bytes must be an integer.*record 0/s],
        [file('big.json', `[${record((t) => t.replace('"device_total_bytes": 10', '"device_total_bytes": 18446744073709551616'))}]`), /device_total_bytes is outside the supported 64-bit integer range/],
      ];
      for (const [p, message] of cases) {
        const text = await refused(page, p);
        console.log(`        ${path.basename(p)}: ${text.replace(/\s+/g, ' ').slice(0, 160)}`);
        assert.match(text, message, path.basename(p));
        assert.equal(await byTestId(page, 'attribution-count').innerText(), count, `${path.basename(p)}: the results stay`);
      }
      // An empty folder through the folder input.
      const empty = path.join(dir, 'empty');
      mkdirSync(empty);
      await byTestId(page, 'trace-folder-input').setInputFiles(empty);
      await waitForAttr(page, 'trace-status', 'data-state', 'error');
      const emptyText = (await page.locator('[data-testid="trace-error"]').allInnerTexts()).join('\n');
      console.log(`        empty folder: ${emptyText.replace(/\s+/g, ' ').slice(0, 160)}`);
      assert.match(emptyText, /Nothing to load/);
      await stillWorking(page, count);
      rmSync(dir, { recursive: true, force: true });
    },
  },
  {
    name: '10 million tiny records fail at the first one at once; a 50 MB single-line record loads',
    async run({ page, baseUrl }) {
      const dir = mkdtempSync(path.join(tmpdir(), 'shardscope-hostile-'));
      const tiny = path.join(dir, 'tiny.jsonl');
      writeFileSync(tiny, '{}\n'.repeat(10_000_000));
      const count = await withExample(page, baseUrl);
      const t0 = Date.now();
      const text = await refused(page, tiny);
      console.log(`        tiny.jsonl: ${text.replace(/\s+/g, ' ').slice(0, 160)}`);
      assert.match(text, /tiny\.jsonl.*line 1/s);
      // A regression guard (it answers in about a second): not read to the end first.
      assert.ok(Date.now() - t0 < 15000, `answered in ${Date.now() - t0} ms, over the 15 s regression guard`);
      await stillWorking(page, count);

      const long = path.join(dir, 'one-line.jsonl');
      writeFileSync(long, `${record((t) => t.replace('{"backend": "cuda"}', `{"backend": "cuda", "blob": "${'x'.repeat(50_000_000)}"}`))}\n`);
      const before = await runs(page);
      await byTestId(page, 'trace-file-input').setInputFiles(long);
      await nextResult(page, before, 45000);
      assert.equal(await byTestId(page, 'trace-status').getAttribute('data-events'), '1');
      rmSync(dir, { recursive: true, force: true });
    },
  },
  {
    name: 'a file beyond the page’s memory is refused up front with its size and the command line',
    async run({ page, baseUrl }) {
      const dir = mkdtempSync(path.join(tmpdir(), 'shardscope-hostile-'));
      const huge = path.join(dir, 'huge.json');
      // 5 GiB, sparse: no disk space, and never read.
      const fd = openSync(huge, 'w');
      ftruncateSync(fd, 5 * 1024 ** 3);
      closeSync(fd);
      const count = await withExample(page, baseUrl);
      const text = await refused(page, huge);
      console.log(`        huge.json: ${text.replace(/\s+/g, ' ').slice(0, 220)}`);
      assert.match(text, /5\.00 GiB/);
      assert.match(text, /at most 4\.00 GiB/);
      assert.match(text, /shardscope attribute/);
      assert.equal(await byTestId(page, 'trace-progress').isVisible(), false, 'nothing was read');
      await stillWorking(page, count);
      rmSync(dir, { recursive: true, force: true });
    },
  },
  {
    name: 'a file removed while it is being read is an error naming it; the page keeps working',
    async run({ page, baseUrl, expectConsoleErrors }) {
      expectConsoleErrors(/NotReadable|could not be read|File/i);
      const dir = mkdtempSync(path.join(tmpdir(), 'shardscope-hostile-'));
      const gone = path.join(dir, 'gone.json');
      // 300 MB of records: long enough to still be reading when the file disappears.
      const fd = openSync(gone, 'w');
      const chunk = Buffer.from(Array(4000).fill(record()).join(', ') + ', ');
      writeSync(fd, '[');
      for (let written = 0; written < 300e6; written += chunk.length) writeSync(fd, chunk);
      writeSync(fd, `${record()}]`);
      closeSync(fd);
      const count = await withExample(page, baseUrl);
      await byTestId(page, 'trace-file-input').setInputFiles(gone);
      await waitForAttr(page, 'trace-status', 'data-state', 'loading');
      rmSync(gone);
      // Rewritten, not only unlinked: the browser sees the file change under it.
      writeFileSync(gone, 'x');
      await waitForAttr(page, 'trace-status', 'data-state', 'error', 60000);
      const text = (await page.locator('[data-testid="trace-error"]').allInnerTexts()).join('\n');
      console.log(`        gone.json: ${text.replace(/\s+/g, ' ').slice(0, 200)}`);
      assert.match(text, /gone\.json/);
      assert.match(text, /read/i);
      await stillWorking(page, count);
      rmSync(dir, { recursive: true, force: true });
    },
  },
];
