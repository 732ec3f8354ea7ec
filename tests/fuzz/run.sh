#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/NAME_fuzz.cc) with clang++, apart from the main
# build (tests/fuzz/clang), and runs one over a copy of its corpus (tests/fuzz/corpus/NAME/),
# which stays as it is in the source tree:
#   run.sh build BUILD_DIR                       configure BUILD_DIR once, build every fuzzer
#   run.sh run BUILD_DIR NAME SECONDS [ARGS...]  NAME_fuzz for SECONDS (ARGS go to libFuzzer)
# A run works in a directory of its own under BUILD_DIR/runs/: the corpus it grew and any
# input that broke the parser are kept there when it fails (or with RAILYARD_FUZZ_KEEP=1).
# Without clang++ it fails and says why: never a silent pass.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: run.sh build BUILD_DIR | run.sh run BUILD_DIR NAME SECONDS [LIBFUZZER_ARGS...]"
cmd=${1:?$usage}
build=${2:?$usage}

case $cmd in
build)
  cxx=${RAILYARD_FUZZ_CXX:-clang++}
  if ! command -v "$cxx" >/dev/null; then
    echo "fuzz: $cxx not found; the fuzzers need Clang's libFuzzer (ci/setup-deps.sh installs clang and libclang-rt-14-dev)"
    exit 1
  fi
  if [[ ! -f $build/build.ninja ]]; then
    cmake -S "$here/clang" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
  fi
  cmake --build "$build" --parallel "${RAILYARD_FUZZ_JOBS:-2}"
  ;;
run)
  name=${3:?$usage}
  seconds=${4:?$usage}
  shift 4
  fuzzer=$build/${name}_fuzz
  seeds=$here/corpus/$name
  [[ -x $fuzzer ]] || { echo "fuzz: no $fuzzer; run.sh build $build first"; exit 1; }
  [[ -d $seeds ]] || { echo "fuzz: no corpus $seeds"; exit 1; }
  mkdir -p "$build/runs"
  work=$(mktemp -d "$build/runs/$name.XXXXXX")
  cp -r "$seeds" "$work/corpus"
  echo "fuzz: ${name}_fuzz for $seconds s over a copy of $seeds, in $work"
  # One input that runs for seconds is a finding too (-timeout), as a crash is.
  # Run in $work, where libFuzzer's other files (fuzz-N.log with -jobs) go too.
  if ! (cd "$work" && "$fuzzer" -max_total_time="$seconds" -timeout=5 -print_final_stats=1 -artifact_prefix="$work/" \
      "$@" "$work/corpus"); then
    echo "fuzz: ${name}_fuzz failed; the input that did it is in $work:"
    find "$work" -maxdepth 1 -type f -printf '  %f\n'
    exit 1
  fi
  if [[ ${RAILYARD_FUZZ_KEEP:-0} == 1 ]]; then
    echo "fuzz: the corpus grew to $(find "$work/corpus" -type f | wc -l) inputs, kept in $work/corpus"
  else
    rm -rf "$work"
  fi
  ;;
*)
  echo "$usage"
  exit 2
  ;;
esac
