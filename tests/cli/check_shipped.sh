#!/usr/bin/env bash
# Every shipped recipe, driver manifest and example inventory passes `railyard check`,
# and so does the embedded default recipe. A recipe named from inside recipes/ (or deeper)
# finds drivers/ and overlays/ above its own directory, as it does from the top.
set -euo pipefail
railyard=$1 src=$2
cd "$src"
"$railyard" check -q recipes/*.toml recipes/inventories/*.toml drivers/*.toml
"$railyard" check -q
(cd recipes && "$railyard" check -q qemu-virt.toml && "$railyard" show qemu-virt.toml >/dev/null)
(cd recipes/inventories && "$railyard" check -q qemu-lab.toml ../qemu-virt.toml)
(cd recipes/base && "$railyard" check -q ../gpu4-cx6dx-100g.toml)
echo "shipped data: ok"
