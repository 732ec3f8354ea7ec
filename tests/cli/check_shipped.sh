#!/usr/bin/env bash
# Every shipped recipe, driver manifest and example inventory passes `railyard check`,
# and so does the embedded default recipe.
set -euo pipefail
railyard=$1 src=$2
cd "$src"
"$railyard" check -q recipes/*.toml recipes/inventories/*.toml drivers/*.toml
"$railyard" check -q
echo "shipped data: ok"
