#!/usr/bin/env bash
# `railyard fabric sweep` submitting its Slurm job, against test doubles of Slurm (sbatch,
# srun, scontrol) and of the worker, each saying what it is: sbatch runs the job script here
# at once, srun runs the worker once per node of the job with the node's name, and the worker
# double writes each of its node's one-way results as the plan gives them, failing the writes
# of one bad link. Checked: the plan the job gets (each node's rail addresses, the port), the
# job script (exclusive, one task per node, the node list, partition, time limit), the results
# judged once the job ends, the bad link named and drained, the retests run as a second job
# when a test failed alone, a job that ran no worker judged as nothing, and bad input refused.
set -euo pipefail
railyard=$1 agent=$2 src=$3
tmp=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_rc() {  # expect_rc RC CMD...: runs CMD, stdout to $tmp/out, stderr to $tmp/err
  local want=$1 rc=0
  shift
  "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  [[ $rc == "$want" ]] || { cat "$tmp/out" "$tmp/err" >&2; fail "$* exited $rc, expected $want"; }
}

# One unit of six nodes on two leaves (two rails), as the topology JSON gives it.
cat >"$tmp/topology.json" <<'JSON'
{"schema": 1, "units": [{"name": "su-leaf-a", "leaves": ["leaf-a", "leaf-b"],
  "nodes": ["gpu1", "gpu2", "gpu3", "gpu4", "gpu5", "gpu6"]}], "left_out": []}
JSON
{
  echo "schema = 1"
  for i in 1 2 3 4 5 6; do
    printf '[[node]]\nhostname = "gpu%d"\nmac = "02:00:00:00:00:%02x"\nrails = ["198.18.0.%d/24", "198.18.1.%d/24"]\n' \
      "$i" "$i" "$i" "$i"
    [[ $i == 6 ]] && echo "reference = true"
  done
} >"$tmp/inventory.toml"

mkdir -p "$tmp/bin"
cat >"$tmp/bin/sbatch" <<'EOF2'
#!/bin/sh
# A test double of Slurm's sbatch, not Slurm: runs the job script here at once, its
# #SBATCH --nodelist as the job's nodes, its output where #SBATCH --output says.
[ "$1" = --wait ] && [ "$2" = --parsable ] || { echo "sbatch double: unexpected $*" >&2; exit 2; }
script=$3
echo "$script" >> "$(dirname "$0")/sbatch.log"
SLURM_JOB_ID=$(( $(wc -l < "$(dirname "$0")/sbatch.log") + 4200 ))
SLURM_JOB_NODELIST=$(sed -n 's/^#SBATCH --nodelist=//p' "$script")
out=$(sed -n 's/^#SBATCH --output=//p' "$script" | sed "s/%j/$SLURM_JOB_ID/")
export SLURM_JOB_ID SLURM_JOB_NODELIST
echo "$SLURM_JOB_ID"
sh "$script" > "$out" 2>&1
EOF2
cat >"$tmp/bin/srun" <<'EOF2'
#!/bin/sh
# A test double of Slurm's srun, not Slurm: runs the command once per node of the job, one
# after another's start, each with the node's name as slurmd gives it.
while [ "${1#--}" != "$1" ]; do shift; done
rc=0
pids=""
for n in $(echo "$SLURM_JOB_NODELIST" | tr , ' '); do
  SLURMD_NODENAME=$n "$@" & pids="$pids $!"
done
for p in $pids; do wait "$p" || rc=$?; done
exit $rc
EOF2
cat >"$tmp/bin/worker" <<'EOF2'
#!/usr/bin/env python3
# A test double of railyard-firstboot sweep-worker, not the worker: writes its node's one-way
# results as the plan gives them, without RDMA and without waiting for the rounds. The writes
# on $BAD_LINK (NODE:RAIL) fail there; a test $ALONE (A:B:RAIL) fails by itself.
import json, os, sys
args = sys.argv[1:]
assert args[0] == "sweep-worker", args
opt = dict(zip(args[1::2], args[2::2]))
plan, node = json.load(open(opt["--plan"])), os.environ["SLURMD_NODENAME"]
assert plan["port"] == 18516 and node in plan["addresses"], plan.get("addresses")
if node == os.environ.get("SILENT"):
    sys.exit(1)
