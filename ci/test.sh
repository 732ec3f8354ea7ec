#!/usr/bin/env bash
# Runs every test: installs what is missing, builds with warnings as errors, runs ctest
# with all labels (unit, fixture, netns, e2e). This is the README's test command.
set -euo pipefail
cd "$(dirname "$0")/.."

./ci/setup-deps.sh
build=${RAILYARD_TEST_BUILD:-build/ci}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAILYARD_WERROR=ON >/dev/null
cmake --build "$build" --parallel "$(nproc)"
ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" "$@"
