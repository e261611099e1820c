#!/usr/bin/env bash
# Runs one MPI job with its ranks on two (or, with --hosts, up to four) simulated hosts on this
# machine, then tears them down.
#
#   scripts/multihost.sh --check
#   scripts/multihost.sh [options] -- <program> [args...]
#
# The two hosts are network namespaces with their own hostnames (mpiio-host-a, mpiio-host-b; UTS
# namespaces), their own IPC and PID namespaces and private /dev/shm (so no shared-memory or
# cross-memory-attach transport reaches from one host to the other), joined by a veth pair
# (interface mh0, 10.250.0.1 and .2/24, IPv6 off, no other interface but loopback, no route
# anywhere else), each with /etc/netns/<namespace>/hosts naming both. With --hosts 3 or 4 the hosts
# are mpiio-host-a to -d (10.250.0.1 to .4), each host's mh0 one end of a veth pair whose other end
# is a port of a bridge in a namespace of its own (a switch: no address, no other interface), and
# every hosts file names them all. The launcher starts inside
# host a and reaches host b the way it reaches a real node, through a remote-shell agent (Open MPI:
# --mca plm_rsh_agent; MPICH's hydra: -launcher rsh -launcher-exec) that enters the namespace
# instead of logging in and, like ssh, passes no environment: variables reach the ranks only
# through the launcher (--env). Between the hosts MPI uses TCP (Open MPI: btl tcp selected by
# subnet; MPICH/UCX: UCX_NET_DEVICES); within a host shared memory. Both hosts see one file system;
# --shared names a directory that is the same on both even when it lies under /dev/shm.
# (MPICH 4.0.2 with UCX 1.13 is unreliable here: see test/multihost/CMakeLists.txt.)
#
# Before the job, a probe (test/multihost/multihost_probe.c, --probe) shows where the ranks run and
# fails unless they are on the distinct hostnames, --per-host each, seen by MPI as as many nodes, with
# data crossing between them; after the job, the veth byte counters show the traffic between the
# hosts. Everything is bounded in time (--timeout) and the namespaces are removed at the end, also
# on failure or interruption; namespaces left by a run that was killed outright (SIGKILL) are
# removed by the next run.
#
# Options:
#   --check             only check that this machine allows it (root, ip netns, unshare); exit 0,
#                       or 77 with the reason (ctest: skipped)
#   --mpi F             openmpi (default) or mpich
#   --mpiexec FILE      the family's launcher (default mpiexec.<family>)
#   --hosts N           simulated hosts, 2 to 4 (default 2); every host but b reaches --shared at
#                       the same path (host b: see the distributed file system note above)
#   --per-host N        ranks per host (default 2)
#   --io C              Open MPI io component (ompio, romio321); ignored under MPICH (ROMIO only)
#   --env NAME=VALUE    set a variable in every rank (repeatable)
#   --shared DIR        directory shared by both hosts (created if missing)
#   --fail-host b       host b sees an empty read-only directory at --shared (a node that lacks
#                       the file system: its ranks fail, the others must not hang)
#   --probe FILE        the probe program, run as "<probe> <per-host>" (default: none, and then
#                       nothing checks where the ranks ran)
#   --timeout S         seconds for the job before it is killed (default 300)
# Exit status: the job's, 124 on timeout, 77 when the machine does not allow namespaces, 2 on usage
# errors.
set -euo pipefail

MPI_FAMILY=openmpi MPIEXEC="" HOSTS=2 PER_HOST=2 IO="" SHARED="" FAIL_HOST="" PROBE="" TIMEOUT=300
CHECK_ONLY=0
ENVS=()
log() { echo "[multihost] $*" >&2; }
die() { echo "[multihost] error: $*" >&2; exit 2; }
while (($#)); do
  case $1 in
    --check) CHECK_ONLY=1; shift ;;
    --mpi) MPI_FAMILY=$2; shift 2 ;;
    --mpiexec) MPIEXEC=$2; shift 2 ;;
    --hosts) HOSTS=$2; shift 2 ;;
    --per-host) PER_HOST=$2; shift 2 ;;
    --io) IO=$2; shift 2 ;;
    --env) ENVS+=("$2"); shift 2 ;;
    --shared) SHARED=$2; shift 2 ;;
    --fail-host) FAIL_HOST=$2; shift 2 ;;
    --probe) PROBE=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

