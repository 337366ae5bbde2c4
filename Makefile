# Shardscope: `make serve` (build the page, serve it at http://127.0.0.1:8080) and
# `make test` (everything CI checks). Every target first installs what is missing,
# idempotently: see ../shared/TOOLCHAIN.md for why each version is what it is.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

TRUNK_VERSION := 0.21.14
# Must equal the wasm-bindgen crate pinned in Cargo.toml (=0.2.130) and Cargo.lock.
WASM_BINDGEN_VERSION := 0.2.130
WASM_TARGET := wasm32-unknown-unknown
CHROMIUM := /usr/bin/chromium
CHROMEDRIVER := /usr/bin/chromedriver
SERVE_PORT ?= 8080

CARGO_BIN := $(or $(CARGO_HOME),$(HOME)/.cargo)/bin
# node_modules/.bin first: Trunk must find binaryen 132's wasm-opt there, not Debian's.
export PATH := $(CURDIR)/node_modules/.bin:$(CARGO_BIN):$(PATH)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

WASM_TEST_ENV := CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
                 CHROMEDRIVER=$(CHROMEDRIVER) WASM_BINDGEN_TEST_TIMEOUT=120

.PHONY: help serve test bench bench-web build e2e setup fuzz cargo-fuzz-cli \
        rust-tools wasm-target trunk-cli wasm-bindgen-cli node-tools chromium cargo-deps \
        mutants cargo-mutants-cli py-venv wheel pytest

help:
	@echo "make serve   build the page (release) and serve it at http://127.0.0.1:$(SERVE_PORT)"
	@echo "make test    formatting, clippy (native + wasm32), native tests, wasm tests in"
	@echo "             headless Chromium, release build, browser (Playwright) tests"
	@echo "make bench   trace table against stormlog 0.4.3 (native and wasm), LOD query, explorer"
	@echo "make bench-web  the same traces in headless Chromium (load, memory, frames, sweeps, sizes)"
	@echo "make wheel   the Python package's abi3 wheel (maturin) in target/wheels/"
	@echo "make pytest  build the wheel, install it in .tools/py-venv, run tests/python"
	@echo "make mutants mutation testing (cargo-mutants) of the parity-critical core files"
	@echo "make fuzz    each cargo-fuzz target for FUZZ_SECONDS (default 60) on the stable toolchain"
	@echo "make setup   only install the tools (done by every target anyway)"

# ---- installation (idempotent) ----------------------------------------------------

setup: rust-tools wasm-target trunk-cli wasm-bindgen-cli node-tools chromium cargo-deps py-venv

rust-tools:
	@cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt
	@cargo clippy --version >/dev/null 2>&1 || rustup component add clippy

wasm-target:
	@rustup target list --installed | grep -qx '$(WASM_TARGET)' || rustup target add $(WASM_TARGET)

trunk-cli:
	@if [ "$$(trunk --version 2>/dev/null)" != "trunk $(TRUNK_VERSION)" ]; then \
	  echo "installing trunk $(TRUNK_VERSION) (several minutes)"; \
	  cargo install trunk --version $(TRUNK_VERSION) --locked; \
	fi

# Without --locked: its lockfile pins a webpki-roots the crate index here lacks.
# Also provides wasm-bindgen-test-runner.
wasm-bindgen-cli:
	@if [ "$$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $(WASM_BINDGEN_VERSION)" ] \
	    || ! command -v wasm-bindgen-test-runner >/dev/null; then \
	  echo "installing wasm-bindgen-cli $(WASM_BINDGEN_VERSION) (several minutes)"; \
	  cargo install wasm-bindgen-cli --version $(WASM_BINDGEN_VERSION); \
	fi

# binaryen@132.0.0 (wasm-opt for Trunk) and playwright-core (browser tests), from
# package-lock.json. Never `npx playwright install`: the browser is Debian's.
node-tools: node_modules/.installed
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

chromium:
	@if [ ! -x $(CHROMIUM) ] || [ ! -x $(CHROMEDRIVER) ]; then \
	  $(SUDO) apt-get update && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver; \
	fi

