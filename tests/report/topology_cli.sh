#!/usr/bin/env bash
# `railyard report topology` from the command line, over a fleet made for the test: three
# racks of nodes (a scalable unit each) whose reports are then broken by hand: a cable in
# the next unit's leaf, a rail that heard nothing, two nodes claiming one leaf port. Checks
# the exit codes (0 all placed, 1 some left out or --check differs, 2 bad input), the JSON
# contract against docs/topology.schema.json, each format, a byte-identical rerun, that a
# node added changes only its unit's line, and --check naming the difference.
set -euo pipefail
railyard=$1 src=$3
tmp=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_rc() {  # expect_rc RC CMD...: runs CMD, stdout to $tmp/out, stderr to $tmp/err
  local want=$1 rc=0
  shift
  "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  [[ $rc == "$want" ]] || { cat "$tmp/out" "$tmp/err" >&2; fail "$* exited $rc, expected $want"; }
}
python3 -c 'import jsonschema' 2>/dev/null ||
  fail "python3 jsonschema is missing (Debian: python3-jsonschema; ci/setup-deps.sh installs it)"

# 120 nodes, every one passing: racks r000, r001, r002, each its own unit.
python3 "$src/tests/report/make_reports.py" "$src" "$tmp/fleet" --count 120 --seed 7 --fail-rate 0
expect_rc 0 "$railyard" report topology "$tmp/fleet" --format json
python3 - "$tmp/out" "$src/docs/topology.schema.json" <<'PY' || fail "the clean fleet's units"
import json, sys, jsonschema
t = json.load(open(sys.argv[1]))
jsonschema.validate(t, json.load(open(sys.argv[2])))
assert t["left_out"] == [], t["left_out"]
units = {u["name"]: u for u in t["units"]}
assert sorted(units) == ["su-su000-leaf-r0", "su-su001-leaf-r0", "su-su002-leaf-r0"], sorted(units)
for k, u in enumerate(sorted(units)):
    u = units[u]
    assert u["leaves"] == ["su%03d-leaf-r%d" % (k, i) for i in range(len(u["leaves"]))], u["leaves"]
    assert len(u["nodes"]) == 40 and all("-r%03d-" % k in n for n in u["nodes"]), u["nodes"]
PY
expect_rc 0 "$railyard" report topology "$tmp/fleet" -o "$tmp/topology.conf"
grep -q "^SwitchName=spine Switches=su-su000-leaf-r0,su-su001-leaf-r0,su-su002-leaf-r0$" "$tmp/topology.conf" ||
  { cat "$tmp/topology.conf"; fail "the units under the spine"; }
[[ $(grep -c '^SwitchName=su-su00[0-2]-leaf-r0 Nodes=' "$tmp/topology.conf") == 3 ]] || fail "a switch line per unit"
# The same reports: the same bytes; --check agrees, exit 0.
expect_rc 0 "$railyard" report topology "$tmp/fleet" -o "$tmp/again.conf"
cmp "$tmp/topology.conf" "$tmp/again.conf" || fail "a rerun changed the file"
expect_rc 0 "$railyard" report topology "$tmp/fleet" --check "$tmp/topology.conf"
grep -q "as the reports say (3 units)" "$tmp/err" || fail "--check says it agrees: $(cat "$tmp/err")"

# Break the fleet: in rack 0 a node's rail 1 in another unit's leaf, in rack 1 a node's rail
# 2 unheard and a node on another's leaf port (nodes of three rails or more, picked by place).
python3 - "$tmp/fleet" >"$tmp/broken" <<'PY'
import glob, json, os, sys
fleet = sys.argv[1]
def newest(name):  # the passing one: a few nodes also keep a failed boot before it
    return [p for p in sorted(glob.glob(os.path.join(fleet, name, "*.json"))) if json.load(open(p))["result"] == "pass"][0]
def wide(rack, skip=()):
    for place in range(3, 40):
        name = [os.path.basename(d) for d in glob.glob(os.path.join(fleet, "*-r%03d-n%02d" % (rack, place)))][0]
        if name not in skip and len(json.load(open(newest(name)))["lldp"]) >= 3:
            return name
def edit(name, f):
    p = newest(name)
    r = json.load(open(p))
    f(r["lldp"])
    json.dump(r, open(p, "w"))
