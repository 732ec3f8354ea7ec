#!/usr/bin/env bash
# Benchmark of the agent's discovery and planning on the 8-GPU / 8-NIC HGX fixture:
# `railyard-firstboot discover --json` and `plan --json`, each timed
#   (a) as a whole command, umockdev testbed included, against `umockdev-run -- true`;
#   (b) alone, run repeatedly inside one testbed: the agent's own share.
# Prints median wall time and peak RSS. Usage: ci/bench-discover.sh [BUILD_DIR] (RUNS=20).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
runs=${RUNS:-20}
agent=$build/railyard-firstboot
fixture=tests/fixtures/hw/hgx-8x8.umockdev
args=(--recipe recipes/hgx-h100-8x400g.toml --node tests/fixtures/nodes/hgx-n01.toml)
[[ -x $agent ]] || { echo "build first: cmake --build $build" >&2; exit 2; }
command -v umockdev-run >/dev/null || { echo "umockdev-run missing (ci/setup-deps.sh)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time missing (apt-get install time)" >&2; exit 2; }

median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

# One line per run: "<wall ms> <max rss KiB>".
time_runs() {
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f '%e %M' -o /tmp/railyard-bench.$$ "$@" >/dev/null
    awk '{printf "%d %d\n", $1 * 1000, $2}' /tmp/railyard-bench.$$
  done
  rm -f /tmp/railyard-bench.$$
}

report() {  # label, then lines "<ms> <kib>" on stdin
  local data
  data=$(cat)
  printf '%-44s median %6s ms   peak RSS %6s KiB\n' "$1" \
    "$(cut -d' ' -f1 <<<"$data" | median)" "$(cut -d' ' -f2 <<<"$data" | sort -n | tail -1)"
}

echo "fixture $fixture, $runs runs each"
time_runs umockdev-run -d "$fixture" -- true | report "umockdev-run -- true (baseline)"
time_runs umockdev-run -d "$fixture" -- "$agent" "${args[@]}" discover --json | report "umockdev-run -- discover --json"
time_runs umockdev-run -d "$fixture" -- "$agent" "${args[@]}" plan --json | report "umockdev-run -- plan --json"

# Inside one testbed, so its set-up is paid once: the agent's own time and peak RSS.
# shellcheck disable=SC2016  # the script is for the inner bash; its $1 is not ours
inside=$(umockdev-run -d "$fixture" -- bash -c '
  agent=$1; shift; runs=$1; shift
  "$agent" "$@" plan --json >/dev/null  # warm the page cache
  for cmd in discover plan; do
    for ((i = 0; i < runs; i++)); do
      s=$(date +%s%N)
      /usr/bin/time -f "%M" -o /tmp/railyard-rss.$$ "$agent" "$@" $cmd --json >/dev/null
      e=$(date +%s%N)
      echo "$cmd $(( (e - s) / 1000 )) $(cat /tmp/railyard-rss.$$)"
    done
  done
  rm -f /tmp/railyard-rss.$$' _ "$agent" "$runs" "${args[@]}")
for cmd in discover plan; do
  us=$(awk -v c=$cmd '$1 == c {print $2}' <<<"$inside" | median)
  rss=$(awk -v c=$cmd '$1 == c {print $3}' <<<"$inside" | sort -n | tail -1)
  printf '%-44s median %6.1f ms   peak RSS %6s KiB\n' "agent alone in the testbed: $cmd --json" \
    "$(awk -v u="$us" 'BEGIN {print u / 1000}')" "$rss"
done
