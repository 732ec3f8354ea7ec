#!/usr/bin/env bash
# The main job on the embedded default recipe (recipes/qemu-virt.toml): installs what is
# missing, builds railyard, validates the shipped recipes, manifests and inventories, and
# prints the resolved default recipe. Later stages (image build, QEMU boot) extend this.
set -euo pipefail
cd "$(dirname "$0")/.."

./ci/setup-deps.sh
build=${RAILYARD_DEMO_BUILD:-build/demo}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --parallel "$(nproc)"
railyard="$build/railyard"

echo "== railyard check (the embedded default recipe, then everything shipped)"
"$railyard" check
"$railyard" check recipes/*.toml recipes/inventories/*.toml drivers/*.toml
echo "== railyard show (the embedded default recipe, resolved)"
"$railyard" show
echo "== railyard build --dry-run (the image's stages and their cache keys)"
"$railyard" build --dry-run recipes/qemu-virt.toml

echo "== railyard-firstboot plan (the default recipe on its modelled QEMU hardware, tests/fixtures/hw)"
umockdev-run -d tests/fixtures/hw/qemu-virt.umockdev -- "$build/railyard-firstboot" \
  --recipe recipes/qemu-virt.toml --node tests/fixtures/nodes/lab-node01.toml plan
