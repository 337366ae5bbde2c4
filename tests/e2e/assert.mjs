// Small helpers for the browser tests (node:assert plus page polling).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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