# Trunk builds offline (Trunk.toml), so every crate must be downloaded first.
cargo-deps:
	@cargo fetch --quiet

# The Python tests' virtualenv: maturin, pytest, pyarrow, pandas, Ray (tests/python/
# requirements.txt, pinned) and the real stormlog 0.4.3 --no-deps (its loader and
# attribution need only numpy) to compare the drop-in with. Remade when the list changes.
PY_VENV := .tools/py-venv
PYTHON := $(PY_VENV)/bin/python
py-venv: $(PY_VENV)/.installed
$(PY_VENV)/.installed: tests/python/requirements.txt
	@[ -x $(PYTHON) ] || python3 -m venv $(PY_VENV)
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r tests/python/requirements.txt
	$(PYTHON) -m pip install --quiet --disable-pip-version-check --no-deps 'stormlog==0.4.3'
	@touch $@

# ---- build and serve --------------------------------------------------------------

build: wasm-target trunk-cli wasm-bindgen-cli node-tools cargo-deps
	trunk build --release

serve: build
	@echo "Shardscope at http://127.0.0.1:$(SERVE_PORT)/ (Ctrl+C to stop)"
	python3 -m http.server $(SERVE_PORT) --bind 127.0.0.1 --directory dist

# ---- tests --------------------------------------------------------------------------

test: setup
	@start=$$(date +%s); \
	step() { echo; echo "==> $$*"; }; \
	step "cargo fmt --all --check"; cargo fmt --all --check; \
	step "documents: every relative link resolves, every page hook listed"; python3 scripts/test/check_links.py; \
	step "no file-level import cycle in any crate"; python3 scripts/test/import_cycles.py; \
	step "small pieces: files <= 800 lines, functions <= 120"; python3 scripts/test/sizes.py; \
	step "page state through props: context only for the workers and the theme"; python3 scripts/test/context_reads.py; \
	step "clippy (native, whole workspace)"; cargo clippy --workspace --all-targets -- -D warnings; \
	step "clippy (wasm32, web crate)"; cargo clippy -p shardscope-web --target $(WASM_TARGET) --all-targets -- -D warnings; \
	step "native tests (core + cli)"; cargo test; \
	step "Python package (wheel, pytest)"; $(MAKE) pytest; \
	step "wasm tests in headless Chromium"; $(WASM_TEST_ENV) cargo test -p shardscope-web --target $(WASM_TARGET); \
	step "release build (trunk)"; trunk build --release; \
	step "browser tests (Playwright) against dist/"; scripts/test/e2e.sh; \
	echo; echo "make test: all passed in $$(( $$(date +%s) - start )) s"

# The Python package: the abi3 wheel (CPython >= 3.10) in target/wheels/, built by maturin
# from pyproject.toml over crates/py.
wheel: py-venv cargo-deps
	@rm -f target/wheels/shardscope-*.whl
	VIRTUAL_ENV=$(CURDIR)/$(PY_VENV) $(PY_VENV)/bin/maturin build --release --quiet --out target/wheels
	@ls -l target/wheels/shardscope-*.whl

# The wheel installed into the tests' virtualenv, then tests/python against the command
# line's own output (the debug binary `cargo test` builds).
pytest: wheel
	$(PYTHON) -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps target/wheels/shardscope-*.whl
	cargo build --quiet -p shardscope-cli
	cd tests/python && SHARDSCOPE_CLI=$(CURDIR)/target/debug/shardscope ../../$(PYTHON) -m pytest -q -p no:cacheprovider

# Browser tests only (rebuilds dist/ first).
e2e: build
	scripts/test/e2e.sh

# ---- fuzzing ------------------------------------------------------------------------

CARGO_FUZZ_VERSION := 0.13.2
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := trace_load json_records permalink custom_model custom_machine clock_markers

cargo-fuzz-cli:
	@if [ "$$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $(CARGO_FUZZ_VERSION)" ]; then \
	  echo "installing cargo-fuzz $(CARGO_FUZZ_VERSION)"; \
	  cargo install cargo-fuzz --version $(CARGO_FUZZ_VERSION) --locked; \
	fi
	@command -v c++ >/dev/null || $(SUDO) apt-get install -y g++

