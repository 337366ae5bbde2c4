// Shardscope's worker loader (copied into the build as is; see src/app/worker_module.rs).
// A worker the page starts named "shardscope-shared" waits for the page's first message:
// the worker's WebAssembly module, compiled once by the page and shared by every worker.
// The page normally starts it from one blob: script, the glue followed by this loader, so
// `wasm_bindgen` is already defined; started from this file instead (a policy refusing
// blob: workers), it imports the glue from the page's blob: address (`glue`), or its own
// file (`source`) where blob: scripts are refused too. Any other worker, or a message
// without a module, fetches and compiles the scalar build itself.
(() => {
  const start = ({ module, glue, source } = {}) => {
    const shared = module instanceof WebAssembly.Module;
    if (typeof wasm_bindgen !== "function") {
      if (shared && typeof glue === "string") {
        try {
          importScripts(glue);
        } catch (err) {
          importScripts(source || "./worker.js");
        }
      } else {
        importScripts(shared && source ? source : "./worker.js");
      }
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
