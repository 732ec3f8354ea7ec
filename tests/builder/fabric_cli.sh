#!/usr/bin/env bash
# `railyard fabric leaf-config` from the command line: the lab recipe and inventory give one
# file per leaf, valid against docs/leaf-config.schema.json, and index.json; the directory is
# replaced whole on a second run, never written over something else; bad input exits 2 with
# FILE:LINE:COL.
set -euo pipefail
railyard=$1 src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "fabric_cli: $*"; exit 1; }

out=$tmp/leaves
"$railyard" fabric leaf-config --recipe "$src/recipes/qemu-virt.toml" --nodes "$src/recipes/inventories/qemu-lab.toml" \
  -o "$out" >"$tmp/stdout" 2>"$tmp/stderr" || { cat "$tmp/stderr"; fail "leaf-config failed"; }
grep -qx "$out/leaf-r0.json: leaf-r0, rail 0, 3 port(s)" "$tmp/stdout" || { cat "$tmp/stdout"; fail "no summary line for leaf-r0"; }
[[ $(find "$out" -mindepth 1 -maxdepth 1 | wc -l) -eq 5 ]] || fail "expected 4 leaves and index.json: $(ls "$out")"
python3 - "$src/docs/leaf-config.schema.json" "$out" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
index = json.load(open(sys.argv[2] + "/index.json"))
assert [l["leaf"] for l in index["leaves"]] == ["leaf-r0", "leaf-r1", "leaf-r2", "leaf-r3"], index
for l in index["leaves"]:
    doc = json.load(open(sys.argv[2] + "/" + l["file"]))
    jsonschema.validate(doc, schema)
    assert doc["pfc"]["enable"] == "0x08" and doc["vlans"] == [100], doc
    ports = {p["node"]: p for p in doc["ports"]}
    assert ports["lab-node01"]["port"] == "swp1", ports
    assert ports["lab-node01"]["node_address"] == "198.18.%d.11" % doc["rails"][0], ports
    assert ports["lab-node02"]["port"] == "swp2" and ports["lab-node02"]["node_address"] == "198.18.%d.12" % doc["rails"][0], ports
PY

# Routed rails: each leaf's JSON says its BGP, and its FRR configuration is beside it.
l3=$tmp/leaves-l3
"$railyard" fabric leaf-config --recipe "$src/recipes/qemu-virt-l3.toml" \
  --nodes "$src/recipes/inventories/qemu-lab-l3.toml" -o "$l3" >/dev/null 2>"$tmp/stderr" || { cat "$tmp/stderr"; fail "l3 leaf-config failed"; }
[[ $(find "$l3" -mindepth 1 -maxdepth 1 | wc -l) -eq 9 ]] || fail "expected 4 leaves, their frr.conf and index.json: $(ls "$l3")"
python3 - "$src/docs/leaf-config.schema.json" "$l3" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
for r in range(4):
    doc = json.load(open("%s/leaf-r%d.json" % (sys.argv[2], r)))
    jsonschema.validate(doc, schema)
    assert doc["bgp"]["asn"] == 65100 + r and doc["bgp"]["config"] == "leaf-r%d.frr.conf" % r, doc["bgp"]
    ports = {p["node"]: p for p in doc["ports"]}
    assert ports["lab-target01"]["bgp"] == {"remote_as": 4200000100,
                                            "accept": ["198.18.%d.100/32" % r, "198.18.255.100/32"]}, ports
PY
grep -qx "router bgp 65102" "$l3/leaf-r2.frr.conf" || fail "leaf-r2.frr.conf: no router bgp 65102"
grep -qx " neighbor swp2 interface remote-as 4200000100" "$l3/leaf-r2.frr.conf" || fail "leaf-r2.frr.conf: no session with the target"
# The layer-2 lab's leaves have none.
[[ -z $(find "$out" -name '*.frr.conf') ]] || fail "layer-2 leaves got FRR configuration"

# Again: the new directory takes the old one's place.
echo stale >"$out/leaf-r9.json"
"$railyard" fabric leaf-config --recipe "$src/recipes/qemu-virt.toml" --nodes "$src/recipes/inventories/qemu-lab.toml" \
  -o "$out" >/dev/null 2>&1 || fail "a second run failed"
[[ ! -e $out/leaf-r9.json ]] || fail "the old directory's files survived"

# A directory that is not an earlier output is never replaced.
mkdir "$tmp/other" && echo keep >"$tmp/other/notes.txt"
if "$railyard" fabric leaf-config --recipe "$src/recipes/qemu-virt.toml" --nodes "$src/recipes/inventories/qemu-lab.toml" \
  -o "$tmp/other" >/dev/null 2>"$tmp/refused"; then fail "replaced a directory it did not write"; fi
grep -q "holds no index.json of an earlier leaf-config; refusing to replace it" "$tmp/refused" || { cat "$tmp/refused"; fail "no reason"; }
[[ -f $tmp/other/notes.txt ]] || fail "the other directory lost its file"

# Bad input: two nodes on one leaf port, a bad template.
sed 's/^lldp_port = "swp1".*/lldp_port = "swp1"/' "$src/recipes/inventories/qemu-lab.toml" >"$tmp/nodes.toml"
sed -i 's|^recipe = .*|recipe = "'"$src"'/recipes/qemu-virt.toml"|' "$tmp/nodes.toml"
sed -i 's/^lldp_port = "swp2"$/lldp_port = "swp1"/' "$tmp/nodes.toml"  # lab-node02 on lab-node01's port
rc=0
"$railyard" fabric leaf-config --recipe "$src/recipes/qemu-virt.toml" --nodes "$tmp/nodes.toml" -o "$tmp/x" 2>"$tmp/err" || rc=$?
[[ $rc -eq 2 ]] || fail "two nodes on one port: exit $rc, expected 2"
grep -q "leaf-r0: port swp1 is expected by more than one node (lab-node02 among them)" "$tmp/err" || { cat "$tmp/err"; fail "no reason"; }
sed -i 's/^lldp_port = "swp1"$/lldp_port = "swp {rail}"/' "$tmp/nodes.toml"
rc=0
"$railyard" fabric leaf-config --recipe "$src/recipes/qemu-virt.toml" --nodes "$tmp/nodes.toml" -o "$tmp/x" 2>"$tmp/err" || rc=$?
[[ $rc -eq 2 ]] || fail "a bad template: exit $rc, expected 2"
grep -q "nodes.toml:[0-9]*:[0-9]*: error: node\[0\].lldp_port: 'swp {rail}' contains ' '" "$tmp/err" || { cat "$tmp/err"; fail "no FILE:LINE:COL"; }
[[ ! -e $tmp/x ]] || fail "bad input wrote $tmp/x"
echo "fabric_cli: ok"