bad = os.environ.get("BAD_LINK", ":").split(":")
alone = os.environ.get("ALONE", "::").split(":")
results = []
for r in plan["rounds"]:
    for t in r:
        if node not in (t["a"], t["b"]):
            continue
        assert plan["addresses"][t["a"]][t["rail"]] and plan["addresses"][t["b"]][t["rail"]]
        res = {"a": t["a"], "b": t["b"], "rail": t["rail"], "from": node, "ok": True, "gbps": 180.0}
        on_bad = bad[0] in (t["a"], t["b"]) and str(t["rail"]) == bad[1]
        if on_bad or [t["a"], t["b"], str(t["rail"])] == alone:
            res.update(ok=False, gbps=0.0, error="work completion: retry exceeded")
            if on_bad and node == bad[0]:
                res["a_counters" if node == t["a"] else "b_counters"] = "out_of_sequence +40"
        results.append(res)
os.makedirs(opt["-o"], exist_ok=True)
with open(os.path.join(opt["-o"], node + ".json"), "w") as f:
    json.dump({"schema": 1, "node": node, "results": results}, f)
print("worker double: %s wrote %d results" % (node, len(results)))
EOF2
printf 'NodeName=gpu%d Arch=x86_64 State=IDLE Reason=(null)\n' 1 2 3 4 5 6 >"$tmp/bin/nodes.txt"
cat >"$tmp/bin/scontrol" <<EOF2
#!/bin/sh
# A test double of scontrol, not Slurm: the nodes as 22.05 prints them; updates logged.
if [ "\$1" = show ]; then cat "$tmp/bin/nodes.txt"; exit 0; fi
printf '%s\n' "\$*" >> "$tmp/scontrol.log"
EOF2
chmod +x "$tmp/bin/"*
export PATH="$tmp/bin:$PATH"
sweep=("$railyard" fabric sweep --topology "$tmp/topology.json" --nodes "$tmp/inventory.toml" --worker "$tmp/bin/worker")

# One bad link: the job runs, gpu3's rail 1 is named and drained, nobody else.
BAD_LINK=gpu3:1 expect_rc 1 "${sweep[@]}" -o "$tmp/run1" --partition gpu --drain
python3 - "$tmp/run1" "$tmp/scontrol.log" "$src/docs" <<'PY' || { cat "$tmp/out" "$tmp/err"; fail "one bad link"; }
import json, sys, jsonschema
run, log, docs = sys.argv[1], open(sys.argv[2]).read().splitlines(), sys.argv[3]
plan = json.load(open(run + "/plan.json"))
jsonschema.validate(plan, json.load(open(docs + "/sweep-plan.schema.json")))
jsonschema.validate(json.load(open(run + "/sweep.json")), json.load(open(docs + "/sweep.schema.json")))
assert plan["port"] == 18516 and plan["addresses"]["gpu2"] == ["198.18.0.2", "198.18.1.2"], plan["addresses"]
assert plan["references"] == ["gpu6"], plan.get("references")
script = open(run + "/sweep.sbatch").read()
for line in ("#SBATCH --exclusive", "#SBATCH --ntasks-per-node=1", "#SBATCH --nodes=6",
             "#SBATCH --nodelist=gpu1,gpu2,gpu3,gpu4,gpu5,gpu6", "#SBATCH --partition=gpu", "#SBATCH --time=3"):
    assert line + "\n" in script, (line, script)
assert "sweep-worker --plan " + run + "/plan.json" in script, script
s = json.load(open(run + "/sweep.json"))
assert s["settled"] is True, s
assert [(c["node"], c["rail"]) for c in s["culprits"]] == [("gpu3", 1)], s["culprits"]
assert "out_of_sequence" in s["culprits"][0]["counters"], s["culprits"][0]
assert len(log) == 1 and log[0].startswith("update NodeName=gpu3 State=DRAIN") and "railyard: sweep rail.1" in log[0], log
PY
grep -q "gpu3: railyard: sweep rail.1" "$tmp/out" || fail "the culprit is printed"
ls "$tmp/run1"/slurm-*.out >/dev/null || fail "the job's output is kept beside its results"
grep -q "worker double: gpu1 wrote" "$tmp/run1"/slurm-*.out || fail "the job's output holds the workers'"

