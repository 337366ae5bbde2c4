#!/usr/bin/env python3
"""Trunk post-build step (after csp.py, see post_build.py): the service worker that makes
the page work offline after one visit, written into dist/ as `sw.js`.

- It precaches every file of this build (the page, its start-up script, the page's and
  the worker's JavaScript and WebAssembly, the CSS, the icons, the manifest, the bundled
  example) but the worker build this browser does not run (SIMD or scalar: fetched from
  the network if ever asked for), each fetched with its SHA-384 integrity hash: the same
  hash Trunk and csp.py write into index.html for the files they link (checked here: the
  build fails if they differ), so a file changed in transit is never cached.
- The cache is named after this build's version (a hash of every file's name and
  hash), so two builds never share a cache and a page is only ever served files of
  one build. A new deploy is installed in the background and takes over on the next
  visit; the previous build's cache is kept while a page of it may still start workers,
  older ones are deleted. The page's build-id check of its workers stays the last guard.
- Only the precached files and page loads are answered from the cache; everything else
  (a link's traces, kept recent traces) goes to the network or its own cache untouched.

Usage: scripts/build/offline.py [DIR]   (default: $TRUNK_STAGING_DIR)
"""

import hashlib
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from csp import built_page, sri  # noqa: E402  (the same hash as index.html's)

SW = "sw.js"
# The smallest module with a SIMD instruction: the page's probe (src/app/worker_module.rs).
SIMD_PROBE = [0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8,
              0, 65, 0, 253, 15, 253, 98, 11]
# The two builds of the worker (scripts/build/simd_worker.py), each precached only where it runs.
SCALAR_FILES = ["worker.js", "worker_bg.wasm"]
SIMD_FILES = ["worker_simd.js", "worker_simd_bg.wasm"]
# Never precached: the service worker itself (the browser fetches it fresh).
SKIP = {SW}


def files_of(root: str) -> list:
    out = []
    for folder, _, names in os.walk(root):
        for name in names:
            rel = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
            if rel not in SKIP:
                out.append(rel)
    return sorted(out)


TEMPLATE = r"""// Shardscope's service worker, written by scripts/build/offline.py for one build: do not edit.
// Precaches this build's files (each checked against its integrity hash) in a cache of
// its own, answers page loads and those files from it, and leaves everything else alone.
const VERSION = "__VERSION__";
const PREFIX = "shardscope-build-";
const CACHE = PREFIX + VERSION;
// Which build's cache was current before this one (kept for pages still open on it).
const META = "shardscope-meta";
const PRECACHE = __PRECACHE__;
const SCOPE = new URL("./", self.location).href;
const PRECACHED = new Set(PRECACHE.map(([path]) => new URL(path, SCOPE).href));
// The worker build this browser does not run is not downloaded ahead (the page picks the
// SIMD one where this probe validates: src/app/worker_module.rs); asked for, it comes
// from the network.
const SIMD = WebAssembly.validate(new Uint8Array(__SIMD_PROBE__));
const UNUSED_BUILD = new Set(SIMD ? __SCALAR_FILES__ : __SIMD_FILES__);

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    for (const [path, integrity] of PRECACHE) {
      if (UNUSED_BUILD.has(path)) continue;
      const url = new URL(path, SCOPE).href;
      // A wrong hash rejects the fetch, and with it the install: nothing is half cached.
      const response = await fetch(url, { integrity, cache: "no-cache" });
      if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
      await cache.put(url, response);
    }
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    const meta = await caches.open(META);
    const before = await meta.match("current");
    const previous = before ? await before.text() : "";
    const keep = new Set([CACHE, previous === CACHE ? "" : previous]);
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && !keep.has(name)) await caches.delete(name);
    }
    if (previous !== CACHE) await meta.put("current", new Response(CACHE));
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  const bare = url.origin + url.pathname;
  const page = request.mode === "navigate" && (bare === SCOPE || bare === SCOPE + "index.html");
  if (!page && !PRECACHED.has(bare)) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    const key = page ? SCOPE + "index.html" : bare;
    // This build's file, else the previous build's (a page of it starting a worker),
    // else the network.
    const hit = (await cache.match(key)) || (page ? undefined : await caches.match(key));
    return hit || fetch(request);
  })());
});
"""


def main() -> int:
    page = built_page("offline.py")
    if page is None:
        return 1
    root, index = page
    files = files_of(root)
    hashes = {}
    for rel in files:
        with open(os.path.join(root, rel), "rb") as f:
            hashes[rel] = sri(f.read())
    # The hashes index.html carries must be the ones precached.
    with open(index, encoding="utf-8") as f:
        html = f.read()
    for tag in re.findall(r"<(?:script|link)\b[^>]*>", html):
        ref = re.search(r'(?:src|href)="\./([^"]+)"', tag)
        integrity = re.search(r'integrity="([^"]+)"', tag)
        if ref and integrity and hashes.get(ref.group(1)) != integrity.group(1):
            print(f"offline.py: {ref.group(1)}: index.html says {integrity.group(1)}, "
                  f"the file is {hashes.get(ref.group(1))}", file=sys.stderr)
            return 1
    precache = [[rel, hashes[rel]] for rel in files]
    version = hashlib.sha256(json.dumps(precache).encode()).hexdigest()[:16]
    code = (
        TEMPLATE.replace("__VERSION__", version)
        .replace("__PRECACHE__", json.dumps(precache, indent=2))
        .replace("__SIMD_PROBE__", json.dumps(SIMD_PROBE))
        .replace("__SCALAR_FILES__", json.dumps(SCALAR_FILES))
        .replace("__SIMD_FILES__", json.dumps(SIMD_FILES))
    )
    with open(os.path.join(root, SW), "w", encoding="utf-8") as f:
        f.write(code)
    size = sum(os.path.getsize(os.path.join(root, rel)) for rel in files)
    print(f"offline.py: {SW} precaches {len(files)} files ({size} bytes), build {version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
