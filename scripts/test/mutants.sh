#!/usr/bin/env bash
# Mutation testing of the parity-critical core files (`make mutants`), one group of files
# at a time, each with the core's tests that exercise it: cargo-mutants builds and runs
# only those test targets per mutant (a third of the time of the whole suite). A mutant a
# test outside its group would catch counts as missed, so the scores are a lower bound.
#
#   scripts/test/mutants.sh                 every group
#   scripts/test/mutants.sh attribution     one group (attribution, phases, explorer, json, record, load, session)
#   MUTANTS_ARGS=--iterate scripts/test/mutants.sh attribution
#                                      only what the last run of the group did not catch
#   MUTANTS_FILES="crates/explorer/src/sweep.rs crates/explorer/src/batch.rs" \
#     scripts/test/mutants.sh explorer  some of a group's files, with its tests
#
# Results: mutants.out/<group>/mutants.out/{caught,missed,timeout,unviable}.txt; the
# per-file table at the end (scripts/test/mutants_score.py) is what the README quotes.
set -euo pipefail
cd "$(dirname "$0")/../.."

# group | package mutated | files (cargo-mutants globs) | test targets [| test filters]
# Each group's tests run in its own package (its unit tests, `--lib`) and in
# shardscope-core, which holds the integration tests (`--test=…`) over every layer.
# The record group skips the two byte-range tests of trace_loading (9 of its 10 s; they
# test where ranges are cut, not what a record means).
GROUPS_TABLE='
attribution|shardscope-attribution|crates/attribution/src/attribution/mod.rs crates/attribution/src/attribution/config.rs|--lib --test=attribution_edges --test=attribution_fixtures --test=attribution_props --test=tui_artifacts
phases|shardscope-attribution|crates/attribution/src/phases.rs|--lib --test=attribution_fixtures --test=attribution_edges --test=tui_artifacts
explorer|shardscope-explorer|crates/explorer/src/*.rs|--lib --test=explorer_golden --test=explorer_model --test=explorer_pareto --test=explorer_sweep|--skip sixty_four_ranks_of_ten_thousand_markers_align
json|shardscope-trace|crates/trace/src/json/*.rs|--lib --test=json_props --test=trace_loading --test=record_edges --test=attribution_fixtures --test=split_props
record|shardscope-trace|crates/trace/src/trace/record/*.rs|--lib --test=record_edges --test=trace_loading --test=attribution_fixtures --test=split_props --test=tui_artifacts|--skip ranges_of_any_size --skip records_longer_than_the_first_slack
load|shardscope-trace|crates/trace/src/trace/timeline.rs crates/trace/src/trace/load/distributed.rs|--lib --test=tui_artifacts --test=trace_loading --test=attribution_fixtures --test=archives|--skip ranges_of_any_size --skip records_longer_than_the_first_slack
session|shardscope-session|crates/session/src/permalink.rs crates/session/src/source.rs crates/session/src/scenario_list.rs crates/session/src/trace_settings.rs|--lib --test=permalink_props --test=link_edges
'
# Property tests run with fewer cases per mutant (trace_loading honours PROPTEST_CASES).
export PROPTEST_CASES=${PROPTEST_CASES:-16}

wanted=("$@")
jobs=${MUTANTS_JOBS:-1}
status=0
while IFS='|' read -r group package files tests filters; do
  [ -n "$group" ] || continue
  if [ ${#wanted[@]} -gt 0 ] && [[ ! " ${wanted[*]} " == *" $group "* ]]; then
    continue
  fi
  files=${MUTANTS_FILES:-$files}
  echo "== $group: $files"
  file_args=()
  for f in $files; do file_args+=(--file "$f"); done
  mkdir -p "mutants.out/$group"
  # The test targets go to every cargo call (`--cargo-arg`), so each mutant builds only
  # them, not the package's other test binaries (half the time of a mutant).
  target_args=()
  for t in $tests; do target_args+=("--cargo-arg=$t"); done
  filter_args=()
  # shellcheck disable=SC2206 # the filters are separate words on purpose
  if [ -n "${filters:-}" ]; then filter_args=(-- -- $filters); fi
  # The unmutated tree first, here: cargo-mutants 25.3's own baseline runs the tests of
  # the mutated package only (it ignores --test-package there, not for the mutants), so
  # it cannot build test targets that live in shardscope-core.
  # Built first, then timed: a mutant's tests may take five times as long (at least 30 s).
  # shellcheck disable=SC2086 # the targets and filters are separate words on purpose
  cargo test --no-run --profile mutants --package "$package" --package shardscope-core $tests \
    > "mutants.out/$group/baseline.log" 2>&1 || true
  started=$(date +%s)
  if ! cargo test --profile mutants --package "$package" --package shardscope-core $tests \
    ${filters:+-- $filters} >> "mutants.out/$group/baseline.log" 2>&1; then
    echo "== $group: the unmutated tree fails its tests (mutants.out/$group/baseline.log)"
    status=1
    continue
  fi
  timeout=$(( ($(date +%s) - started) * 5 ))
  if [ "$timeout" -lt 30 ]; then timeout=30; fi
  # shellcheck disable=SC2086 # MUTANTS_ARGS is separate words on purpose
  cargo mutants --package "$package" --test-package "$package,shardscope-core" --jobs "$jobs" \
    --baseline skip --timeout "${MUTANTS_TIMEOUT:-$timeout}" \
    --profile mutants --output "mutants.out/$group" "${file_args[@]}" "${target_args[@]}" \
    ${MUTANTS_ARGS:-} "${filter_args[@]}" || status=$?
done <<< "$GROUPS_TABLE"

# The per-file scores (survivors listed as equivalent in docs/mutants-equivalent.md excluded).
python3 scripts/test/mutants_score.py
exit $status
