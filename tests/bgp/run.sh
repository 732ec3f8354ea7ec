#!/usr/bin/env bash
# Routed rails against Debian's FRR, in network namespaces of the test's own: node01 (where
# the test binary runs the agent's code) and node02, each with two rails, rail i of each
# cabled to leaf i (a veth pair per cable). The leaves run FRR with the configuration
# `railyard fabric leaf-config` writes for them; the nodes, with what the agent's plan
# renders (the binary starts them). Needs root and frr; says why and fails otherwise.
#   run.sh RAILYARD TEST_BINARY SOURCE_DIR [DOCTEST_OPTION...]
set -euo pipefail
railyard=$1 binary=$2 src=$3
shift 3
if [[ $(id -u) -ne 0 ]]; then
  echo "bgp tests need root (ip netns add)"
  exit 1
fi
for b in /usr/lib/frr/zebra /usr/lib/frr/bgpd; do
  [[ -x $b ]] || { echo "bgp tests need FRR's $b (ci/setup-deps.sh installs frr)"; exit 1; }
done
command -v vtysh >/dev/null || { echo "bgp tests need vtysh (frr)"; exit 1; }

work=$(mktemp -d /tmp/railyard-bgp.XXXXXX)
tag=$$
node=ry-bgp-n1-$tag peer=ry-bgp-n2-$tag leaf0=ry-bgp-l0-$tag leaf1=ry-bgp-l1-$tag
cleanup() {
  for p in "$work"/*/*.pid; do if [[ -e $p ]]; then kill "$(cat "$p")" 2>/dev/null || true; fi; done
  sleep 0.3
  for ns in "$node" "$peer" "$leaf0" "$leaf1"; do ip netns del "$ns" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

for ns in "$node" "$peer" "$leaf0" "$leaf1"; do
  ip netns add "$ns"
  ip -n "$ns" link set lo up
done
# cable NODE_NS NODE_IF LEAF_NS LEAF_PORT
cable() {
  ip link add "ry$tag-a" type veth peer name "ry$tag-b"
  ip link set "ry$tag-a" netns "$1"
  ip link set "ry$tag-b" netns "$3"
  ip -n "$1" link set "ry$tag-a" name "$2"
  ip -n "$3" link set "ry$tag-b" name "$4"
  ip -n "$1" link set "$2" up
  ip -n "$3" link set "$4" up
}
cable "$node" rail0 "$leaf0" swp1
cable "$node" rail1 "$leaf1" swp1
cable "$peer" rail0 "$leaf0" swp2
cable "$peer" rail1 "$leaf1" swp2
# The leaves route between their ports; the peer carries its /32s as the agent would put them.
for ns in "$leaf0" "$leaf1"; do ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1; done
ip -n "$peer" addr add 198.18.0.12/32 dev rail0
ip -n "$peer" addr add 198.18.1.12/32 dev rail1
# node02's tenant side, as its agent would make it: its VTEP, VNI 100 flooding to node01, and
# another tenant's VNI 200 holding the address node01's isolation probe must not reach.
ip -n "$peer" addr add 198.18.255.12/32 dev lo
ip -n "$peer" link add vxlan100 type vxlan id 100 local 198.18.255.12 dstport 4789
ip -n "$peer" link add vxlan200 type vxlan id 200 local 198.18.255.12 dstport 4789
bridge -n "$peer" fdb append 00:00:00:00:00:00 dev vxlan100 dst 198.18.255.11
bridge -n "$peer" fdb append 00:00:00:00:00:00 dev vxlan200 dst 198.18.255.11
ip -n "$peer" addr add 10.100.0.12/24 dev vxlan100
ip -n "$peer" addr add 10.100.0.99/24 dev vxlan200
ip -n "$peer" link set vxlan100 up
ip -n "$peer" link set vxlan200 up
# One host in two VNIs answers ARP for any of its addresses on any device unless told not to:
# node02 keeps its VNIs apart, as a VTEP serving two tenants must (the test undoes it later).
ip netns exec "$peer" sysctl -qw net.ipv4.conf.vxlan100.arp_ignore=1

"$railyard" fabric leaf-config --recipe "$src/tests/bgp/routed.toml" --nodes "$src/tests/bgp/nodes.toml" -o "$work/leaves" >/dev/null
chmod 0755 "$work"
# frrd NS DIR CONFIG: zebra and bgpd in namespace NS, their sockets and pid files in DIR.
frrd() {
  mkdir -p "$2"
  cp "$3" "$2/frr.conf"
  chown -R frr:frr "$2"
  for d in zebra bgpd; do
    ip netns exec "$1" "/usr/lib/frr/$d" -d -f "$2/frr.conf" -i "$2/$d.pid" -z "$2/zserv.api" --vty_socket "$2" \
      -A 127.0.0.1 -P 0 --log "file:$2/$d.log" >/dev/null
  done
}
frrd "$leaf0" "$work/leaf0" "$work/leaves/leaf-r0.frr.conf"
frrd "$leaf1" "$work/leaf1" "$work/leaves/leaf-r1.frr.conf"

export RAILYARD_BGP_WORK=$work RAILYARD_BGP_SOURCE=$src RAILYARD_BGP_PEER_NS=$peer
status=0
ip netns exec "$node" "$binary" "$@" || status=$?
if [[ $status -ne 0 ]]; then
  for f in "$work"/*/*.log; do echo "== $f"; tail -20 "$f"; done
fi
exit $status
