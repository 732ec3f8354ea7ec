#!/usr/bin/env bash
# First boot of two builds, measured in turns (A, B, A, B, ...) on the same machine, so that
# the host's own drift (under TCG a 2-core host moves one build's figure by +-7 s within an
# hour) falls on both sides alike. Every run boots the same way, whatever the build: that
# build's lab image (BUILD/e2e/images/qemu-virt, built by its e2e tests or its
# ci/bench-e2e.sh) under that build's `railyard qemu`, as lab-node01 beside its storage target
# (lab-target01, which is also the rails' leaf and, where the recipe has one, the Slurm
# controller), with a `railyard collect` of the build's own taking the report; nothing else
# in the guest (no railyard.qemu.bench=1, whose server on the target competes for the host's
# CPUs). From the node's console, in the guest's uptime: the kernel's /init, the agent's start
# (its self-test line less its phases), its PASS line, its result line (boot to joined) and the
# report's export.
# Usage: ci/bench-boot-ab.sh BUILD_A BUILD_B [RUNS_EACH]   (as root; default 8 runs each)
#        RAILYARD_BENCH_AB_LOG=DIR keeps each run's files in DIR (a-1/, b-1/, ...).
# Example, a release against the one before it (a worktree of the older commit, configured,
# built and its lab image made):
#   git worktree add /tmp/old OLD && cmake -S /tmp/old -B /tmp/old/build -G Ninja && ninja -C /tmp/old/build
#   (cd /tmp/old && bash ci/bench-e2e.sh build)
#   ci/bench-boot-ab.sh /tmp/old/build build 10
set -euo pipefail
cd "$(dirname "$0")/.."
(($# >= 2)) || { sed -n '2,19p' "$0" >&2; exit 2; }
runs=${3:-8}
[[ $runs =~ ^[1-9][0-9]?$ ]] || { echo "bench-boot-ab: RUNS_EACH must be 1-99, not '$runs'" >&2; exit 2; }

declare -A src build
for side in a b; do
  dir=$([[ $side == a ]] && echo "$1" || echo "$2")
  b=$(realpath "$dir" 2>/dev/null) || { echo "bench-boot-ab: no build directory '$dir'" >&2; exit 2; }
  [[ -f $b/CMakeCache.txt ]] || { echo "bench-boot-ab: $b: no CMakeCache.txt (not a configured build)" >&2; exit 2; }
  s=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$b/CMakeCache.txt")
  [[ -f $s/recipes/inventories/qemu-lab.toml ]] || { echo "bench-boot-ab: $s: no lab inventory (the source tree of $b)" >&2; exit 2; }
  [[ -x $b/railyard ]] || { echo "bench-boot-ab: build first: cmake --build $b" >&2; exit 2; }
  [[ -f $b/e2e/images/qemu-virt/manifest.json ]] ||
    { echo "bench-boot-ab: $b/e2e/images/qemu-virt: no lab image (run ci/bench-e2e.sh $b in $s first)" >&2; exit 2; }
  src[$side]=$s
  build[$side]=$b
done
log=${RAILYARD_BENCH_AB_LOG:-}
if [[ -n $log ]]; then
  mkdir -p "$log"
  log=$(realpath "$log")
else
  log=$(mktemp -d "${TMPDIR:-/tmp}/railyard-bench-ab.XXXXXX")
  trap 'rm -rf "$log"' EXIT
fi

# One run of SIDE: its files in $log/SIDE-N; prints its figures (figures.py's line).
one() {
  local side=$1 n=$2 dir=$log/$1-$2 railyard=${build[$1]}/railyard collector='' pid _ rc=0
  rm -rf "$dir" && mkdir -p "$dir"
  "$railyard" collect --listen 127.0.0.1:0 --dir "$dir/collected" >"$dir/collect.out" 2>"$dir/collect.err" &
  pid=$!
  for _ in $(seq 100); do
    collector=$(sed -n 's/^railyard collect: listening on \(127\.0\.0\.1:[0-9]*\)$/\1/p' "$dir/collect.out")
    [[ -n $collector ]] && break
    sleep 0.1
  done
  [[ -n $collector ]] || { cat "$dir/collect.err" >&2; kill "$pid" 2>/dev/null; exit 1; }
  timeout 1500 "$railyard" qemu "${build[$side]}/e2e/images/qemu-virt" --collector "$collector" --storage-target \
    --nodes "${src[$side]}/recipes/inventories/qemu-lab.toml" --node lab-node01 --target-node lab-target01 \
    --run-dir "$dir/run" --timeout 1200 >"$dir/qemu.out" 2>&1 || rc=$?
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if ((rc != 0)); then
    echo "bench-boot-ab: run $side-$n: railyard qemu exited $rc; its output:" >&2
    tail -n 30 "$dir/qemu.out" >&2
    exit 1
  fi
  python3 "$log/figures.py" "$dir/run/node"
}

# The figures of one run, from the node's console (the kernel's and the agent's lines carry
# the uptime) and its exported status: /init, agent start, PASS, result, export.
cat >"$log/figures.py" <<'PY'
import json, os, re, sys
node = sys.argv[1]
text = open(os.path.join(node, "console.log"), errors="replace").read()
def at(pattern):
    m = re.search(r"\[ *([0-9]+\.[0-9]+)\][^\n]*?" + pattern, text)
    return float(m.group(1)) if m else None
init = at(r"Run /init as init process")
verdict = at(r"railyard self-test for [^\n]*: (?:PASS|FAIL)")
result = at(r"railyard: result=")
phases = re.search(r"phases: discover (\d+) ms plan (\d+) ms apply (\d+) ms verify (\d+) ms", text)
try:
    export = json.load(open(os.path.join(node, "status.json"))).get("report_uptime_s")
except (OSError, ValueError):
    export = None
if None in (init, verdict, result) or not phases:
    sys.exit("bench-boot-ab: %s: the console lacks the kernel's /init, the agent's verdict, its phases or its result line" % node)
start = verdict - sum(int(x) for x in phases.groups()) / 1000
print("%.2f %.2f %.2f %.2f %s" % (init, start, verdict, result, "%.2f" % export if isinstance(export, (int, float)) else "-"))
PY

declare -a fa fb
echo "A: ${build[a]} (source ${src[a]})"
echo "B: ${build[b]} (source ${src[b]})"
echo "runs in turns, $runs each; the guest's uptime (s) at: /init, the agent's start, its verdict, its result line (joined), the report's export"
for ((i = 1; i <= runs; i++)); do
  for side in a b; do
    line=$(one "$side" "$i")
    if [[ $side == a ]]; then fa+=("$line"); else fb+=("$line"); fi
    read -r init start verdict result export <<<"$line"
    printf '  %s-%-2d /init %6s  agent %6s  verdict %6s  joined %6s  export %6s  %s\n' "${side^^}" "$i" "$init" "$start" \
      "$verdict" "$result" "$export" "$(date +%H:%M:%S)"
  done
done

python3 - "$(printf '%s\n' "${fa[@]}")" "$(printf '%s\n' "${fb[@]}")" <<'PY'
import statistics, sys
def rows(text):
    return [line.split() for line in text.strip().splitlines()]
a, b = rows(sys.argv[1]), rows(sys.argv[2])
names = ["/init", "agent start", "verdict (PASS/FAIL)", "joined (result line)"]
for k, name in enumerate(names):
    xa, xb = [float(r[k]) for r in a], [float(r[k]) for r in b]
    ma, mb = statistics.median(xa), statistics.median(xb)
    pairs = [y / x for x, y in zip(xa, xb)]
    print("%-22s A median %5.1f s  B median %5.1f s  B/A %.2fx (run by run %s)"
          % (name, ma, mb, mb / ma, " ".join("%.2f" % p for p in pairs)))
PY