# ---- can this machine do it? ------------------------------------------------------------------
# Prints why not and exits 77 (skip), without leaving anything behind.
check_machine() {
  local why=""
  if [ "$(id -u)" != 0 ]; then why="needs root (network namespaces, mounts)"
  elif ! command -v ip >/dev/null; then why="no 'ip' command (Debian package iproute2)"
  elif ! command -v unshare >/dev/null; then why="no 'unshare' command (Debian package util-linux)"
  elif ! unshare --net --uts --ipc --mount true 2>/dev/null; then
    why="this machine (container?) does not allow creating network/UTS/IPC/mount namespaces"
  else
    local probe=mpiio-check-$$
    if ! ip netns add "$probe" 2>/dev/null; then why="'ip netns add' is not permitted here"
    else
      ip link add name mh0 netns "$probe" type veth peer name mh1 netns "$probe" 2>/dev/null ||
        why="veth pairs cannot be created here (kernel without veth?)"
      ip netns del "$probe" 2>/dev/null || true
    fi
  fi
  if [ -n "$why" ]; then
    echo "SKIPPED: two simulated hosts are not possible on this machine: $why"
    exit 77
  fi
}
check_machine
if [ "$CHECK_ONLY" = 1 ]; then echo "multihost: this machine can simulate two hosts"; exit 0; fi

(($#)) || die "no program given (see --help)"
case $MPI_FAMILY in openmpi|mpich) ;; *) die "--mpi must be openmpi or mpich" ;; esac
[ -n "$MPIEXEC" ] || MPIEXEC=$(command -v "mpiexec.$MPI_FAMILY" || true)
[ -x "$MPIEXEC" ] || die "no launcher for $MPI_FAMILY (mpiexec.$MPI_FAMILY); pass --mpiexec"
[ -z "$FAIL_HOST" ] || [ "$FAIL_HOST" = b ] || die "--fail-host takes b (the host the launcher does not run on)"
[ -z "$FAIL_HOST" ] || [ -n "$SHARED" ] || die "--fail-host needs --shared"
case $HOSTS in 2|3|4) ;; *) die "--hosts takes 2, 3 or 4" ;; esac
[[ $PER_HOST =~ ^[1-9][0-9]*$ ]] || die "--per-host takes a positive number"

# ---- set up -----------------------------------------------------------------------------------
ID=mpiio-mh$$
NS_A=$ID-a NS_B=$ID-b
HOST_A=mpiio-host-a HOST_B=mpiio-host-b
SUBNET=10.250.0.0/24
# Every host: letter, namespace, hostname, address (10.250.0.1 for a, .2 for b; c and d with --hosts 3, 4).
LETTERS=(a b c d)
LETTERS=("${LETTERS[@]:0:HOSTS}")
NS_SW=$ID-sw # the switch of three or four hosts
ns_of() { echo "$ID-$1"; }
host_of() { echo "mpiio-host-$1"; }
ip_of() { local i; for i in "${!LETTERS[@]}"; do if [ "${LETTERS[i]}" = "$1" ]; then echo "10.250.0.$((i + 1))"; fi; done; }
WORK=$(mktemp -d "/tmp/$ID.XXXXXX")

