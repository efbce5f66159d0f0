#!/bin/sh
# A one-machine Slurm cluster (slurmctld and slurmd on this host) from Debian's packages, for
# the Slurm end-to-end test of `symgame solve --slurm` (tests/slurm.rs). Run as root; safe to
# run again (it only starts what is not running). Without systemd the daemons are started
# directly. Afterwards `sinfo` shows one idle node in the partition `debug`.
#
#   scripts/slurm_single_node.sh          install, configure, start
#   scripts/slurm_single_node.sh stop     stop the daemons
set -eu

if [ "${1:-}" = stop ]; then
    pkill -x slurmd || true
    pkill -x slurmctld || true
    pkill -x munged || true
    exit 0
fi

if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        slurm-wlm munge >/dev/null
fi

host=$(hostname -s)
cpus=$(nproc)
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge
# Cores are the consumable resource, not memory: each job states its own memory to symgame
# (--memory), and a job asking for no memory would otherwise hold the whole node.
cat >/etc/slurm/slurm.conf <<EOF
ClusterName=symgame
SlurmctldHost=$host
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=600
SlurmUser=root
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmdSpoolDir=/var/spool/slurmd
StateSaveLocation=/var/spool/slurmctld
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

if [ ! -s /etc/munge/munge.key ]; then
    mkdir -p /etc/munge
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
fi
chown -R munge:munge /etc/munge /run/munge 2>/dev/null || true
chmod 0400 /etc/munge/munge.key

pgrep -x munged >/dev/null || su -s /bin/sh munge -c /usr/sbin/munged 2>/dev/null || /usr/sbin/munged --force
pgrep -x slurmctld >/dev/null || slurmctld
pgrep -x slurmd >/dev/null || slurmd

# Wait for the node to come up (at most a minute).
i=0
while [ $i -lt 60 ]; do
    state=$(sinfo -h -o %T 2>/dev/null | head -n 1)
    case "$state" in
        idle*|mixed*|allocated*) echo "slurm: node $host is $state"; exit 0 ;;
    esac
    i=$((i + 1))
    sleep 1
done
echo "slurm: the node did not come up; see /var/log/slurm/" >&2
exit 1
