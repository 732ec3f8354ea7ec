#!/usr/bin/env bash
# Benchmark of `railyard report summary` over a fleet of 10,000 realistic first-boot
# reports (tests/report/make_reports.py: HGX, 4-GPU, 8-GPU/4-NIC, storage and lab nodes
# from the hardware fixtures, about 6% failing, some nodes with an earlier boot), stored
# as the receiver stores them (DIR/<node>/<boot>.json). Times the summary from a warm page
# cache (RUNS runs, median wall and CPU time) and prints peak RSS. The target: under 1 s.
# Then times the summary's report reader against a bare simdjson On-Demand walk on the same
# reports from memory (tests/bench/digest_bench.cc), checking both read the same digests.
# Usage: ci/bench-report.sh [BUILD_DIR] (COUNT=10000 RUNS=7; FLEET=DIR keeps and reuses it).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
count=${COUNT:-10000}
runs=${RUNS:-7}
railyard=$build/railyard
[[ -x $railyard ]] || { echo "build first: cmake --build $build" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time missing (apt-get install time)" >&2; exit 2; }

if [[ -n ${FLEET:-} ]]; then
  fleet=$FLEET
else
  fleet=$(mktemp -d)
  trap 'rm -rf "$fleet"' EXIT
fi
if [[ -z $(find "$fleet" -name '*.json' -print -quit 2>/dev/null) ]]; then
  echo "generating $count reports in $fleet ..."
  s=$(date +%s)
  python3 tests/report/make_reports.py . "$fleet" --count "$count" --seed 1
  echo "  generated in $(( $(date +%s) - s )) s"
fi
files=$(find "$fleet" -name '*.json' | wc -l)
bytes=$(du -sb "$fleet" | cut -f1)
echo "fleet: $files report files, $((bytes / 1024 / 1024)) MiB; $(nproc) cores"

median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

"$railyard" report summary "$fleet" >/dev/null || true  # warm the page cache
for mode in text json; do
  flag=()
  [[ $mode == json ]] && flag=(--json)
  results=()
  for ((i = 0; i < runs; i++)); do
    s=$(date +%s%N)
    /usr/bin/time -f '%M %U %S' -o /tmp/railyard-bench.$$ "$railyard" report summary "${flag[@]}" "$fleet" >/dev/null || true
    e=$(date +%s%N)
    results+=("$(( (e - s) / 1000000 )) $(tail -1 /tmp/railyard-bench.$$)")  # after "exited with 1" (failing nodes)
  done
  rm -f /tmp/railyard-bench.$$
  ms=$(printf '%s\n' "${results[@]}" | cut -d' ' -f1 | median)
  rss=$(printf '%s\n' "${results[@]}" | cut -d' ' -f2 | sort -n | tail -1)
  cpu=$(printf '%s\n' "${results[@]}" | awk '{printf "%d\n", ($3 + $4) * 1000}' | median)
  all=$(printf '%s\n' "${results[@]}" | cut -d' ' -f1 | tr '\n' ' ')
  printf 'report summary %-7s median %5s ms wall, %5s ms CPU (user+sys) over %d runs (wall: %s ms)   peak RSS %s KiB\n' \
    "${flag:-(text)}" "$ms" "$cpu" "$runs" "${all% }" "$rss"
done
"$railyard" report summary "$fleet" | head -2 | sed 's/^/  /' || true
# The summary's reader against the bare On-Demand walk, from memory, same digests.
if [[ -x $build/tests/railyard_digest_bench ]]; then
  "$build/tests/railyard_digest_bench" "$fleet" "$runs" | sed 's/^/  /'
fi
echo "  (other load on the machine shows as wall time above CPU time / cores: load average $(cut -d' ' -f1 /proc/loadavg))"
