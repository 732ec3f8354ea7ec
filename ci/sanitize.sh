#!/usr/bin/env bash
# The unit, fixture and netns tests once more, built with AddressSanitizer and
# UndefinedBehaviorSanitizer: a read past a buffer, a use after free, a leak or undefined
# behaviour fails the test that caused it. ci/test.sh runs it after the main build's tests.
# Optimised lightly and without debug information, so that the second build costs little;
# the parsers' fuzzers (tests/fuzz) already run sanitized and are left out, as are the e2e
# boots (QEMU, not our code under test) and the default-generator build.
#   ci/sanitize.sh [extra ctest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

build=${RAILYARD_SANITIZE_BUILD:-build/sanitize}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_FLAGS="-O1" -DRAILYARD_WERROR=ON \
  -DRAILYARD_SANITIZE=ON >/dev/null
cmake --build "$build" --parallel "$(nproc)" --target railyard railyard-firstboot railyard_unit_tests \
  railyard_builder_tests railyard_agent_tests railyard_udev_tests railyard_netns_tests railyard_slurm_tests \
  railyard_bgp_tests nvml_double cuda_double
# umockdev's preload library comes before the sanitizer's runtime in the fixture tests; the
# runtime still intercepts what it must.
export ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" -L 'unit|fixture|netns' \
  -E '^(cli_default_generator|fuzz_.*|lint_.*)$' "$@"