# A test that fails alone is retested against references as a second job, then settled.
rm -f "$tmp/scontrol.log" "$tmp/bin/sbatch.log"
ALONE=gpu1:gpu2:0 expect_rc 1 "${sweep[@]}" -o "$tmp/run2"
[[ $(wc -l <"$tmp/bin/sbatch.log") == 2 ]] || fail "the retests run as a second job"
grep -q "retest.sbatch" "$tmp/bin/sbatch.log" || fail "the second job is the retests'"
python3 - "$tmp/run2" <<'PY' || { cat "$tmp/out" "$tmp/err"; fail "retests"; }
import json, sys
run = sys.argv[1]
s = json.load(open(run + "/sweep.json"))
assert s["settled"] is True and s["culprits"] == [], s
assert [(p["a"], p["b"], p["rail"]) for p in s["pair_faults"]] == [("gpu1", "gpu2", 0)], s["pair_faults"]
r = json.load(open(run + "/retest-plan.json"))
assert all(t["rail"] == 0 for rd in r["rounds"] for t in rd), r
assert any("gpu6" in (t["a"], t["b"]) for rd in r["rounds"] for t in rd), "the reference retests"
PY
[[ ! -e $tmp/scontrol.log ]] || fail "no --drain: scontrol untouched"

# A worker that wrote nothing: nothing is judged or drained.
SILENT=gpu4 expect_rc 1 "${sweep[@]}" -o "$tmp/run3" --drain
grep -q "no results from gpu4" "$tmp/err" || { cat "$tmp/err"; fail "the silent worker is named"; }
[[ ! -e $tmp/run3/sweep.json && ! -e $tmp/scontrol.log ]] || fail "nothing judged, nobody drained"

# Bad input: a directory with an earlier sweep in it, no inventory, a partition Slurm refuses.
expect_rc 2 "${sweep[@]}" -o "$tmp/run1"
grep -q "holds files already" "$tmp/err" || fail "an earlier sweep's directory is refused"
expect_rc 2 "$railyard" fabric sweep --topology "$tmp/topology.json" -o "$tmp/run4"
grep -q "needs --nodes INVENTORY" "$tmp/err" || fail "no inventory"
expect_rc 2 "${sweep[@]}" -o "$tmp/run5" --partition 'gpu;rm'
grep -q "the partition 'gpu;rm'" "$tmp/err" || { cat "$tmp/err"; fail "a bad partition"; }
expect_rc 2 "${sweep[@]}" -o "$tmp/run6" --port 0
grep -q "\-\-port 0: allowed: 1 to 65535" "$tmp/err" || fail "a bad port"
[[ ! -e $tmp/run5 && ! -e $tmp/run6 ]] || fail "bad input writes nothing"

# The agent's worker refuses a plan it cannot run, naming the file, before touching a rail.
echo '{"mode": "full"' >"$tmp/broken.json"
expect_rc 2 "$agent" sweep-worker --plan "$tmp/broken.json" --start 1 -o "$tmp/w"
grep -q "broken.json: not JSON" "$tmp/err" || { cat "$tmp/err"; fail "a plan that is not JSON"; }
PATH=${PATH#"$tmp/bin:"} "$railyard" fabric sweep --topology "$tmp/topology.json" --plan >"$tmp/bare.json" 2>/dev/null
expect_rc 2 "$agent" sweep-worker --plan "$tmp/bare.json" --start 1 -o "$tmp/w"
grep -q 'bare.json: no "port" or "addresses"' "$tmp/err" || { cat "$tmp/err"; fail "a --plan plan"; }
python3 - "$tmp/run1/plan.json" "$tmp/evil.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["addresses"]["gpu1"][0] = "198.18.0.1; reboot"
json.dump(p, open(sys.argv[2], "w"))
PY
expect_rc 2 "$agent" sweep-worker --plan "$tmp/evil.json" --start 1 -o "$tmp/w"
grep -q 'addresses.gpu1\[0\]: expected an IPv4 address' "$tmp/err" || { cat "$tmp/err"; fail "a bad address"; }
[[ ! -e $tmp/w ]] || fail "a refused plan writes nothing"
echo "sweep job: ok"
