#!/usr/bin/env bash
# The report reader's parse time against body size, for the shapes a hostile client sends
# the receiver (tests/bench/parse_scale_bench.cc): an array of 100,000s of {}, an object of
# as many keys, an unclosed [ on every byte, a number no double holds at the end. Linear
# means a flat ns/byte column; the receiver's worst request is the 8 MiB row.
# Usage: ci/bench-parse.sh [BUILD_DIR] (MAX_BYTES=8388608 RUNS=5).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
bench=$build/tests/railyard_parse_scale_bench
[[ -x $bench ]] || { echo "build first: cmake --build $build --target railyard_parse_scale_bench" >&2; exit 2; }
echo "report reader, parse time by body size; $(nproc) cores"
"$bench" "${MAX_BYTES:-8388608}" "${RUNS:-5}"
