#!/usr/bin/env bash
# The agent validates the recipe and node identity the image carries; bad input exits 2.
set -euo pipefail
agent=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$src/recipes/qemu-virt.toml" "$tmp/recipe.toml"   # alone: no drivers/ or overlays/ beside it
printf 'hostname = "lab-node01"\nmac = "52:54:00:00:00:01"\nrails = ["198.18.0.11", "198.18.1.11", "198.18.2.11", "198.18.3.11"]\n' >"$tmp/node.toml"
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
# The node identity by the inventory's rules (railyard check), against the recipe it boots
# with: an address outside its rail's subnet, one address for four rails.
printf 'hostname = "lab-node01"\nmac = "52:54:00:00:00:01"\nrails = ["198.18.9.11/8", "198.18.1.11", "198.18.2.11", "198.18.3.11"]\n' >"$tmp/node.toml"
set +e
err=$("$agent" check --recipe "$tmp/recipe.toml" --node "$tmp/node.toml" 2>&1); rc=$?
[[ $rc -eq 2 ]] || { echo "outside the subnet: exit $rc, want 2: $err"; exit 1; }
grep -q "node.toml:3:10: error: rails\[0\]: 198.18.9.11 is outside rail 0's subnet 198.18.0.0/24" <<<"$err" ||
  { echo "outside the subnet: $err"; exit 1; }
printf 'hostname = "lab-node01"\nmac = "52:54:00:00:00:01"\nrails = ["198.18.0.11"]\n' >"$tmp/node.toml"
err=$("$agent" --recipe "$tmp/recipe.toml" --node "$tmp/node.toml" plan 2>&1); rc=$?
[[ $rc -eq 2 ]] || { echo "one address for four rails, plan: exit $rc, want 2: $err"; exit 1; }
grep -q "node.toml:3:9: error: rails: lab-node01 has 1 rail addresses; recipe 'qemu-virt' has 4 rails" <<<"$err" ||
  { echo "one address for four rails: $err"; exit 1; }
set -e
echo "firstboot check: ok"