# Namespaces of earlier runs whose script was killed outright (SIGKILL: no trap ran). Only this
# script's names (mpiio-mh<pid>-a|b|c|d|sw) whose pid is gone.
sweep_stale() {
  local ns pid
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^mpiio-mh[0-9]+-([a-d]|sw)$' || true); do
    pid=${ns#mpiio-mh}; pid=${pid%-*}
    kill -0 "$pid" 2>/dev/null && continue
    log "removing namespace $ns left by an earlier run (pid $pid is gone)"
    # shellcheck disable=SC2046
    kill -KILL $(ip netns pids "$ns" 2>/dev/null) 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
    rm -rf "/etc/netns/$ns" /tmp/mpiio-mh"$pid".*
  done
}

teardown() {
  local ns pids
  for ns in $(for h in "${LETTERS[@]}"; do ns_of "$h"; done) "$NS_SW"; do
    if ip netns list 2>/dev/null | grep -qw "^$ns"; then
      pids=$(ip netns pids "$ns" 2>/dev/null || true)
      # shellcheck disable=SC2086 # one pid per word
      [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
      ip netns del "$ns" 2>/dev/null || log "warning: could not delete namespace $ns"
    fi
    rm -rf "/etc/netns/$ns"
  done
  rm -rf "$WORK"
}
sweep_stale
trap teardown EXIT
trap 'exit 130' INT TERM

hosts_file=$(printf '127.0.0.1 localhost\n'; for h in "${LETTERS[@]}"; do printf '%s %s\n' "$(ip_of "$h")" "$(host_of "$h")"; done)
for h in "${LETTERS[@]}"; do
  ns=$(ns_of "$h")
  ip netns add "$ns"
  mkdir -p "/etc/netns/$ns"
  echo "$hosts_file" >"/etc/netns/$ns/hosts"
done
# The pairs are created directly inside the namespaces: nothing appears in this machine's own.
if ((HOSTS == 2)); then
  ip link add name mh0 netns "$NS_A" type veth peer name mh0 netns "$NS_B"
else # each host to its port of the switch's bridge
  ip netns add "$NS_SW"
  ip netns exec "$NS_SW" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n "$NS_SW" link add name br0 type bridge
  for h in "${LETTERS[@]}"; do
    ip link add name mh0 netns "$(ns_of "$h")" type veth peer name "port-$h" netns "$NS_SW"
    ip -n "$NS_SW" link set "port-$h" master br0
    ip -n "$NS_SW" link set "port-$h" up
  done
  ip -n "$NS_SW" link set br0 up
fi
for h in "${LETTERS[@]}"; do
  ns=$(ns_of "$h") ip=$(ip_of "$h")
  ip netns exec "$ns" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n "$ns" addr add "$ip/24" dev mh0
  ip -n "$ns" link set lo up
  ip -n "$ns" link set mh0 up
done

# enter_host <a|b> <clean|keep> <command line>: runs the command line (sh syntax) on a host: in its
# network namespace, under its hostname, with its own IPC namespace and /dev/shm, and the shared
# directory at the same path as everywhere. "clean" drops the environment as a remote shell does.
STASH=$WORK/stash
# On the distributed file system of scripts/dfs.sh, host b reaches the shared directory through the
# file system's second client (its mount at the same path), as a second node has a client of its own.
SHARED_B=$SHARED
if [ -n "$SHARED" ] && [ -n "${MPIIO_DFS_CLIENT2:-}" ] && [[ $SHARED == "${MPIIO_DFS_DIR:?}"/* ]]; then
  SHARED_B=$MPIIO_DFS_CLIENT2${SHARED#"$MPIIO_DFS_DIR"}
  log "shared directory on the distributed file system: host a through its first client, host b its second"
fi
mkdir -p "$STASH"
[ -z "$SHARED" ] || mkdir -p "$SHARED"
cat >"$WORK/enter_host" <<EOF
#!/bin/sh
# Generated by scripts/multihost.sh: enters simulated host \$1.
case \$1 in a) ns=$NS_A host=$HOST_A src="$SHARED" ;; b) ns=$NS_B host=$HOST_B src="$SHARED_B" ;;
  c) ns=$ID-c host=mpiio-host-c src="$SHARED" ;; d) ns=$ID-d host=mpiio-host-d src="$SHARED" ;;
  *) echo "enter_host: no host '\$1'" >&2; exit 1 ;; esac
[ -e "/run/netns/\$ns" ] || { echo "enter_host: no host '\$1' in this job" >&2; exit 1; }
exec ip netns exec "\$ns" unshare --uts --ipc --mount --pid --fork --mount-proc --propagation private sh -c '
  set -e
  hostname "\$1"
  shared="$SHARED"
  [ -z "\$shared" ] || mount --bind "\$5" "$STASH"
  mount -t tmpfs -o size=1g,mode=1777 tmpfs /dev/shm
  if [ -n "\$shared" ]; then mkdir -p "\$shared"; mount --move "$STASH" "\$shared"; fi
  if [ "\$2" = "$FAIL_HOST" ] && [ -n "\$shared" ]; then mount -t tmpfs -o ro,size=1m tmpfs "\$shared"; fi
  if [ "\$3" = clean ]; then exec env -i PATH="\$PATH" HOME="\${HOME:-/root}" sh -c "\$4"; fi
  exec sh -c "\$4"' enter_host "\$host" "\$1" "\$2" "\$3" "\$src"
EOF
# The remote-shell agent the launchers call as "<agent> [options] <host> <command words...>". Like
# ssh, it joins the words into one command line for a shell (Open MPI quotes values for that).
cat >"$WORK/agent" <<EOF
#!/bin/sh
# Generated by scripts/multihost.sh: the launchers' "ssh" to the simulated hosts.
while [ \$# -gt 0 ]; do case \$1 in -*) shift ;; *) break ;; esac; done
case \$1 in mpiio-host-[a-d]) h=\${1#mpiio-host-} ;; *) echo "agent: unknown host '\$1'" >&2; exit 255 ;; esac
shift
exec "$WORK/enter_host" "\$h" clean "\$*"
EOF
chmod +x "$WORK/enter_host" "$WORK/agent"

# ---- the launch command -----------------------------------------------------------------------
q() { printf '%q ' "$@"; }
hosts=$(for h in "${LETTERS[@]}"; do printf '%s:%s,' "$(host_of "$h")" "$PER_HOST"; done)
hosts=${hosts%,}
np=$((HOSTS * PER_HOST))
if [ "$MPI_FAMILY" = openmpi ]; then
  launch=("$MPIEXEC" -n "$np" --host "$hosts" --mca plm_rsh_agent "$WORK/agent" --bind-to none
          --mca btl tcp,vader,self --mca btl_tcp_if_include "$SUBNET" --mca oob_tcp_if_include "$SUBNET"
          --mca mpi_yield_when_idle 1) # 4 ranks polling TCP on 2 cores: yield, or run 3x slower
  [ -z "$IO" ] || launch+=(--mca io "$IO")
  for kv in "${ENVS[@]}"; do launch+=(-x "$kv"); done
else
  # UCX (MPICH's device here) selects networks by interface name, the same on both hosts.
  launch=("$MPIEXEC" -n "$np" -hosts "$hosts" -launcher rsh -launcher-exec "$WORK/agent"
          -genv UCX_NET_DEVICES mh0)
  for kv in "${ENVS[@]}"; do launch+=(-genv "${kv%%=*}" "${kv#*=}"); done
fi
# Started on host a with the caller's environment (the user's shell there).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

run_on_a() { # <command words...>: bounded in time ($TIMEOUT seconds)
  timeout --kill-after=15 "$TIMEOUT" "$WORK/enter_host" a keep "$(q "$@")"
}

host_list=$(for h in "${LETTERS[@]}"; do printf '%s (%s, namespace %s), ' "$(host_of "$h")" "$(ip_of "$h")" "$(ns_of "$h")"; done)
log "hosts: ${host_list%, }, $PER_HOST ranks each," \
    "$MPI_FAMILY ($MPIEXEC)${IO:+, io $IO}${FAIL_HOST:+, host $FAIL_HOST without the shared directory}"
rc=0
if [ -n "$PROBE" ]; then
  probe_out=$(TIMEOUT=$((TIMEOUT < 120 ? TIMEOUT : 120)) run_on_a "${launch[@]}" "$PROBE" "$PER_HOST" 2>&1) || rc=$?
  echo "$probe_out" | sed 's/^/[multihost] probe: /' >&2
  if ((rc)) || ! grep -q '^multihost_probe: .*: ok$' <<<"$probe_out"; then
    log "FAIL: the probe job failed (exit $rc): the ranks are not on $HOSTS hosts as asked"; exit $((rc ? rc : 1))
  fi
else
  log "no --probe: where the ranks run is not checked"
fi

log "job: $*"
run_on_a "${launch[@]}" "$@" || rc=$?
bytes() { ip -n "$1" -s link show mh0 | awk '/RX:/{getline; rx=$1} /TX:/{getline; tx=$1} END{print rx " received, " tx " sent"}'; }
traffic=$(for h in "${LETTERS[@]}"; do printf '%s %s; ' "$(host_of "$h")" "$(bytes "$(ns_of "$h")")"; done)
log "traffic between the hosts (bytes over the veth): ${traffic%; }"
if ((rc == 124)); then log "FAIL: the job did not finish within ${TIMEOUT}s (killed)"; fi
log "job exit status $rc"
exit $rc
