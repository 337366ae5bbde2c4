// The worker's protocol, driven directly from JavaScript in the served page's origin.
import { assert, byTestId, coreVersion, fnv1a32, waitForAttr } from './assert.mjs';

/** The build id the page was compiled with (16 hex digits), which its worker must echo. */
async function pageBuild(page) {
  const build = await page.locator('[data-testid="worker-status"]').getAttribute('data-build');
  assert.match(build ?? '', /^[0-9a-f]{16}$/);
  return build;
}

/** Start a fresh worker in the page and run a conversation; values come back JSON-safe. */
async function converse(page, script) {
  return page.evaluate(async (body) => {
    const worker = new Worker('./worker_loader.js');
    const inbox = [];
    let wake = null;
    worker.onmessage = (e) => { inbox.push(e.data); if (wake) wake(); };
    worker.onerror = (e) => { inbox.push({ workerError: String(e.message || e.type) }); if (wake) wake(); };
    const next = async (timeoutMs = 10000) => {
      const deadline = Date.now() + timeoutMs;
      while (!inbox.length) {
        if (Date.now() > deadline) throw new Error('no message from the worker');
        await new Promise((r) => { wake = r; setTimeout(r, 50); });
      }
      return inbox.shift();
    };
    // BigInt (64-bit integers) cannot leave page.evaluate: write them as decimal strings.
    const plain = (v) => JSON.parse(JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x)));
    try {
      // eslint-disable-next-line no-new-func
      return plain(await new Function('worker', 'next', `return (async () => { ${body} })();`)(worker, next));
    } finally {
      worker.terminate();
    }
  }, script);
}

export const tests = [
  {
    name: 'Ready comes first, unsolicited; Ping gets Pong with the same id',
    async run({ page, baseUrl }) {
      await page.goto(baseUrl);
      const [ready, pong] = await converse(page, `
        const ready = await next();
        worker.postMessage({ id: 17, body: 'Ping' });
        return [ready, await next()];
      `);
      const build = await pageBuild(page);
      assert.deepEqual(ready, { id: 0, body: { Ready: { core_version: coreVersion(), build } } });
      assert.deepEqual(pong, { id: 17, body: { Pong: { core_version: coreVersion(), build } } });
    },
  },
  {
    name: 'bad requests are answered with errors, and the worker keeps working',
    async run({ page, baseUrl }) {
      await page.goto(baseUrl);
      const answers = await converse(page, `
        await next();
        const out = [];
        worker.postMessage({ id: 5, body: { Explode: true } }); out.push(await next());
        worker.postMessage('garbage'); out.push(await next());
        worker.postMessage({ id: 6, body: { ReadBlobInfo: { files: [{ name: 'n', blob: 'not a blob' }] } } }); out.push(await next());
        worker.postMessage({ id: 7, body: { ReadBlobInfo: { files: [], chunk_bytes: 0 } } }); out.push(await next());
        worker.postMessage({ id: 8, body: 'Ping' }); out.push(await next());
        return out;
      `);
      assert.equal(answers.length, 5);
      assert.equal(answers[0].id, 5);
      assert.match(answers[0].body.Error.message, /Explode/);
      assert.equal(answers[1].id, 0);
      assert.match(answers[1].body.Error.message, /does not understand/);
      assert.equal(answers[2].id, 6);
      assert.ok(answers[2].body.Error.message.length > 0);
      assert.equal(answers[3].id, 7);
      assert.match(answers[3].body.Error.message, /chunk_bytes/);
      assert.deepEqual(answers[4], { id: 8, body: { Pong: { core_version: coreVersion(), build: await pageBuild(page) } } });
    },
  },
  {
    name: 'files reach the worker as handles and are read in slices, in order',
    async run({ page, baseUrl }) {
      await page.goto(baseUrl);
      const text = 'stormlog\n'.repeat(11) + 'tail';
      const answers = await converse(page, `
        await next();
        const file = new File([${JSON.stringify(text)}], 'rank3.json');
        worker.postMessage({ id: 9, body: { ReadBlobInfo: { files: [{ name: file.name, blob: file }], chunk_bytes: 7 } } });
        const out = [];
        for (;;) {
          const m = await next();
          out.push(m);
          if (!m.body.Progress) break;
        }
        return out;
      `);
      const size = Buffer.byteLength(text);
      const chunks = Math.ceil(size / 7);
      const progress = answers.slice(0, -1);
      assert.equal(progress.length, chunks, 'one progress message per 7-byte slice');
      progress.forEach((m, i) => {
        assert.equal(m.id, 9);
        assert.equal(m.body.Progress.done_bytes, `${Math.min((i + 1) * 7, size)}n`);
        assert.equal(m.body.Progress.total_bytes, `${size}n`);
        assert.deepEqual(m.body.Progress.stage, { Reading: { file: 'rank3.json' } });
      });
      const final = answers.at(-1);
      assert.deepEqual(final, {
        id: 9,
        body: {
          BlobInfo: {
            files: [{
              name: 'rank3.json',
              size_bytes: `${size}n`,
              bytes_read: `${size}n`,
              chunks: `${chunks}n`,
              lines: '11n',
              fnv1a32: fnv1a32(Buffer.from(text)),
            }],
          },
        },
      });
    },
  },
  {
    name: 'a worker from another build (cached from an earlier deploy) is refused: one reload notice, no answer',
    async run({ page, baseUrl }) {
      // Serve the real worker, but make its handshake claim another build, as a worker
      // cached before a deploy would.
      const stale = 'feedfacefeedface';
      await page.route('**/worker_loader.js', async (route) => {
        const response = await route.fetch();
        const patch = `{ const post = self.postMessage.bind(self);
          self.postMessage = (...args) => {
            const m = args[0];
            if (m && m.body && m.body.Ready) m.body.Ready.build = '${stale}';
            return post(...args);
          }; }\n`;
        await route.fulfill({ response, body: patch + (await response.text()) });
      });
      await page.goto(baseUrl);
      await waitForAttr(page, 'worker-status', 'data-state', 'stale');
      const status = byTestId(page, 'worker-status');
      assert.match(await status.innerText(), /updated since this page was opened: reload to use the new version/);
      assert.match(await status.getAttribute('title'), new RegExp(`cached worker is build ${stale}`));
      assert.equal(await byTestId(page, 'reload-page').count(), 1);
      // A request made now fails with the same words; no result is shown.
      await byTestId(page, 'load-example').click();
      await waitForAttr(page, 'trace-status', 'data-state', 'error');
      assert.equal(await byTestId(page, 'attribution-row').count(), 0);
      assert.match(await byTestId(page, 'trace-error').first().innerText(), /reload it/);
      // Reload gets the real worker (the route is gone) and the page works.
      // Workers still starting may have a handler call in flight: drop it quietly (a
      // fulfil after the unroute would throw "Route is already handled").
      await page.unrouteAll({ behavior: 'ignoreErrors' });
      await byTestId(page, 'reload-page').click();
      await waitForAttr(page, 'worker-status', 'data-state', 'ready');
    },
  },
];
