#!/usr/bin/env bash
# Benchmark of the fleet sweep's schedule and blame, by simulation (core/sweep.h; tests/bench/
# sweep_bench.cc): 1,024 and 4,096 nodes × 8 rails in 32-node units. Goals: for 1,024 nodes
# a full schedule under 10 minutes of fabric time at 2 s per test, every node-rail with at
# least two peers; each single bad link blamed exactly with nobody else drained (and the
# rates for 2, 5 and 20 at once); plan + blame for 4,096 nodes under 1 s.
# Usage: ci/bench-sweep.sh [BUILD_DIR] (TRIALS=20)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
bench=$build/tests/railyard_sweep_bench
[[ -x $bench ]] || { echo "build first: cmake --build $build --target railyard_sweep_bench" >&2; exit 2; }
for nodes in 1024 4096; do
  echo "== $nodes nodes"
  "$bench" "$nodes" "${TRIALS:-20}"
done
