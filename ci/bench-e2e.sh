#!/usr/bin/env bash
# Benchmark of one lab boot (recipes/qemu-virt.toml under railyard qemu, with its storage
# target, TCG): boot to joined (the guest's uptime when the agent printed its result line),
# the storage target's uptime when it served, the agent's critical chain (systemd-analyze
# inside the guest), where the node's CPUs went until then (busy and idle, by unit), the
# agent's time per phase (from its report), and its
# RDMA self-test throughput against ib_write_bw on the same Soft-RoCE device in the same
# boot (with railyard.qemu.bench=1 the guest runs, on rail 0, the agent and ib_write_bw in
# the agent's own shape — 64 KiB WRITEs, 16 in flight, 1 MiB — in turns, three rounds; then
# 2000 WRITEs loopback and to the target over the wire). Target: the agent's median at
# >= 0.8x ib_write_bw's in the same shape.
# Usage: ci/bench-e2e.sh [BUILD_DIR]   (as root; builds the image once into BUILD_DIR/e2e/)
#        RAILYARD_BENCH_KEEP=DIR keeps the run's files (consoles, exports) in DIR.
#        RAILYARD_BENCH_APPEND="WORD ..." adds kernel command line words to both VMs (to try one).
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build/ci}")
railyard=$build/railyard
[[ -x $railyard ]] || { echo "build first: cmake --build $build" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "run as root: the image build bootstraps a root file system" >&2; exit 2; }
command -v qemu-system-x86_64 >/dev/null || { echo "qemu-system-x86_64 missing (ci/setup-deps.sh)" >&2; exit 2; }

collector_pid=
cache=${RAILYARD_E2E_CACHE:-$build/e2e}
image=$cache/images/qemu-virt
if [[ -n ${RAILYARD_BENCH_KEEP:-} ]]; then
  rm -rf "$RAILYARD_BENCH_KEEP" && mkdir -p "$RAILYARD_BENCH_KEEP"
  work=$(realpath "$RAILYARD_BENCH_KEEP")
  trap 'kill "$collector_pid" 2>/dev/null || true' EXIT
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/railyard-bench.XXXXXX")
  trap 'kill "$collector_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
fi
mkdir -p "$cache"

start=$SECONDS
# One build at a time, as the e2e tests do (tests/e2e/lib/lab.bash).
SOURCE_DATE_EPOCH=0 flock -o "$cache/build.lock" "$railyard" build recipes/qemu-virt.toml -o "$image" \
  --cache "$cache/stages" >"$work/build.log" 2>&1 || { tail -n 30 "$work/build.log" >&2; exit 1; }
echo "image: $image (build or cache check: $((SECONDS - start)) s)"

# The report receiver on the host, as in the lab tests: joined means the report was delivered.
"$railyard" collect --listen 127.0.0.1:0 --dir "$work/collected" >"$work/collect.out" 2>"$work/collect.err" &
collector_pid=$!
collector=
for _ in $(seq 100); do
  collector=$(sed -n 's/^railyard collect: listening on \(127\.0\.0\.1:[0-9]*\)$/\1/p' "$work/collect.out")
  [[ -n $collector ]] && break
  sleep 0.1
done
[[ -n $collector ]] || { cat "$work/collect.err" >&2; exit 1; }

extra=()
for word in ${RAILYARD_BENCH_APPEND:-}; do extra+=(--append "$word"); done
start=$SECONDS
rc=0
timeout 1500 "$railyard" qemu "$image" --collector "$collector" --storage-target --nodes recipes/inventories/qemu-lab.toml \
  --node lab-node01 --target-node lab-target01 --append railyard.qemu.bench=1 "${extra[@]}" --run-dir "$work/run" \
  --timeout 1200 >"$work/qemu.out" 2>&1 || rc=$?
cat "$work/qemu.out"
echo "railyard qemu exited $rc after $((SECONDS - start)) s (both VMs, TCG, $(nproc) host cores)"
((rc <= 1)) || exit 1

