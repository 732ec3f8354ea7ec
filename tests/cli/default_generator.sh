#!/usr/bin/env bash
# What a newcomer or a packager types: CMake's default generator (Unix Makefiles) and a
# Release build. Building the agent package must end (its cpack step once recursed into
# `all` without end under Makefiles), print no compiler warning, and yield the .deb.
#   default_generator.sh SOURCE_DIR
set -euo pipefail
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
MAKEFLAGS=-j"$(nproc)"
export MAKEFLAGS
cmake -S "$src" -B "$tmp/b" -DCMAKE_BUILD_TYPE=Release >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; exit 1; }
grep -q 'CMAKE_GENERATOR:INTERNAL=Unix Makefiles' "$tmp/b/CMakeCache.txt" || { echo "default generator is not Unix Makefiles"; exit 1; }
# timeout signals its whole process group: a recursion is stopped with everything it spawned.
set +e
timeout -k 10 1200 cmake --build "$tmp/b" --target agent-package >"$tmp/build.log" 2>&1
rc=$?
set -e
if ((rc != 0)); then
  tail -n 40 "$tmp/build.log"
  echo "cmake --build --target agent-package exited $rc (124: did not end within 20 minutes)"
  exit 1
fi
cpacks=$(grep -c 'Packaging the agent' "$tmp/build.log" || true)
[[ $cpacks -eq 1 ]] || { echo "the agent was packaged $cpacks times, want once"; exit 1; }
if grep -n 'warning:' "$tmp/build.log"; then
  echo "the Release build printed warnings"
  exit 1
fi
ls "$tmp/b/packages/"railyard-firstboot_*.deb >/dev/null
dpkg-deb --field "$tmp/b/packages/"railyard-firstboot_*.deb Package | grep -qx railyard-firstboot
# A second build has nothing to do and ends at once.
timeout -k 10 120 cmake --build "$tmp/b" --target agent-package >"$tmp/again.log" 2>&1
! grep -q 'Packaging the agent' "$tmp/again.log" || { echo "a second build packaged the agent again"; exit 1; }
echo "default generator: ok"
