// Shardscope's worker loader (copied into the build as is; see src/app/worker_module.rs).
// A worker the page starts named "shardscope-shared" waits for the page's first message:
// the worker's WebAssembly module, compiled once by the page and shared by every worker,
// and the blob: address of its JavaScript glue, fetched once (`source`: the glue's own
// file, where blob: scripts are refused). Any other worker, or a
// message without them, fetches and compiles the scalar build itself.
(() => {
  const start = ({ module, glue, source } = {}) => {
    const shared = module instanceof WebAssembly.Module && typeof glue === "string";
    if (shared) {
      try {
        importScripts(glue);
      } catch (err) {
        // A host whose Content-Security-Policy header refuses blob: scripts: the file.
        importScripts(source || "./worker.js");
      }
    } else {
      importScripts("./worker.js");
    }
    // A failure surfaces as the worker's error event in the page, with its message.
    wasm_bindgen({ module_or_path: shared ? module : "./worker_bg.wasm" }).catch((err) =>
      setTimeout(() => {
        throw err;
      }),
    );
  };
  if (self.name === "shardscope-shared") {
    self.onmessage = (event) => {
      self.onmessage = null;
      start(event.data || {});
    };
  } else {
    start();
  }
})();
