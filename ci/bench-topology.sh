#!/usr/bin/env bash
# Benchmark of the fabric's topology from a fleet's reports: `railyard report topology` over
# COUNT (10,000) generated reports whose nodes reach their rack's leaves (a scalable unit
# per rack of 40, one node in 997 with a rail in the next rack's leaf; tests/report/
# make_reports.py), from a warm page cache, RUNS runs, median wall and CPU time. Target:
# under 1 s. Then the fleet page over PAGE_COUNT (4,096) such reports: its size, and the
# time headless Chromium takes to load and lay it out (--dump-dom, median of RUNS).
# Usage: ci/bench-topology.sh [BUILD_DIR] (COUNT=10000 PAGE_COUNT=4096 RUNS=5)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
count=${COUNT:-10000}
page_count=${PAGE_COUNT:-4096}
runs=${RUNS:-5}
railyard=$build/railyard
chromium=/usr/bin/chromium
[[ -x $railyard ]] || { echo "build first: cmake --build $build" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time missing (apt-get install time)" >&2; exit 2; }
[[ -x $chromium ]] || { echo "$chromium missing (ci/setup-deps.sh installs it)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

echo "generating $count and $page_count reports ..."
python3 tests/report/make_reports.py . "$tmp/fleet" --count "$count" --seed 1
python3 tests/report/make_reports.py . "$tmp/page" --count "$page_count" --seed 2
echo "fleet: $(find "$tmp/fleet" -name '*.json' | wc -l) report files, $(($(du -sb "$tmp/fleet" | cut -f1) / 1024 / 1024)) MiB; $(nproc) cores"

"$railyard" report topology "$tmp/fleet" >/dev/null 2>&1 || true  # warm the page cache
results=()
for ((i = 0; i < runs; i++)); do
  s=$(date +%s%N)
  /usr/bin/time -f '%M %U %S' -o "$tmp/time" "$railyard" report topology "$tmp/fleet" -o "$tmp/topology.conf" \
    2>"$tmp/err" || true
  e=$(date +%s%N)
  results+=("$(( (e - s) / 1000000 )) $(tail -1 "$tmp/time")")
done
ms=$(printf '%s\n' "${results[@]}" | cut -d' ' -f1 | median)
cpu=$(printf '%s\n' "${results[@]}" | awk '{printf "%d\n", ($3 + $4) * 1000}' | median)
rss=$(printf '%s\n' "${results[@]}" | cut -d' ' -f2 | sort -n | tail -1)
printf 'report topology: median %s ms wall, %s ms CPU over %d runs (target: under 1000 ms); peak RSS %s KiB\n' \
  "$ms" "$cpu" "$runs" "$rss"
echo "  $(grep -c '^SwitchName=' "$tmp/topology.conf") switch lines; $(tail -1 "$tmp/err")"

"$railyard" report html "$tmp/page" -o "$tmp/page.html" 2>/dev/null || true
echo "fleet page, $page_count nodes: $(($(stat -c %s "$tmp/page.html") / 1024)) KiB"
times=()
for ((i = 0; i < runs; i++)); do
  profile=$(mktemp -d "$tmp/profile.XXXXXX")
  s=$(date +%s%N)
  timeout 300 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$profile" \
    --dump-dom "file://$tmp/page.html" >"$tmp/dom.html" 2>>"$tmp/chromium.log"
  e=$(date +%s%N)
  times+=("$(( (e - s) / 1000000 ))")
done
echo "  headless Chromium, load and lay out (--dump-dom, the browser's start included): median $(printf '%s\n' "${times[@]}" | median) ms over $runs runs"