# libFuzzer on the one stable toolchain: RUSTC_BOOTSTRAP=1 admits the -Z flags cargo-fuzz
# passes, and --sanitizer none leaves out AddressSanitizer (which needs a nightly std;
# the code has no unsafe, so what the fuzzer hunts is panics, hangs and wrong answers).
# New inputs go to target/fuzz-corpus/; findings to fuzz/artifacts/ (replay one with
# `cargo fuzz run TARGET FILE`, then add it to fuzz/corpus/TARGET/ once fixed: `make test`
# replays that corpus).
fuzz: rust-tools cargo-fuzz-cli
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p target/fuzz-corpus/$$t; \
	  echo "==> fuzz $$t for $(FUZZ_SECONDS) s (log: target/fuzz-$$t.log)"; \
	  if ! (cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run $$t --sanitizer none -O \
	      ../target/fuzz-corpus/$$t corpus/$$t -- \
	      -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
	      -print_final_stats=1) > target/fuzz-$$t.log 2>&1; then \
	    tail -n 40 target/fuzz-$$t.log; echo "fuzz: $$t found a problem (fuzz/artifacts/$$t/)"; exit 1; \
	  fi; \
	  grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb" target/fuzz-$$t.log || true; \
	done

# ---- mutation testing (not part of `make test`) -----------------------------------

# cargo-mutants over the files whose every rule is parity-critical, each group of files
# with the core's tests that exercise it (scripts/test/mutants.sh; the scores and the reasons
# for the survivors are in the README and docs/mutants-equivalent.md). One job: the machines
# have two cores. Results in mutants.out/<group>/. A subset: `make mutants
# MUTANTS_GROUPS=phases` (groups: attribution phases explorer json record).
CARGO_MUTANTS_VERSION := 25.3.1
MUTANTS_GROUPS ?=
MUTANTS_JOBS ?= 1

cargo-mutants-cli:
	@if [ "$$(cargo mutants --version 2>/dev/null)" != "cargo-mutants $(CARGO_MUTANTS_VERSION)" ]; then \
	  echo "installing cargo-mutants $(CARGO_MUTANTS_VERSION) (a few minutes)"; \
	  cargo install cargo-mutants --version $(CARGO_MUTANTS_VERSION) --locked; \
	fi

mutants: rust-tools cargo-mutants-cli
	@MUTANTS_JOBS=$(MUTANTS_JOBS) scripts/test/mutants.sh $(MUTANTS_GROUPS)

# ---- benchmarks ---------------------------------------------------------------------

# The trace benchmark (against stormlog 0.4.3 from PyPI, installed into .tools/ when
# missing) and the explorer benchmark. See scripts/bench/bench.sh.
bench: rust-tools py-venv
	scripts/bench/bench.sh

# The browser's figures (scripts/bench/bench-web.mjs) on the traces `make bench` generates.
bench-web: build
	cargo build --release --quiet -p shardscope-bench -p shardscope-cli
	@mkdir -p bench-data
	@[ -s bench-data/trace-16x12500.json ] || target/release/shardscope-bench gen-trace bench-data/trace-16x12500.json --ranks 16 --samples 12500
	@[ -s bench-data/trace-32x31500.json ] || target/release/shardscope-bench gen-trace bench-data/trace-32x31500.json --ranks 32 --samples 31500
	@[ -s bench-data/trace-64x3125.json ] || target/release/shardscope-bench gen-trace bench-data/trace-64x3125.json --ranks 64 --samples 3125
	@[ -s bench-data/trace-64x3100.json ] || target/release/shardscope-bench gen-trace bench-data/trace-64x3100.json --ranks 64 --samples 3100
	COMPARE=bench-data/trace-64x3125.json,bench-data/trace-64x3100.json \
	  node scripts/bench/bench-web.mjs dist bench-data/trace-16x12500.json bench-data/trace-32x31500.json
