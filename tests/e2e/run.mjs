// Browser tests of the built page, with playwright-core driving Debian's Chromium.
//
//   node tests/e2e/run.mjs BASE_URL [NAME_FILTER]
//
// BASE_URL serves dist/ (scripts/test/e2e.sh starts a server and calls this). Every
// tests/e2e/*.test.mjs exports `tests`: [{ name, run({ page, context, baseUrl, expectConsoleErrors }) }].
// Each test gets a fresh browser profile. A test fails on a thrown error, on a timeout,
// or on any console error / uncaught page error it did not declare as expected.
// Exits 1 if any test failed, after printing which.

import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from './assert.mjs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const TEST_TIMEOUT_MS = Number(process.env.E2E_TEST_TIMEOUT_MS || 60000);

const [baseUrlArg, filter = ''] = process.argv.slice(2);
if (!baseUrlArg) {
  console.error('usage: node tests/e2e/run.mjs BASE_URL [NAME_FILTER]');
  process.exit(2);
}
const baseUrl = baseUrlArg.endsWith('/') ? baseUrlArg : `${baseUrlArg}/`;

async function waitForServer(url, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = err.message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server at ${url} not answering: ${last}`);
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

async function runOne(test) {
  const profile = await mkdtemp(path.join(tmpdir(), 'shardscope-e2e-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    viewport: { width: 1200, height: 800 },
  });
  const errors = [];
  const expected = [];
  const cleanups = [];
  context.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console error: ${msg.text()} (${msg.location().url || 'unknown'})`);
  });
  context.on('weberror', (err) => errors.push(`uncaught error: ${err.error().message}`));
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (err) => errors.push(`page error: ${err.message}`));
    await withTimeout(
      test.run({
        page,
        context,
        baseUrl,
        // Declare console errors this test provokes on purpose (regexps).
        expectConsoleErrors: (...patterns) => expected.push(...patterns),
        // dist/ served under a sub-path (scripts/test/e2e.sh), e.g. http://127.0.0.1:PORT/shardscope/.
        subpathUrl: process.env.E2E_SUBPATH_URL || '',
        // Run `fn` when the test ends, passed or not (a server it started).
        onCleanup: (fn) => cleanups.push(async () => fn()),
        // A second browser with its own empty profile (a colleague opening a link).
        freshPage: async () => {
          const dir = await mkdtemp(path.join(tmpdir(), 'shardscope-e2e-fresh-'));
          const fresh = await chromium.launchPersistentContext(dir, {
            executablePath: CHROMIUM,
            args: CHROMIUM_ARGS,
            viewport: { width: 1280, height: 800 },
          });
          fresh.on('console', (msg) => {
            if (msg.type() === 'error') errors.push(`console error (fresh profile): ${msg.text()}`);
          });
          cleanups.push(async () => {
            await fresh.close().catch(() => {});
            await rm(dir, { recursive: true, force: true }).catch(() => {});
          });
          return fresh.pages()[0] ?? (await fresh.newPage());
        },
      }),
      TEST_TIMEOUT_MS,
      test.name,
    );
    // Let late messages (worker logs, failed requests) arrive.
    await page.waitForTimeout(200);
    const unexpected = [...new Set(errors)].filter((e) => !expected.some((re) => re.test(e)));
    if (unexpected.length) throw new Error(`unexpected browser errors:\n    ${unexpected.join('\n    ')}`);
  } finally {
    for (const cleanup of cleanups) await cleanup();
    await context.close().catch(() => {});
    await rm(profile, { recursive: true, force: true }).catch(() => {});
  }
}

async function main() {
  await waitForServer(baseUrl);
  const files = (await readdir(HERE)).filter((f) => f.endsWith('.test.mjs')).sort();
  const failures = [];
  let passed = 0;
  const started = Date.now();
  for (const file of files) {
    const { tests } = await import(pathToFileURL(path.join(HERE, file)).href);
    for (const test of tests) {
      const name = `${file.replace(/\.test\.mjs$/, '')} › ${test.name}`;
      if (filter && !name.includes(filter)) continue;
      const t0 = Date.now();
      try {
        await runOne(test);
        passed += 1;
        console.log(`  ok    ${name} (${Date.now() - t0} ms)`);
      } catch (err) {
        failures.push({ name, err });
        console.log(`  FAIL  ${name} (${Date.now() - t0} ms)\n        ${String(err?.stack || err).split('\n').join('\n        ')}`);
      }
    }
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`\ne2e: ${passed} passed, ${failures.length} failed (${seconds} s)`);
  if (failures.length) {
    console.log(`failed:\n${failures.map((f) => `  - ${f.name}`).join('\n')}`);
    process.exit(1);
  }
  if (passed === 0) {
    console.log('no test ran');
    process.exit(1);
  }
}

main().catch((err) => {
  console.error(`e2e runner failed: ${err?.stack || err}`);
  process.exit(1);
});
