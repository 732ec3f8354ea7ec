#!/usr/bin/env bash
# Load and abuse figures for the report receiver (tests/bench/collect_load.py): 200 slow
# clients dripping a header byte every 5 s while valid reports are POSTed (each must be
# answered within 1 s), then 10,000 valid reports from 100 parallel clients, every one
# answered 201 and stored byte for byte; prints the rate. Then hostile bodies
# (tests/bench/collect_abuse.py): 8 MiB of unclosed '[', four 8 MiB plans of {} with junk
# tokens at once, 100 connections holding 8 MiB bodies, a number no double holds; prints
# the receiver's peak memory after each and checks a valid report is still stored at once.
# Usage: ci/bench-collect.sh [BUILD_DIR] (SLOW=200 SLOW_GAP=5 COUNT=10000 CLIENTS=100;
# ABUSE=only runs the hostile part alone).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
railyard=$build/railyard
[[ -x $railyard ]] || { echo "build first: cmake --build $build" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ulimit -n 4096 2>/dev/null || true
echo "receiver: $railyard collect on 127.0.0.1; $(nproc) cores"
if [[ ${ABUSE:-} != only ]]; then
  python3 tests/bench/collect_load.py "$railyard" tests/report/golden/hgx-pass.json "$work/load"
fi
mkdir -p "$work/abuse"
python3 tests/bench/collect_abuse.py "$railyard" tests/report/golden/hgx-pass.json "$work/abuse"
