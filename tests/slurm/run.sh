#!/usr/bin/env bash
# Runs the Slurm test binary against a real Slurm: Debian's munged, slurmctld and (started by
# the test, configless) slurmd, in mount, network and UTS namespaces of the test's own, on
# loopback addresses only (slurmctld on 127.0.0.2 as "ctl", the node on 127.0.0.3). Needs
# root, munge, slurmctld, slurmd and slurm-client; says why and fails otherwise.
set -euo pipefail
binary=$1
shift
if [[ $(id -u) -ne 0 ]]; then
  echo "slurm tests need root (namespaces, munged, slurmctld)"
  exit 1
fi
for b in munged slurmctld slurmd sinfo scontrol; do
  command -v "$b" >/dev/null || [[ -x /usr/sbin/$b ]] || { echo "slurm tests need $b (ci/setup-deps.sh installs it)"; exit 1; }
done
if [[ ${RAILYARD_SLURM_INNER:-} != 1 ]]; then
  export RAILYARD_SLURM_INNER=1
  exec unshare --mount --net --uts --propagation private "$0" "$binary" "$@"
fi

work=$(mktemp -d /tmp/railyard-slurm.XXXXXX)
# The daemons are stopped and waited for before their directories go: slurmctld saves its
# state into ctl/ as it shuts down, and a directory removed under it comes back non-empty.
cleanup() {
  local p pids=()
  for p in "$work"/*.pid "$work"/ctl/*.pid; do
    [[ -e $p ]] || continue
    pids+=("$(cat "$p")")
    kill "${pids[-1]}" 2>/dev/null || true
  done
  for _ in $(seq 100); do
    local alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    ((alive)) || break
    sleep 0.1
  done
  umount /run/munge /etc/slurm /etc/hosts /etc/munge 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

hostname ctl
ip link set lo up
ip addr add 127.0.0.2/8 dev lo
ip addr add 127.0.0.3/8 dev lo
printf '127.0.0.1 localhost\n127.0.0.2 ctl\n127.0.0.3 node01\n' > "$work/hosts"
mount --bind "$work/hosts" /etc/hosts

# munge, with a key of the test's own, at munge's default paths (configless slurmd uses them).
mkdir -p /run/munge /etc/munge /etc/slurm
mount -t tmpfs -o mode=0755 tmpfs /run/munge
mount -t tmpfs -o mode=0700 tmpfs /etc/munge
chown munge:munge /run/munge /etc/munge
head -c 1024 /dev/urandom > /etc/munge/munge.key
chown munge:munge /etc/munge/munge.key
chmod 0400 /etc/munge/munge.key
runuser -u munge -- /usr/sbin/munged
cp /run/munge/munged.pid "$work/munged.pid"

# slurmctld: one partition, the node static and unknown until its slurmd registers.
mount -t tmpfs -o mode=0755 tmpfs /etc/slurm
chmod 0755 "$work"
mkdir -p "$work/ctl" "$work/spool"
chown slurm:slurm "$work/ctl"
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=lab
SlurmctldHost=ctl(127.0.0.2)
SlurmUser=slurm
StateSaveLocation=$work/ctl
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/ctl/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/ctl/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
ReturnToService=2
SlurmctldParameters=enable_configless
SlurmdTimeout=30
NodeName=node01 NodeAddr=127.0.0.3 CPUs=1 RealMemory=1 State=UNKNOWN
PartitionName=gpu Nodes=node01 Default=YES State=UP
CONF
echo "CgroupPlugin=cgroup/v1" > /etc/slurm/cgroup.conf
/usr/sbin/slurmctld -i
for _ in $(seq 50); do
  SLURM_CONF=/etc/slurm/slurm.conf sinfo -h >/dev/null 2>&1 && break
  sleep 0.2
done
# The node's slurmd reads no local configuration: as on a railyard node, it fetches it.
umount /etc/slurm

# The agent starts munge.service before it drains; here munged already runs, and the host's
# systemd (if any) must not be asked to start its own: a stand-in systemctl says so instead.
mkdir -p "$work/bin"
cat > "$work/bin/systemctl" <<'STUB'
#!/bin/sh
echo "tests/slurm: systemctl $* (test stand-in: the test's own munged already runs)" >&2
exit 0
STUB
chmod +x "$work/bin/systemctl"
export PATH="$work/bin:$PATH"

export RAILYARD_SLURM_CONTROLLER=127.0.0.2 RAILYARD_SLURM_NODE=node01
export RAILYARD_SLURMD="/usr/sbin/slurmd -N node01 --conf-server 127.0.0.2:6817"
export RAILYARD_SLURM_WORK=$work
status=0
"$binary" "$@" || status=$?
if ((status != 0)); then
  echo "--- slurmctld.log (tail)"
  tail -n 30 "$work/ctl/slurmctld.log" 2>/dev/null || true
  echo "--- slurmd.log (tail)"
  tail -n 30 "$work/slurmd.log" 2>/dev/null || true
fi
exit $status