python3 - "$work/run" <<'PY'
import json, re, sys
run = sys.argv[1]
report = json.load(open(run + "/node/report.json"))
status = json.load(open(run + "/node/status.json"))
bench = open(run + "/node/bench.txt").read()

def target_ready():
    for line in open(run + "/target/console.log", errors="replace"):
        m = re.search(r"storage target ready at ([0-9.]+) s of uptime", line)
        if m:
            return float(m.group(1))
    return None
result = status.get("result_uptime_s")
print("\nboot to %s: %s s of guest uptime (kernel start to the agent's result line; report exported at %.1f s)"
      % ("joined" if status.get("joined") else "result (NOT joined)", "%.1f" % result if result else "?",
         status["report_uptime_s"]))
# The host's speed moves the figure by +-7 s between runs of one build on a 2-core host; the
# kernel's time to /init (its own start and the initramfs unpack: the same CPU work in every
# boot of one image) moves with it, so the figure over it compares single runs of builds
# whose images are the same size. Interleaved runs (ci/bench-boot-ab.sh) compare any two.
try:
    journal = open(run + "/node/chain.txt", errors="replace").read().partition("# journal of the boot")[2]
except OSError:
    journal = ""
m = re.search(r"^\[ *([0-9.]+)\].*Run /init as init process", journal, re.M)
if m and result and float(m.group(1)) > 0:
    print("  the node's kernel ran /init at %.1f s; boot to joined over it: %.2fx" % (float(m.group(1)), result / float(m.group(1))))
t = target_ready()
print("storage target serving at: %s s of its uptime" % ("%.1f" % t if t else "?"))
try:
    chain = open(run + "/node/chain.txt").read().strip()
except OSError:
    chain = "(no critical chain exported)"
chain, _, cpu = chain.partition("# CPU at the export")
cpu = cpu.partition("# journal of the boot")[0]
print("critical chain of the agent (systemd-analyze, in the guest):\n  " + chain.strip().replace("\n", "\n  "))

# Where a VM's CPUs went from its power-on to its export: /proc/stat's first line (USER_HZ
# ticks of all CPUs) and systemd's CPU time per unit.
def cpu_summary(who, cpu, until):
    stat = re.search(r"^cpu +(.*)$", cpu, re.M)
    up = re.search(r"^uptime ([0-9.]+)", cpu, re.M)
    if not (stat and up):
        return
    t = [int(x) / 100.0 for x in stat.group(1).split()]
    user, nice, system, idle, iowait, irq, softirq = t[:7]
    busy = user + nice + system + irq + softirq
    procs = re.search(r"^processes (\d+)", cpu, re.M)
    print("%s CPUs until %s (%s s of uptime): busy %.1f s (user %.1f, system %.1f), idle %.1f s;"
          " about %s processes started" % (who, until, up.group(1), busy, user + nice, system + irq + softirq,
                                          idle + iowait, procs.group(1) if procs else "?"))
    devices = re.search(r"^udev devices (.*)$", cpu, re.M)
    if devices:
        counts = devices.group(1).split()
        pairs = list(zip(counts[::2], counts[1::2]))
        print("  udev's devices: %d (%s)" % (sum(int(n) for n, _ in pairs), ", ".join("%s %s" % (n, s) for n, s in pairs[:10])))
    units = []
    for block in cpu.split("\n\n"):
        props = dict(line.split("=", 1) for line in block.splitlines() if "=" in line)
        if props.get("CPUUsageNSec", "").isdigit() and "Id" in props:
            units.append((int(props["CPUUsageNSec"]), props["Id"]))
    print("  by unit (systemd's accounting; the kernel's own work, the initramfs unpack among it, is in none):")
    for n, u in sorted(units, reverse=True)[:12]:
        print("  %8.1f s  %s" % (n / 1e9, u))

