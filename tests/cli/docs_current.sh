#!/usr/bin/env bash
# docs/*.md are generated from the key tables; regenerate with `cmake --build build --target docs`.
set -euo pipefail
railyard=$1 src=$2
for what in recipe drivers nodes checks; do
  if ! diff -u "$src/docs/$what.md" <("$railyard" docs "$what"); then
    echo "docs/$what.md is stale: run cmake --build <build dir> --target docs"
    exit 1
  fi
done
echo "docs: current"
