#!/usr/bin/env bash
# Boot-to-joined of two builds, measured in turns (A, B, A, B, ...) on the same machine, so
# that the host's own drift (under TCG a 2-core host moves one build's figure by +-7 s within
# an hour) falls on both sides alike. Each run is that build's own ci/bench-e2e.sh (its own
# railyard qemu, image and recipe, both VMs), from the source tree the build was configured
# from. The figure compared is the one every release's bench prints: the guest's uptime when
# the node's report was exported (after the agent's result line and its join); builds that
# print the result line's uptime too get it listed beside it.
# Usage: ci/bench-boot-ab.sh BUILD_A BUILD_B [RUNS_EACH]   (as root; default 8 runs each)
#        RAILYARD_BENCH_AB_LOG=DIR keeps each run's output in DIR (a-1.txt, b-1.txt, ...).
# Example, a release against the one before it (a worktree of the older commit, configured
# and built into its own build directory):
#   git worktree add /tmp/old OLD && cmake -S /tmp/old -B /tmp/old/build -G Ninja && ninja -C /tmp/old/build
#   ci/bench-boot-ab.sh /tmp/old/build build 10
set -euo pipefail
cd "$(dirname "$0")/.."
(($# >= 2)) || { sed -n '2,14p' "$0" >&2; exit 2; }
runs=${3:-8}
[[ $runs =~ ^[1-9][0-9]?$ ]] || { echo "bench-boot-ab: RUNS_EACH must be 1-99, not '$runs'" >&2; exit 2; }

declare -A src build
for side in a b; do
  dir=$([[ $side == a ]] && echo "$1" || echo "$2")
  b=$(realpath "$dir" 2>/dev/null) || { echo "bench-boot-ab: no build directory '$dir'" >&2; exit 2; }
  [[ -f $b/CMakeCache.txt ]] || { echo "bench-boot-ab: $b: no CMakeCache.txt (not a configured build)" >&2; exit 2; }
  s=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$b/CMakeCache.txt")
  [[ -f $s/ci/bench-e2e.sh ]] || { echo "bench-boot-ab: $s: no ci/bench-e2e.sh (the source tree of $b)" >&2; exit 2; }
  [[ -x $b/railyard ]] || { echo "bench-boot-ab: build first: cmake --build $b" >&2; exit 2; }
  src[$side]=$s
  build[$side]=$b
done
log=${RAILYARD_BENCH_AB_LOG:-}
if [[ -n $log ]]; then
  mkdir -p "$log"
else
  log=$(mktemp -d "${TMPDIR:-/tmp}/railyard-bench-ab.XXXXXX")
  trap 'rm -rf "$log"' EXIT
fi

# One run: the report's uptime, the result line's, and the result over the kernel's time to
# /init ("-" for what that release's bench does not print).
one() {
  local side=$1 n=$2 out
  out=$log/$side-$n.txt
  if ! bash "${src[$side]}/ci/bench-e2e.sh" "${build[$side]}" >"$out" 2>&1; then
    echo "bench-boot-ab: run $side-$n failed; its output:" >&2
    tail -n 30 "$out" >&2
    exit 1
  fi
  python3 - "$out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
report = re.search(r"report exported at ([0-9.]+) s", text) or re.search(r"^boot to report: ([0-9.]+) s", text, re.M)
result = re.search(r"^boot to (?:joined|result[^:]*): ([0-9.]+) s", text, re.M)
if not report:
    sys.exit("bench-boot-ab: no boot figure in " + sys.argv[1])
over = re.search(r"boot to joined over it: ([0-9.]+)x", text)
print(report.group(1), result.group(1) if result else "-", over.group(1) + "x" if over else "-")
PY
}

declare -a fa fb
echo "A: ${build[a]} (source ${src[a]})"
echo "B: ${build[b]} (source ${src[b]})"
echo "runs in turns, $runs each; the guest's uptime at the report's export (at the result line, over /init)"
for ((i = 1; i <= runs; i++)); do
  for side in a b; do
    read -r rep res over < <(one "$side" "$i")
    if [[ $side == a ]]; then fa+=("$rep"); else fb+=("$rep"); fi
    printf '  %s-%-2d %6s s  (%s, %s)  %s\n' "${side^^}" "$i" "$rep" "$res" "$over" "$(date +%H:%M:%S)"
  done
done

python3 - "${fa[*]}" "${fb[*]}" <<'PY'
import statistics, sys
a = [float(x) for x in sys.argv[1].split()]
b = [float(x) for x in sys.argv[2].split()]
ma, mb = statistics.median(a), statistics.median(b)
print("A: %s  median %.1f s" % (" ".join("%.1f" % x for x in a), ma))
print("B: %s  median %.1f s" % (" ".join("%.1f" % x for x in b), mb))
pairs = [y / x for x, y in zip(a, b)]
print("B/A: medians %.2fx; run by run (each B over the A before it) %s, median %.2fx"
      % (mb / ma, " ".join("%.2f" % r for r in pairs), statistics.median(pairs)))
PY
