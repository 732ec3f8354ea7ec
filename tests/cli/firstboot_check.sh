#!/usr/bin/env bash
# The agent validates the recipe and node identity the image carries; bad input exits 2.
set -euo pipefail
agent=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$src/recipes/qemu-virt.toml" "$tmp/recipe.toml"   # alone: no drivers/ or overlays/ beside it
printf 'hostname = "lab-node01"\nmac = "52:54:00:00:00:01"\nrails = ["198.18.0.11"]\n' >"$tmp/node.toml"
"$agent" check --recipe "$tmp/recipe.toml" --node "$tmp/node.toml" | grep >/dev/null "node identity"
"$agent" check --recipe "$tmp/recipe.toml" --node "$tmp/absent.toml" | grep >/dev/null "rail addresses will be left out"
printf 'hostname = "lab_node"\nmac = "01:00:5e:00:00:01"\n' >"$tmp/node.toml"
set +e
err=$("$agent" check --recipe "$tmp/recipe.toml" --node "$tmp/node.toml" 2>&1)
rc=$?
set -e
[[ $rc -eq 2 ]] || { echo "exit $rc, want 2"; exit 1; }
grep -q "node.toml:1:12: error: hostname: host name 'lab_node' contains '_'" <<<"$err"
grep -q "node.toml:2:7: error: mac: '01:00:5e:00:00:01' is a multicast MAC address" <<<"$err"
echo "firstboot check: ok"
