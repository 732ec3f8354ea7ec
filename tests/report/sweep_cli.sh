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

# --analyze: the workers' results (made here from the plan: lab-style 24 Gb/s, one rail of
# one node dead, one pair slow alone), each way in its writer's file as the workers write
# them, give the culprit with its leaf and port, and the retests the pair needs; once the
# retests ran (both nodes pass with references), a pair fault.
mkdir -p "$tmp/run/results"
python3 - "$tmp/plan.json" "$tmp/run/results" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
bad, slow, by_node = None, None, {}
for r in plan["rounds"]:
    for t in r:
        if bad is None:
            bad = (t["a"], 1)  # the first node's rail 1: dead
        ways = {w: {"a": t["a"], "b": t["b"], "rail": t["rail"], "from": t[w], "ok": True, "gbps": 24.0}
                for w in ("a", "b")}
        if (t["a"], t["rail"]) == bad or (t["b"], t["rail"]) == bad:
            for w in ways.values():
                w.update(ok=False, gbps=0.0, error="work completion: retry exceeded")
        elif slow is None and t["rail"] == 2 and bad[0] not in (t["a"], t["b"]):
            slow = t
            ways["b"].update(gbps=3.5, b_counters="rx_discards_phy +9")
        for w in ("a", "b"):
            by_node.setdefault(t[w], []).append(ways[w])
for node, results in by_node.items():
    json.dump({"schema": 1, "node": node, "results": results}, open("%s/%s.json" % (sys.argv[2], node), "w"))
json.dump({"bad": bad, "slow": slow}, open(sys.argv[2] + "/../truth", "w"))
PY
expect_rc 1 "$railyard" fabric sweep --reports "$tmp/fleet" --analyze "$tmp/run"
python3 - "$tmp/run" "$src/docs/sweep.schema.json" "$tmp/out" <<'PY' || { cat "$tmp/out"; fail "the first pass's verdict"; }
import json, sys, jsonschema
run = sys.argv[1]
s, truth, out = json.load(open(run + "/sweep.json")), json.load(open(run + "/truth")), open(sys.argv[3]).read()
jsonschema.validate(s, json.load(open(sys.argv[2])))
bad, slow = truth["bad"], truth["slow"]
assert [(c["node"], c["rail"]) for c in s["culprits"]] == [tuple(bad)], s["culprits"]
c = s["culprits"][0]
assert c["leaf"] and c["port"], c  # from the node's report: LLDP
assert c["drain_reason"].startswith("railyard: sweep rail.1 failed with %d of %d peers" % (c["failed_peers"], c["peers"])), c
assert c["unit_median_gbps"] == 24.0 and c["median_gbps"] == 0.0, c
assert s["settled"] is False and s["pair_faults"] == [], s
retests = [t for r in s["retest_rounds"] for t in r]
assert len(retests) == 4 and {t["a"] for t in retests} == {slow["a"], slow["b"]}, retests
assert all(t["rail"] == 2 for t in retests)
assert "%s: railyard: sweep rail.1 " % bad[0] in out, out
assert "1 test(s) failed alone" in out, out
# The retests as a worker would report them: every one passes.
import os
os.makedirs(run + "/retests")
json.dump({"schema": 1, "node": "retests", "results": [dict(t, ok=True, gbps=24.0) for t in retests]},
          open(run + "/retests/all.json", "w"))
PY
grep -q "^railyard_sweep_culprit{node=\"[^\"]*\",rail=\"1\"} 1$" "$tmp/run/sweep.prom" || fail "the culprit in sweep.prom"
expect_rc 1 "$railyard" fabric sweep --reports "$tmp/fleet" --analyze "$tmp/run"
python3 - "$tmp/run" "$src/docs/sweep.schema.json" <<'PY' || fail "the settled verdict"
import json, sys, jsonschema
s, truth = json.load(open(sys.argv[1] + "/sweep.json")), json.load(open(sys.argv[1] + "/truth"))
jsonschema.validate(s, json.load(open(sys.argv[2])))
assert s["settled"] is True and s["retest_rounds"] == [], s
assert len(s["culprits"]) == 1, s["culprits"]
slow = truth["slow"]
assert [(p["a"], p["b"], p["rail"]) for p in s["pair_faults"]] == [(slow["a"], slow["b"], 2)], s["pair_faults"]
assert s["pair_faults"][0]["b_counters"] == "rx_discards_phy +9"
PY
grep -q "railyard_sweep_settled 1" "$tmp/run/sweep.prom" || fail "settled in sweep.prom"

# The verdict as railyard report shows it: the summary's section, the culprit's rails in its
# node's report, and the fleet page's sweep view (the culprit first); a bad sweep.json refused.
bad=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bad"][0])' "$tmp/run/truth")
expect_rc 1 "$railyard" report summary "$tmp/fleet" --sweep "$tmp/run/sweep.json"
grep -q "^fabric sweep .*sweep.json (full): [0-9]* tests, [0-9]* failed: 1 culprit, 1 pair fault$" "$tmp/out" ||
  { cat "$tmp/out"; fail "the summary's sweep section"; }
