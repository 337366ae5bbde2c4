// Runs a wasm32-wasip1 command (the bench built for wasm) in Node's WASI, with the
// current directory preopened: `node scripts/bench/wasi-run.mjs PROGRAM.wasm ARGS...`.
// `make bench` uses it to time the core's parse in WebAssembly (what the browser's
// workers run) next to the native build, on the same file.
import { readFile } from 'node:fs/promises';
import { WASI } from 'node:wasi';
import process from 'node:process';

const [program, ...args] = process.argv.slice(2);
const wasi = new WASI({ version: 'preview1', args: [program, ...args], env: {}, preopens: { '.': '.' }, returnOnExit: true });
const module = await WebAssembly.compile(await readFile(program));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
const code = wasi.start(instance);
// Node 20's WASI can crash while tearing a big instance down: leave at once.
process.reallyExit(code);
