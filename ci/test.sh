#!/usr/bin/env bash
# Runs every test once: installs what is missing, builds with warnings as errors, then runs
# the unit, fixture and netns tests under AddressSanitizer and UBSan (ci/sanitize.sh) and
# everything else from the main build: the e2e boots, the linters, the fuzzers (each built
# sanitized on its own) and the default-generator build, which sanitize.sh leaves out. This
# is the README's test command.
# Arguments go to one ctest of the main build instead (ci/test.sh -L unit: the unit tests
# without the sanitizers).
set -euo pipefail
cd "$(dirname "$0")/.."

./ci/setup-deps.sh
build=${RAILYARD_TEST_BUILD:-build/ci}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAILYARD_WERROR=ON >/dev/null
cmake --build "$build" --parallel "$(nproc)"
run=(ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)")
if (($# > 0)); then exec "${run[@]}" "$@"; fi
"${run[@]}" -LE 'unit|fixture|netns'
# The tests with those labels that sanitize.sh leaves out (its -E).
"${run[@]}" -R '^(cli_default_generator|fuzz_.*|lint_.*)$'
./ci/sanitize.sh