misplaced = wide(0)
edit(misplaced, lambda l: l[1]["neighbor"].update(system_name="su002-leaf-r1", port_id="swp48"))  # a free port
silent = wide(1)
edit(silent, lambda l: l[2].update(neighbor=None))
twin = wide(1, (silent,))
owner = [os.path.basename(d) for d in glob.glob(os.path.join(fleet, "*-r001-n01"))][0]  # port swp2
edit(twin, lambda l: [rail["neighbor"].update(port_id="swp2") for rail in l])
print(misplaced, silent, twin, owner)
PY
read -r misplaced silent twin owner <"$tmp/broken"
expect_rc 1 "$railyard" report topology "$tmp/fleet" --format json
python3 - "$tmp/out" "$src/docs/topology.schema.json" "$misplaced" "$silent" "$twin" "$owner" <<'PY' || fail "the broken fleet's left_out"
import json, sys, jsonschema
t = json.load(open(sys.argv[1]))
jsonschema.validate(t, json.load(open(sys.argv[2])))
misplaced, silent, twin, owner = sys.argv[3:]
out = {o["node"]: o for o in t["left_out"]}
assert sorted(out) == sorted([misplaced, silent, twin, owner]), sorted(out)
m = out[misplaced]
assert m["rail"] == 1 and m["leaf"] == "su002-leaf-r1" and m["likely_unit"] == "su-su000-leaf-r0", m
assert "a leaf of su-su002-leaf-r0, while its other rails reach su-su000-leaf-r0" in m["why"], m
u = out[silent]
assert u["rail"] == 2 and u["why"] == "rail 2 heard no LLDP neighbour" and u["likely_unit"] == "su-su001-leaf-r0", u
for k, other in ((twin, owner), (owner, twin)):
    d = out[k]
    assert d["port"] == "swp2" and d["why"].endswith("which %s also reaches" % other), d
placed = [n for u in t["units"] for n in u["nodes"]]
assert len(placed) == 116 and not any(n in out for n in placed), len(placed)
PY
grep -q "$misplaced left out: " "$tmp/err" || fail "the miscabled node is named on stderr: $(cat "$tmp/err")"
# --check against the file Slurm runs: exit 1, naming the lines to go and to come; only the
# units that changed differ.
expect_rc 1 "$railyard" report topology "$tmp/fleet" --check "$tmp/topology.conf"
[[ $(grep -c '^- ' "$tmp/out") == 2 && $(grep -c '^+ ' "$tmp/out") == 2 ]] || { cat "$tmp/out"; fail "--check names the two units' lines"; }
grep -q "^- SwitchName=su-su000-leaf-r0 " "$tmp/out" || fail "--check names su000's line to go"
grep -q "^+ SwitchName=su-su001-leaf-r0 " "$tmp/out" || fail "--check names su001's line to come"
grep -q "differs from the reports' topology: 2 line(s) to go, 2 to come" "$tmp/err" || fail "--check summary"

# A node added to one unit changes that unit's line alone.
"$railyard" report topology "$tmp/fleet" -o "$tmp/before.conf" 2>/dev/null || true
mkdir -p "$tmp/fleet/new"
python3 - "$tmp/fleet" <<'PY'
import glob, json, os, sys
fleet = sys.argv[1]
src = [p for p in sorted(glob.glob(os.path.join(fleet, "*-r002-n07", "*.json"))) if json.load(open(p))["result"] == "pass"][0]
r = json.load(open(src))
r["node"] = "extra-r002-n40"
for rail in r["lldp"]: rail["neighbor"]["port_id"] = "swp41"
json.dump(r, open(os.path.join(fleet, "new", "extra.json"), "w"))
PY
"$railyard" report topology "$tmp/fleet" -o "$tmp/after.conf" 2>/dev/null || true
changed=$(diff "$tmp/before.conf" "$tmp/after.conf" | grep -c '^[<>]' || true)
[[ $changed == 2 ]] || { diff "$tmp/before.conf" "$tmp/after.conf"; fail "adding a node changed $changed lines, not its unit's"; }
{ diff "$tmp/before.conf" "$tmp/after.conf" || true; } | grep -q '^> SwitchName=su-su002-leaf-r0 Nodes=.*extra-r002-n40' ||
  fail "the new node is in su002's line"

# The other formats.
expect_rc 1 "$railyard" report topology "$tmp/fleet" --format slurm-block --block-sizes 16,32
grep -q "^BlockName=su-su000-leaf-r0 Nodes=" "$tmp/out" || { cat "$tmp/out"; fail "slurm-block's blocks"; }
grep -q "^BlockSizes=16,32$" "$tmp/out" || { cat "$tmp/out"; fail "slurm-block's BlockSizes"; }
expect_rc 1 "$railyard" report topology "$tmp/fleet" --format k8s-labels
grep -q "^kubectl label node .*-r002-n07 --overwrite railyard.io/unit=su-su002-leaf-r0 railyard.io/rail0-leaf=su002-leaf-r0" "$tmp/out" ||
  { head -3 "$tmp/out"; fail "k8s-labels"; }
grep -q -- " $misplaced " "$tmp/out" && fail "a left-out node is labelled"

# Bad input: exit 2, saying what is allowed; nothing written.
expect_rc 2 "$railyard" report topology "$tmp/fleet" --format yaml
expect_rc 2 "$railyard" report topology "$tmp/fleet" --spine "bad spine" -o "$tmp/never.conf"
grep -q "spine" "$tmp/err" || fail "a bad --spine is named"
[[ ! -e $tmp/never.conf ]] || fail "a refused run wrote its file"
expect_rc 2 "$railyard" report topology "$tmp/none"
echo "report topology: OK"
