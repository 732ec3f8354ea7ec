#!/usr/bin/env bash
# Runs the netns test binary inside a network namespace of its own, holding a veth pair
# (ry-a, ry-b) with nothing else attached: no traffic leaves the namespace.
# Needs root and iproute2; says why and fails otherwise (never a silent pass).
set -euo pipefail
binary=$1
shift
if [[ $(id -u) -ne 0 ]]; then
  echo "netns tests need root (ip netns add)"
  exit 1
fi
ns=railyard-test-$$
ip netns add "$ns"
trap 'ip netns del "$ns" 2>/dev/null || true' EXIT
ip -n "$ns" link set lo up
ip -n "$ns" link add ry-a type veth peer name ry-b
export RAILYARD_NETNS_VETH_A=ry-a RAILYARD_NETNS_VETH_B=ry-b
ip netns exec "$ns" "$binary" "$@"
