// Small helpers for the browser tests (node:assert plus page polling).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export { assert };

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The core crate's version, which the worker must report. */
export function coreVersion() {
  const toml = readFileSync(path.join(ROOT, 'crates/core/Cargo.toml'), 'utf8');
  const m = toml.match(/^version\s*=\s*"([^"]+)"/m);
  if (!m) throw new Error('no version in crates/core/Cargo.toml');
  return m[1];
}

export const byTestId = (page, id) => page.locator(`[data-testid="${id}"]`);

/** Wait until the element's attribute equals `value`; fail with what it was. */
export async function waitForAttr(page, testid, name, value, timeout = 20000) {
  const sel = `[data-testid="${testid}"]`;
  try {
    await page.waitForFunction(
      ([s, n, v]) => document.querySelector(s)?.getAttribute(n) === v,
      [sel, name, value],
      { timeout },
    );
  } catch {
    const actual = await page.evaluate(([s, n]) => {
      const e = document.querySelector(s);
      return e ? `${n}=${JSON.stringify(e.getAttribute(n))}, text=${JSON.stringify(e.textContent)}` : 'element missing';
    }, [sel, name]);
    throw new Error(`${testid}: expected ${name}=${JSON.stringify(value)}, got ${actual}`);
  }
}

/** FNV-1a 32-bit, as the worker computes it. */
export function fnv1a32(bytes) {
  let h = 0x811c9dc5;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * The native command line's stdout for `args` (built on first use): the page's exports
 * must equal it byte for byte.
 */
export function cli(args) {
  const bin = path.join(ROOT, 'target/debug/shardscope');
  if (!existsSync(bin)) {
    execFileSync('cargo', ['build', '--quiet', '-p', 'shardscope-cli'], { cwd: ROOT, stdio: 'inherit' });
  }
  return execFileSync(bin, args, { cwd: ROOT, maxBuffer: 1 << 28 });
}

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
// Without the background-networking flags Chromium floods the closed network with
// refused connections.
export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/**
 * Regression guards, not goals. The goals (no main-thread task over 50 ms, a default
 * sweep in under 100 ms, a cancelled load back within 100 ms) are measured and printed by
 * `make bench-web`; a test that asserted them failed on a busy or cold machine for
 * timing alone. These bounds are 4x the goals: a test fails only on a gross regression.
 */
export const GUARD = {
  /** No main-thread task longer than this (4x the 50 ms goal). */
  longTaskMs: 4 * 50,
  /** A default sweep in the worker (4x the 100 ms goal). */
  sweepMs: 4 * 100,
  /** From Cancel to the previous results (4x the 100 ms goal). */
  cancelMs: 4 * 100,
};

/** Fail on a main-thread task over the guard (see `GUARD`); print what was seen. */
export async function assertNoGrossLongTask(page, what) {
  const tasks = await page.evaluate(() => window.__longTasks);
  console.log(`        ${what}: tasks over 50 ms: ${JSON.stringify(tasks)} (guard: none over ${GUARD.longTaskMs} ms; the 50 ms goal is make bench-web's)`);
  assert.ok(tasks.every((ms) => ms <= GUARD.longTaskMs), `${what}: a main-thread task over the ${GUARD.longTaskMs} ms regression guard: ${JSON.stringify(tasks)}`);
}

/** Collect main-thread long tasks (> 50 ms) from now on into `window.__longTasks`. */
export async function watchLongTasks(page) {
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push(Math.round(e.duration));
    }).observe({ type: 'longtask', buffered: false });
  });
}

/** Serve `dir` with Python's http.server on a free port; returns its URL and a stop(). */
export async function serve(dir) {
  const server = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const port = await new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`http.server did not start: ${text}`)), 10000);
    server.stdout.on('data', (chunk) => {
      text += chunk;
      const m = text.match(/port (\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    server.on('exit', (code) => reject(new Error(`http.server exited (${code}): ${text}`)));
  });
  return { url: `http://127.0.0.1:${port}/`, stop: () => server.kill() };
}

