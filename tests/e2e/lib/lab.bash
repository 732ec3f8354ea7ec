# Shared by the end-to-end tests (tests/e2e/*.sh): the lab image, built once per build tree
# and reused; a report collector on 127.0.0.1; railyard qemu under a timeout; assertions
# over what the guest exported. Sourced, not run: lab_init "$@" first.
#   tests/e2e/NAME.sh RAILYARD RAILYARD_FIRSTBOOT SOURCE_DIR

set -euo pipefail

lab_fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# lab_init RAILYARD RAILYARD_FIRSTBOOT SOURCE_DIR: checks what the tests need, makes the
# test's own work directory (removed on exit) and the shared cache beside railyard.
lab_init() {
  RAILYARD=$(realpath "$1")
  SRC=$(realpath "$3")
  LAB_CACHE=${RAILYARD_E2E_CACHE:-$(dirname "$RAILYARD")/e2e}
  local missing=()
  [[ $(id -u) -eq 0 ]] || missing+=("root (railyard build bootstraps the image as root)")
  local tool
  for tool in qemu-system-x86_64 mmdebstrap zstd python3 flock timeout; do
    command -v "$tool" >/dev/null || missing+=("$tool")
  done
  compgen -G "$(dirname "$RAILYARD")/packages/railyard-firstboot_*.deb" >/dev/null ||
    missing+=("the agent package beside railyard (build the agent-package target)")
  if ((${#missing[@]} > 0)); then
    local m
    for m in "${missing[@]}"; do echo "e2e: missing: $m" >&2; done
    lab_fail "prerequisites missing (ci/setup-deps.sh installs the packages)"
  fi
  mkdir -p "$LAB_CACHE"
  LAB_WORK=$(mktemp -d "${TMPDIR:-/tmp}/railyard-e2e.XXXXXX")
  LAB_COLLECTOR_PID=
  trap lab_cleanup EXIT
}

lab_cleanup() {
  local rc=$?
  [[ -n ${LAB_COLLECTOR_PID:-} ]] && kill "$LAB_COLLECTOR_PID" 2>/dev/null && wait "$LAB_COLLECTOR_PID" 2>/dev/null
  if ((rc != 0)) && [[ -n ${LAB_KEEP:-} ]]; then
    echo "e2e: kept $LAB_WORK" >&2
  else
    rm -rf "$LAB_WORK"
  fi
  return $rc
}

# lab_image RECIPE: builds (or finds in the stage cache) the image of RECIPE under the
# shared cache and sets LAB_IMAGE. One build at a time; later tests hit the stage cache.
lab_image() {
  local recipe=$1 name
  name=$(basename "$recipe" .toml)
  LAB_IMAGE=$LAB_CACHE/images/$name
  echo "e2e: image $name (cache $LAB_CACHE)"
  local start=$SECONDS
  # flock -o: the build does not inherit the lock's descriptor.
  SOURCE_DATE_EPOCH=0 flock -o "$LAB_CACHE/build.lock" timeout 2400 "$RAILYARD" --drivers "$SRC/drivers" \
    --overlays "$SRC/overlays" build "$recipe" -o "$LAB_IMAGE" --cache "$LAB_CACHE/stages" \
    >"$LAB_WORK/build-$name.log" 2>&1 || {
    tail -n 40 "$LAB_WORK/build-$name.log" >&2
    lab_fail "railyard build $recipe failed"
  }
  echo "e2e: image ready in $((SECONDS - start)) s"
}

# lab_collector: a railyard collect on 127.0.0.1 (any free port); sets LAB_COLLECTOR
# (ADDRESS:PORT) and LAB_REPORTS (its directory).
lab_collector() {
  LAB_REPORTS=$LAB_WORK/collected
  "$RAILYARD" collect --listen 127.0.0.1:0 --dir "$LAB_REPORTS" >"$LAB_WORK/collect.out" 2>"$LAB_WORK/collect.err" &
  LAB_COLLECTOR_PID=$!
  local _
  for _ in $(seq 100); do
    LAB_COLLECTOR=$(sed -n 's/^railyard collect: listening on \(127\.0\.0\.1:[0-9]*\)$/\1/p' "$LAB_WORK/collect.out")
    [[ -n $LAB_COLLECTOR ]] && return 0
    kill -0 "$LAB_COLLECTOR_PID" 2>/dev/null || break
    sleep 0.1
  done
  cat "$LAB_WORK/collect.err" >&2
  lab_fail "railyard collect did not start"
}

# lab_boot NAME [railyard qemu options...]: boots LAB_IMAGE as lab-node01 of the lab
# inventory (LAB_INVENTORY, recipes/inventories/qemu-lab.toml unless set; with
# LAB_IDENTITY=implied: with no inventory, the identity the recipe implies; LAB_NODES="A B":
# those nodes of the inventory side by side on the leaf, A first), its run kept in
# LAB_WORK/NAME; sets LAB_RUN and LAB_RC (railyard qemu's exit).
lab_boot() {
  local name=$1
  shift
  LAB_RUN=$LAB_WORK/$name
  mkdir -p "$LAB_RUN"
  local limit=${LAB_TIMEOUT:-900}
  local collector=()
  [[ -n ${LAB_COLLECTOR:-} ]] && collector=(--collector "$LAB_COLLECTOR")
  local identity=(--nodes "${LAB_INVENTORY:-$SRC/recipes/inventories/qemu-lab.toml}")
  local node report_out=$LAB_RUN/report.json
  for node in ${LAB_NODES:-lab-node01}; do identity+=(--node "$node"); done
  # Several nodes: one report each, HOST.json in a directory.
  [[ ${LAB_NODES:-lab-node01} == *" "* ]] && report_out=$LAB_RUN/reports
  [[ ${LAB_IDENTITY:-inventory} == implied ]] && identity=()
  echo "e2e: railyard qemu $name: ${identity[*]} $*"
  local start=$SECONDS
  LAB_RC=0
  timeout --kill-after=30 $((limit + 120)) "$RAILYARD" qemu "$LAB_IMAGE" "${identity[@]}" \
    --run-dir "$LAB_RUN" --report-out "$report_out" --timeout "$limit" "${collector[@]}" "$@" \
    >"$LAB_RUN/qemu.out" 2>&1 || LAB_RC=$?
  cat "$LAB_RUN/qemu.out"
  echo "e2e: railyard qemu $name exited $LAB_RC after $((SECONDS - start)) s"
}

# lab_expect_rc CODE: railyard qemu's exit code must be CODE.
lab_expect_rc() {
  ((LAB_RC == $1)) && return 0
  [[ -f $LAB_RUN/node/console.log ]] && tail -n 60 "$LAB_RUN/node/console.log" >&2
  # The lab's Slurm controller logs to the target's console: what it made of the node.
  if [[ -f $LAB_RUN/target/console.log ]] && grep -aq slurmctld "$LAB_RUN/target/console.log"; then
    echo "--- slurmctld on the target (target/console.log), last lines" >&2
    grep -a slurmctld "$LAB_RUN/target/console.log" | tail -n 20 >&2
  fi
  lab_fail "railyard qemu exited $LAB_RC, expected $1"
}

# lab_assert: Python assertions (stdin) over the run's files. Available: slurm (the text
# --slurm-out "$LAB_RUN/slurm.txt" wrote) and slurm_field(KEY[, text]) (its State=, Reason=…), report, status,
# rerun, verify (railyard.qemu.verify=1's runs), target, topology (the VM's, JSON or None), slurm_topology (with a
# collector: the controller's `scontrol show topology` as the joined node saw it), check(name) → the report's check, expect(cond,
# what), files and rerun_files (path → text of the agent's files after the first and the
# second run), collected (the reports the collector keeps: one per node and boot),
# collector_log (its log: one line per POST), os.environ["LAB_IMAGE"] (the image), journal_err (the agent's journal lines of
# priority err and above, as `journalctl -p err -u railyard-firstboot -o cat` shows them), join_journal (the join
# units' and munge's journal) and run (the run's directory). With LAB_NODES, these are the
# first node's (its files in node/; --report-out wrote reports/HOST.json for each), and
# node_files(HOST) gives another's: a dict of report, status, slurm (its controller's
# answer), verify, journal_err and slurm_topology, from node-HOST/.
lab_assert() {
  LAB_IMAGE=${LAB_IMAGE:-} python3 - "$LAB_RUN" "${LAB_REPORTS:-}" 3<&0 <<'PY'
import glob, json, os, re, sys, tarfile
run, reports_dir = sys.argv[1], sys.argv[2]
def load(rel):
    p = os.path.join(run, rel)
    if not os.path.exists(p) or os.path.getsize(p) == 0:
        return None
    with open(p) as f:
        return json.load(f)
report, status, rerun = load("report.json"), load("node/status.json"), load("node/rerun.json")
if report is None:
    report = load("node/report.json")
def text(rel):
    p = os.path.join(run, rel)
    return open(p).read() if os.path.exists(p) else None
def node_files(host):
    d = "node-" + host + "/"
    return {"report": load(d + "report.json"), "status": load(d + "status.json"), "verify": load(d + "verify.json"),
            "slurm": (text(d + "slurm.txt") or "").strip() or None, "journal_err": text(d + "journal.txt"),
            "slurm_topology": (text(d + "topology.txt") or "").strip() or None}
target, topology = load("target/target.json"), load("node/topology.json")
# With a collector and Slurm: the controller's `scontrol show topology` once it placed the node.
slurm_topology = (text("node/topology.txt") or "").strip() or None
verify = load("node/verify.json")
def unpack(rel):
    p, out = os.path.join(run, rel), {}
    if os.path.exists(p) and os.path.getsize(p) > 0:
        with tarfile.open(p) as t:
            for m in t.getmembers():
                if m.isfile():
                    out["/" + m.name] = t.extractfile(m).read().decode()
    return out
files, rerun_files = unpack("node/files.tar"), unpack("node/rerun-files.tar")
# --slurm-out "$LAB_RUN/slurm.txt": the lab controller's `scontrol show node NODE --oneliner`.
slurm_path = os.path.join(run, "slurm.txt")
slurm = open(slurm_path).read().strip() if os.path.exists(slurm_path) else (text("node/slurm.txt") or "").strip() or None
def slurm_field(key, text=None):
    m = re.search(r"(?:^| )" + key + r"=(.*?)(?= [A-Za-z]+=|$)", (text if text is not None else slurm) or "")
    if not m:
        return None
    # A reason ends in "[user@time]", who set it and when.
    value = m.group(1).strip()
    return re.sub(r" \[[^]]*\]$", "", value) if key == "Reason" else value
journal_path = os.path.join(run, "node/journal.txt")
journal_err = open(journal_path).read() if os.path.exists(journal_path) else None
join_journal_path = os.path.join(run, "node/join-journal.txt")
join_journal = open(join_journal_path).read() if os.path.exists(join_journal_path) else None
collected, collector_log = [], ""
if reports_dir and os.path.exists(os.path.join(os.path.dirname(reports_dir), "collect.err")):
    collector_log = open(os.path.join(os.path.dirname(reports_dir), "collect.err")).read()
if reports_dir:
    for p in sorted(glob.glob(os.path.join(reports_dir, "**", "*.json"), recursive=True)):
        try:
            with open(p) as f:
                collected.append(json.load(f))
        except ValueError:
            pass
failures = []
def expect(cond, what):
    if not cond:
        failures.append(what)
def check(name, r=None):
    for c in ((r or report) or {}).get("checks", []):
        if c.get("name") == name:
            return c
    return {"name": name, "status": "absent", "observed": "", "detail": ""}
exec(os.fdopen(3).read())
for f in failures:
    print("FAIL:", f, file=sys.stderr)
if failures:
    sys.exit(1)
print("e2e: every assertion held")
PY
}
