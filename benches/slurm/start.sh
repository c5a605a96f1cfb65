#!/bin/bash
# A single-node Slurm on this machine, for benches/slurm.rs: Debian's
# slurm-wlm and munge, installed if missing, one node (this host, all its
# cores) in one partition, configured under $SLURM_DIR (default
# /tmp/psychic-slurm) and never in /etc/slurm. Idempotent: daemons already
# up are left running. Prints the SLURM_CONF to export. Needs root.
set -eu
dir=${SLURM_DIR:-/tmp/psychic-slurm}
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurm-wlm munge >&2
fi
mkdir -p "$dir/ctld" "$dir/d" "$dir/log"
node=$(hostname -s)
cpus=$(nproc)
mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))
cat > "$dir/slurm.conf" <<CONF
ClusterName=psychic
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/d
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=main Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
if ! pgrep -x munged >/dev/null; then
    mkdir -p /run/munge && chown munge:munge /run/munge
    runuser -u munge -- munged
fi
pgrep -x slurmctld >/dev/null || slurmctld -f "$SLURM_CONF"
pgrep -x slurmd >/dev/null || slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
    if sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
        echo "$SLURM_CONF"
        exit 0
    fi
    sleep 1
done
echo "start.sh: the node did not come up; see $dir/log/" >&2
exit 1
