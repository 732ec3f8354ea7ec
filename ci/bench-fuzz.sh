#!/usr/bin/env bash
# A fuzzer run for minutes rather than CI's seconds: tests/fuzz/NAME_fuzz.cc built by clang++
# (tests/fuzz/run.sh, apart from the main build) and run over a copy of its corpus, on
# JOBS processes at once. What libFuzzer found is kept: the grown corpus (worth adding the
# inputs that reach new code to tests/fuzz/corpus/NAME/, after `-merge=1` keeps the fewest)
# and any input that broke the parser, with the sanitizer's report in the log.
# Usage: ci/bench-fuzz.sh [NAME] [SECONDS] (lldp, 300; BUILD=build/fuzz JOBS=1)
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:-lldp}
seconds=${2:-300}
build=${BUILD:-build/fuzz}
jobs=${JOBS:-1}
[[ -f tests/fuzz/${name}_fuzz.cc ]] || { echo "no fuzzer tests/fuzz/${name}_fuzz.cc" >&2; exit 2; }

tests/fuzz/run.sh build "$build"
args=()
# libFuzzer's own processes, each logging to fuzz-N.log in the run's directory.
((jobs > 1)) && args+=(-jobs="$jobs" -workers="$jobs")
s=$(date +%s)
RAILYARD_FUZZ_KEEP=1 tests/fuzz/run.sh run "$build" "$name" "$seconds" "${args[@]}"
echo "bench-fuzz: ${name}_fuzz ran $(( $(date +%s) - s )) s on $jobs process(es), no failure"
