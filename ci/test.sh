#!/usr/bin/env bash
# Runs every test: installs what is missing, builds with warnings as errors, runs ctest
# with all labels (unit, fixture, netns, e2e), then the unit, fixture and netns tests again
# under AddressSanitizer and UBSan (ci/sanitize.sh). This is the README's test command.
# Arguments go to the first ctest; with any, the sanitizer run is left out.
set -euo pipefail
cd "$(dirname "$0")/.."

./ci/setup-deps.sh
build=${RAILYARD_TEST_BUILD:-build/ci}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAILYARD_WERROR=ON >/dev/null
cmake --build "$build" --parallel "$(nproc)"
ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" "$@"
if (($# == 0)); then ./ci/sanitize.sh; fi
