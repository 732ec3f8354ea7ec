#!/usr/bin/env bash
# `railyard fabric sweep --plan` from the command line, over a fleet made for the test (three
# racks, a scalable unit each, some nodes failing): the plan from the reports and from the
# topology JSON, checked against docs/sweep-plan.schema.json and the schedule's rules (no node
# in two pairs of a round, every pair of a unit on every rail, two peers outside the unit),
# the nodes left out named, --nodes keeping the inventory's nodes, and bad input refused
# naming what is allowed.
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

python3 "$src/tests/report/make_reports.py" "$src" "$tmp/fleet" --count 120 --seed 7
expect_rc 0 "$railyard" fabric sweep --reports "$tmp/fleet" --plan
cp "$tmp/out" "$tmp/plan.json"
grep -q "not swept: no passing report" "$tmp/err" || { cat "$tmp/err"; fail "the nodes that never passed are named"; }
"$railyard" report topology "$tmp/fleet" --format json -o "$tmp/topology.json" 2>/dev/null || true
python3 - "$tmp/plan.json" "$tmp/topology.json" "$src/docs/sweep-plan.schema.json" <<'PY' || fail "the plan's rules"
import itertools, json, sys, jsonschema
plan, topo = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
jsonschema.validate(plan, json.load(open(sys.argv[3])))
unit = {n: u["name"] for u in topo["units"] for n in u["nodes"]}
assert plan["mode"] == "full" and plan["nodes"] == len(unit), (plan["nodes"], len(unit))
assert plan["tests"] == sum(len(r) for r in plan["rounds"])
assert plan["fabric_seconds"] == len(plan["rounds"]) * 2 * 2.0
pairs, outside = {}, {}
for r in plan["rounds"]:
    partner = {}
    for t in r:
        for x, y in ((t["a"], t["b"]), (t["b"], t["a"])):
            assert partner.setdefault(x, y) == y, ("two pairs in a round", x, y, partner[x])
        pairs.setdefault((t["a"], t["b"]), set()).add(t["rail"])
        if unit[t["a"]] != unit[t["b"]]:
            for x, y in ((t["a"], t["b"]), (t["b"], t["a"])):
                outside.setdefault((x, t["rail"]), set()).add(y)
for u in topo["units"]:
    for a, b in itertools.combinations(sorted(u["nodes"]), 2):
        key = (a, b) if (a, b) in pairs else (b, a)
        assert key in pairs, ("untested pair", a, b)
for n in unit:
    assert len(outside.get((n, 0), ())) >= 2, ("fewer than two peers outside the unit", n)
PY

# The same units from the topology file; quick mode is shorter.
expect_rc 0 "$railyard" fabric sweep --topology "$tmp/topology.json" --plan --mode quick --seconds-per-test 5
python3 - "$tmp/out" <<'PY' || fail "quick plan"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["mode"] == "quick" and p["seconds_per_test"] == 5 and len(p["rounds"]) <= 5, (p["mode"], len(p["rounds"]))
assert p["fabric_seconds"] == len(p["rounds"]) * 10
PY

# --nodes: only the inventory's nodes; its references listed for the retests.
python3 - "$tmp/topology.json" "$tmp/inventory.toml" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
nodes = sorted(n for u in t["units"] for n in u["nodes"])[:6]
with open(sys.argv[2], "w") as f:
    f.write("schema = 1\n")
    for i, n in enumerate(nodes):
        f.write('[[node]]\nhostname = "%s"\nmac = "02:00:00:00:00:%02x"\n%s\n'
                % (n, i + 1, "reference = true\n" if i == 0 else ""))
PY
expect_rc 0 "$railyard" fabric sweep --topology "$tmp/topology.json" --nodes "$tmp/inventory.toml" --plan
python3 - "$tmp/out" <<'PY' || fail "--nodes"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["nodes"] == 6 and len(p["references"]) == 1, (p["nodes"], p.get("references"))
PY
grep -q "not swept: not in the inventory" "$tmp/err" || fail "the nodes outside the inventory are named"

# Bad input: named, with what is allowed.
expect_rc 2 "$railyard" fabric sweep --reports "$tmp/fleet" --plan --mode exhaustive
grep -q "allowed: full or quick" "$tmp/err" || fail "--mode"
expect_rc 2 "$railyard" fabric sweep --reports "$tmp/fleet" --plan --seconds-per-test 0
grep -q "allowed: 0.1 to 600 seconds" "$tmp/err" || fail "--seconds-per-test"
expect_rc 2 "$railyard" fabric sweep --plan
grep -q -- "--reports DIR or --topology FILE is required" "$tmp/err" || fail "no source"
echo '{"schema": 1, "units": [{"name": "su-1", "leaves": ["l0"], "nodes": ["n1", "bad host"]}]}' >"$tmp/bad.json"
expect_rc 2 "$railyard" fabric sweep --topology "$tmp/bad.json" --plan
grep -q "bad.json: units\[0\].nodes\[1\]: 'bad host'" "$tmp/err" || { cat "$tmp/err"; fail "a bad host name"; }
echo 'not json' >"$tmp/bad.json"
expect_rc 2 "$railyard" fabric sweep --topology "$tmp/bad.json" --plan
grep -q "bad.json: line 1: not JSON" "$tmp/err" || fail "not JSON"
echo '{"schema": 1, "units": [{"name": "su-1", "leaves": ["l0"], "nodes": ["n1"]}]}' >"$tmp/one.json"
expect_rc 2 "$railyard" fabric sweep --topology "$tmp/one.json" --plan
grep -q "a sweep needs two nodes" "$tmp/err" || fail "one node"
echo "sweep CLI: ok"