cpu_summary("node", cpu, "the export")
print("agent phases:")
for p in report["phases"]:
    print("  %-10s %9.1f ms" % (p["phase"], p["ms"]))
print("  %-10s %9.1f ms" % ("total", sum(p["ms"] for p in report["phases"])))

# The storage target (same image, booted beside the node): when its kernel ran /init, when
# systemd started railyard-target.service, when the service was done, and its CPUs.
try:
    tchain = open(run + "/target/chain.txt", errors="replace").read()
except OSError:
    tchain = ""
if tchain:
    tcpu, _, tjournal = tchain.partition("# journal of the boot")
    def first(pattern):
        m = re.search(r"^\[ *([0-9.]+)\].*" + pattern, tjournal, re.M)
        return "%.1f s" % float(m.group(1)) if m else "?"
    print("storage target: /init at %s, railyard-target.service started at %s, finished at %s"
          % (first(r"Run /init as init process"), first(r"Starting railyard-target\.service"),
             first(r"Finished railyard-target\.service")))
    try:
        tphases = json.load(open(run + "/target/target.json")).get("phases", [])
    except (OSError, ValueError):
        tphases = []
    if tphases:
        print("  its agent's phases: " + ", ".join("%s %.1f ms" % (p["phase"], p["ms"]) for p in tphases))
    cpu_summary("  target", tcpu, "it was ready")

# ib_write_bw's result line: "#bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]".
sections = {}
for part in re.split(r"^# ", bench, flags=re.M)[1:]:
    title, _, body = part.partition("\n")
    sections[title] = body
def ib_write_bw(body):
    for line in body.splitlines():
        f = line.split()
        if len(f) == 5 and f[0] == "65536" and f[1].isdigit():
            return float(f[3]) * 1000
    return None
def agent(body):
    m = re.search(r"agent rail.0.rdma_write: .* at (\d+) Mb/s", body)
    return float(m.group(1)) if m else None
def median(v):
    v = sorted(x for x in v if x is not None)
    return v[len(v) // 2] if v else None
def show(x):
    return "%.0f" % x if x is not None else "n/a"

rounds = sorted({int(m) for m in re.findall(r"^round (\d+):", "\n".join(sections), flags=re.M)})
agents = [agent(sections.get("round %d: the agent" % r, "")) for r in rounds]
same = [ib_write_bw(b) for t, b in sections.items() if t.startswith("round") and "16 writes" in t]
long_run = next((ib_write_bw(b) for t, b in sections.items() if "2000 writes" in t and "loopback" in t), None)
wire = next((ib_write_bw(b) for t, b in sections.items() if t.startswith("to the target")), None)
first = next((float(m) for m in re.findall(r"at (\d+) Mb/s", next((c["observed"] for c in report["checks"]
                                                                     if c["name"] == "rail.0.rdma_write"), ""))), None)

print("\nRDMA WRITE on rail 0 (rxe0), Mb/s (TCG; rounds taken in turns in the same boot):")
print("  agent self-test at first boot (1 MiB, 64 KiB x 16 in flight)  %s" % show(first))
print("  agent self-test, rounds      %-24s median %s" % (" ".join(show(x) for x in agents), show(median(agents))))
print("  ib_write_bw, same shape      %-24s median %s" % (" ".join(show(x) for x in same), show(median(same))))
print("  ib_write_bw loopback, 2000 x 64 KiB                            %s" % show(long_run))
print("  ib_write_bw to the target over the wire, 2000 x 64 KiB        %s" % show(wire))
a, b = median(agents), median(same)
if a and b:
    print("  agent / ib_write_bw (same shape, medians): %.2fx (target >= 0.8x): %s" % (a / b, "met" if a / b >= 0.8 else "NOT met"))
if a and long_run:
    print("  agent / ib_write_bw (2000 writes): %.2fx" % (a / long_run))
if None in agents + same or not same or long_run is None or wire is None:
    print("\nbench output (something did not measure):\n" + bench)
PY