grep -q "^  $bad rail 1 (.*leaf.* port .*): failed with " "$tmp/out" || { cat "$tmp/out"; fail "the culprit in the summary"; }
expect_rc 1 "$railyard" report summary "$tmp/fleet" --sweep "$tmp/run/sweep.json" --json
python3 - "$tmp/out" "$bad" <<'PY' || fail "the summary's JSON"
import json, sys
s = json.load(open(sys.argv[1]))["sweep"]
assert [(c["node"], c["rail"]) for c in s["culprits"]] == [(sys.argv[2], 1)] and s["settled"], s
assert len(s["pair_faults"]) == 1, s
PY
report=$(grep -rl "\"node\": *\"$bad\"" "$tmp/fleet" | head -n 1)
"$railyard" report show "$report" --sweep "$tmp/run/sweep.json" >"$tmp/out" 2>"$tmp/err" || true
grep -q "^  rail 1 blamed (.*leaf.* port .*): failed with " "$tmp/out" || { cat "$tmp/out"; fail "the node's blamed rail in report show"; }
grep -q "^  rail 0 pass: " "$tmp/out" || { cat "$tmp/out"; fail "the node's passing rails in report show"; }
"$railyard" report html "$tmp/fleet" -o "$tmp/page.html" --sweep "$tmp/run/sweep.json" 2>"$tmp/err" || true
python3 - "$tmp/page.html" "$bad" <<'PY' || fail "the fleet page's sweep view"
import re, sys
page, bad = open(sys.argv[1]).read(), sys.argv[2]
assert "<h2>Fabric sweep</h2>" in page
view = page[page.index("<h2>Fabric sweep</h2>"):page.index("<h2>Nodes</h2>")]
assert '<tr class="fail"><td>%s</td><td class="num">1</td>' % bad in view, view[:2000]
rows = re.findall(r'<tr><th>([^<]+)</th>(?:<td class="(\w)")', view)
assert rows and rows[0][0] == bad, rows[:3]  # culprits first
assert 'class="f" title="rail 1: culprit' in view
assert view.count('class="w" title=') == 2, "the pair fault's two ends, a test failed"
PY
python3 - "$tmp/run/sweep.json" "$tmp/bad-sweep.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["culprits"][0]["rail"] = "one"
json.dump(s, open(sys.argv[2], "w"))
PY
expect_rc 2 "$railyard" report summary "$tmp/fleet" --sweep "$tmp/bad-sweep.json"
grep -q "bad-sweep.json: culprits\[0\].rail: expected a rail 0 to 63" "$tmp/err" || { cat "$tmp/err"; fail "a bad sweep.json"; }

# --drain, against a stand-in scontrol (the controller's view as 22.05 prints it): the culprit
# is drained with its reason, a node the sweep drained earlier and now passes is resumed, an
# operator's drain and first boot's stay.
mkdir -p "$tmp/bin"
python3 - "$tmp/run" "$tmp/bin/nodes.txt" <<'PY'
import json, sys
s, truth = json.load(open(sys.argv[1] + "/sweep.json")), json.load(open(sys.argv[1] + "/truth"))
bad = truth["bad"][0]
others = sorted([truth["slow"]["a"], truth["slow"]["b"]])
line = "NodeName=%s Arch=x86_64 CoresPerSocket=1 State=%s Partitions=gpu%s"
with open(sys.argv[2], "w") as f:
    f.write(line % (bad, "IDLE", "") + "\n")
    f.write(line % (others[0], "IDLE+DRAIN", " Reason=railyard: sweep rail.2 failed with 3 of 4 peers [root@2026-12-01T10:00:00]") + "\n")
    f.write(line % (others[1], "IDLE+DRAIN", " Reason=PSU swap, ticket 4411 [ops@2026-12-01T10:00:00]") + "\n")
PY
cat >"$tmp/bin/scontrol" <<EOF
#!/bin/sh
if [ "\$1" = show ]; then cat "$tmp/bin/nodes.txt"; exit 0; fi
printf '%s\n' "\$*" >> "$tmp/scontrol.log"
EOF
chmod +x "$tmp/bin/scontrol"
PATH="$tmp/bin:$PATH" expect_rc 1 "$railyard" fabric sweep --reports "$tmp/fleet" --analyze "$tmp/run" --drain
python3 - "$tmp/run" "$tmp/scontrol.log" <<'PY' || { cat "$tmp/err"; fail "--drain"; }
import json, sys
truth, log = json.load(open(sys.argv[1] + "/truth")), open(sys.argv[2]).read().splitlines()
bad, slow = truth["bad"][0], truth["slow"]
first = sorted([slow["a"], slow["b"]])[0]
assert len(log) == 2, log
assert log[0].startswith("update NodeName=%s State=DRAIN Reason=railyard: sweep rail.1 failed with " % bad), log
assert log[1] == "update NodeName=%s State=RESUME" % first, log
PY
expect_rc 2 "$railyard" fabric sweep --reports "$tmp/fleet" --plan --drain
grep -q -- "--drain goes with --analyze DIR or a submitted sweep" "$tmp/err" || fail "--drain alone"
echo '{"schema": 1, "node": "x", "results": [{"a": "nobody", "b": "else", "rail": 0, "ok": true, "gbps": 1}]}' \
  >"$tmp/run/results/zz.json"
expect_rc 2 "$railyard" fabric sweep --reports "$tmp/fleet" --analyze "$tmp/run"
grep -q "zz.json: results\[0\]: nobody is not among the swept nodes" "$tmp/err" || { cat "$tmp/err"; fail "a stranger's result"; }
echo '{"schema": 1, "node": "x", "results": [{"a": "a b", "b": "c", "rail": 0, "ok": true, "gbps": 1}]}' \
  >"$tmp/run/results/zz.json"
expect_rc 2 "$railyard" fabric sweep --reports "$tmp/fleet" --analyze "$tmp/run"
grep -q 'zz.json: results\[0\]: "a": expected a host name' "$tmp/err" || { cat "$tmp/err"; fail "a bad host name"; }

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
