#!/usr/bin/env bash
# Routed rails: how long the agent's BGP bring-up takes, from the start of bgpd to every
# rail's session Established with its routes (what the report's `bgp` phase measures), in
# tests/bgp's namespaces against Debian's FRR: two nodes, a leaf per rail. As root.
#   ci/bench-bgp.sh BUILD_DIR [RUNS]
set -euo pipefail
build=${1:?usage: ci/bench-bgp.sh BUILD_DIR [RUNS]}
runs=${2:-5}
src=$(cd "$(dirname "$0")/.." && pwd)
[[ -x $build/tests/railyard_bgp_tests ]] || { echo "bench-bgp: build $build first (cmake --build $build)"; exit 2; }
figures=()
for ((i = 1; i <= runs; i++)); do
  line=$("$src/tests/bgp/run.sh" "$build/railyard" "$build/tests/railyard_bgp_tests" "$src" -s 2>/dev/null |
    grep -o 'Established with its routes after [0-9]* ms' || true)
  [[ -n $line ]] || { echo "bench-bgp: run $i failed (run tests/bgp/run.sh to see why)"; exit 1; }
  ms=${line//[!0-9]/}
  figures+=("$ms")
  echo "run $i: $ms ms"
done
sorted=$(printf '%s\n' "${figures[@]}" | sort -n)
echo "bgpd start → all sessions Established with routes, $runs runs: min $(head -1 <<<"$sorted") ms," \
  "median $(sed -n "$(((runs + 1) / 2))p" <<<"$sorted") ms, max $(tail -1 <<<"$sorted") ms"
