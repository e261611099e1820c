#!/usr/bin/env bash
# Runs a command with a real distributed file system on this machine, then tears it down.
#
#   scripts/dfs.sh --check
#   scripts/dfs.sh [options] -- <command> [args...]
#
# The file system is GlusterFS (Debian's glusterfs-server and glusterfs-client, installed when
# missing): three servers, each its own glusterd and brick in its own network namespace, one
# `disperse` volume over them (every file striped over the three as 2 data + 1 parity fragments:
# it survives one server down), FUSE-mounted by two client daemons in two more namespaces. The
# namespaces hang off one bridge (a private subnet, IPv6 off, no route anywhere else); the client
# daemons only join their namespace's network, so both mounts appear on this machine and MPI
# programs run here unchanged while every byte crosses the simulated network. Client caching is off
# (the volume's performance translators, FUSE direct I/O, zero attribute and entry timeouts): it is
# what keeps two clients coherent, as a parallel file system's lock manager does. docs/testing.md
# ("Shared storage") says what it reproduces and what it does not.
#
# The command runs with:
#   MPIIO_DFS_KIND        glusterfs (scripts/cephfs.sh, the other testbed, says cephfs)
#   MPIIO_DFS_DIR         the path every rank uses (client 1's mount; client 2 is bound there for
#                         the ranks the agent puts on it)
#   MPIIO_DFS_CLIENT2     client 2's own mount
#   MPIIO_DFS_AGENT       a rank wrapper: `mpiexec -n 4 $MPIIO_DFS_AGENT prog` runs odd ranks on
#                         client 2 (a private mount namespace with client 2's mount at
#                         MPIIO_DFS_DIR) and even ranks on client 1; MPIIO_DFS_CLIENTS=1 in the
#                         ranks' environment keeps all on client 1. Under Open MPI 4.1 the same
#                         wrapper serves as the launcher's fork agent (OMPI_MCA_orte_fork_agent),
#                         which puts the ranks of unchanged command lines (ctest's) on both clients.
#   MPIIO_DFS_CTL         the testbed's controls: `profile-start`, `profile-counts` (operations the
#                         servers handled since profile-start: "<FOP> <count>" lines summed over
#                         bricks), `kill-server N` (its brick process), `kill-server-after S N` (the
#                         same S seconds later, in the background), `restart-servers` (start every
#                         brick that is down and wait until it is back), `kill-client N` (its FUSE
#                         daemon), `restart-client N` (mount it again), `fill` (the volume full:
#                         every brick shrunk to what it holds), `unfill`, `gluster <args>` (the
#                         volume's CLI; the volume is named mpiiovol)
#
# Options:
#   --check            only check that this machine can run it (root, FUSE, network namespaces,
#                      veth, bridges); exit 0, or 1 saying why (a CI stage then fails: it is never
#                      silently skipped)
#   --brick-size SIZE  each server's brick is a tmpfs of this size (default 2g); the volume holds
#                      twice that (2 data fragments of 3); small sizes make "disk full" reachable
#   --timeout S        seconds for the command before it is killed (default 3600)
# Exit status: the command's, 124 on timeout, 1 when the machine cannot run it, 2 on usage errors.
# Everything is removed at the end, also on failure or interruption; what a run killed outright
# (SIGKILL) left behind is removed by the next run. One testbed at a time (flock on
# $MPIIO_VFD_CACHE/locks/dfs.lock; MPIIO_DFS_LOCK names another lock file, for a second testbed
# beside the first: each lives in namespaces, directories and mounts of its own).
set -euo pipefail

BRICK_SIZE=2g TIMEOUT=3600 CHECK_ONLY=0
log() { echo "[dfs] $*" >&2; }
die() { echo "[dfs] error: $*" >&2; exit 2; }
while (($#)); do
  case $1 in
    --check) CHECK_ONLY=1; shift ;;
    --brick-size) BRICK_SIZE=${2:?--brick-size needs a value}; shift 2 ;;
    --timeout) TIMEOUT=${2:?--timeout needs a value}; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
((CHECK_ONLY)) || (($#)) || die "no command given (see --help)"

# ---- can this machine do it? ------------------------------------------------------------------
cannot() { echo "[dfs] FAIL: this machine cannot run the distributed file system: $*" >&2; exit 1; }
# shellcheck source=scripts/testbed_check.sh
source "$(dirname "$0")/testbed_check.sh"
check_machine() {
  testbed_check_machine mpiio-dfscheck
  grep -qw tmpfs /proc/filesystems || cannot "no tmpfs for the bricks"
}
check_machine
if ((CHECK_ONLY)); then echo "dfs: this machine can run the distributed file system"; exit 0; fi

# ---- packages and the lock --------------------------------------------------------------------
if ! command -v glusterd >/dev/null || ! command -v glusterfs >/dev/null; then
  log "installing glusterfs-server and glusterfs-client"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q glusterfs-server glusterfs-client >&2 ||
    cannot "could not install glusterfs-server and glusterfs-client"
fi
CACHE=${MPIIO_VFD_CACHE:-/var/cache/mpiio-vfd}
mkdir -p "$CACHE/locks"
exec 9>"${MPIIO_DFS_LOCK:-$CACHE/locks/dfs.lock}"
flock -n 9 || { log "waiting for another testbed to be torn down"; flock 9; }

# ---- layout -----------------------------------------------------------------------------------
ID=mpiio-dfs$$
WORK=/tmp/$ID
SUBNET=10.251.0 # .1-.3 servers, .11-.12 clients
SERVERS=(1 2 3) CLIENTS=(1 2)
VOLUME=mpiiovol
ns_of() { echo "$ID-$1"; } # sw (the bridge), s1-s3, c1-c2

# Whatever a run with this script's names left when it was killed outright (its pid is gone):
# processes in its namespaces, its mounts, its namespaces, its files.
sweep() { # <id>
  local id=$1 ns m
  for m in $(awk -v id="/tmp/$id/" 'index($2, id) == 1 {print $2}' /proc/mounts | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$id-" || true); do
    # shellcheck disable=SC2046 # one pid per word
    kill -KILL $(ip netns pids "$ns" 2>/dev/null) 2>/dev/null || true
  done
  sleep 0.2
  for m in $(awk -v id="/tmp/$id/" 'index($2, id) == 1 {print $2}' /proc/mounts | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$id-" || true); do
    ip netns del "$ns" 2>/dev/null || log "warning: could not delete namespace $ns"
  done
  rm -rf "/tmp/$id" /var/log/glusterfs/bricks/tmp-"$id"-*
}
for stale in $(ip netns list 2>/dev/null | awk '{print $1}' | sed -n 's/^\(mpiio-dfs[0-9]*\)-.*/\1/p' | sort -u); do
  kill -0 "${stale#mpiio-dfs}" 2>/dev/null && continue
  log "removing the testbed left by an earlier run (${stale#mpiio-dfs} is gone)"
  sweep "$stale"
done
teardown() {
  local t0=$SECONDS
  sweep "$ID"
  log "torn down in $((SECONDS - t0)) s"
}
trap teardown EXIT
trap 'exit 130' INT TERM

# ---- network: a bridge and five hosts -----------------------------------------------------------
t_setup=$SECONDS
mkdir -p "$WORK"
ip netns add "$(ns_of sw)"
ip -n "$(ns_of sw)" link add name br0 type bridge
ip -n "$(ns_of sw)" link set br0 up
add_host() { # <name> <address>
  local ns
  ns=$(ns_of "$1")
  ip netns add "$ns"
  ip link add name eth0 netns "$ns" type veth peer name "v$1" netns "$(ns_of sw)"
  ip -n "$(ns_of sw)" link set "v$1" master br0
  ip -n "$(ns_of sw)" link set "v$1" up
  ip netns exec "$ns" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n "$ns" addr add "$2/24" dev eth0
  ip -n "$ns" link set lo up
  ip -n "$ns" link set eth0 up
}
for s in "${SERVERS[@]}"; do add_host "s$s" "$SUBNET.$s"; done
for c in "${CLIENTS[@]}"; do add_host "c$c" "$SUBNET.1$c"; done

# ---- servers: one glusterd each, with its own state, run directory and sockets -------------------
for s in "${SERVERS[@]}"; do
  d=$WORK/s$s
  mkdir -p "$d/lib" "$d/run" "$d/log" "$d/brick"
  mount -t tmpfs -o "size=$BRICK_SIZE" "$ID-brick$s" "$d/brick"
  sed -e "s#/var/lib/glusterd#$d/lib#" -e "/^end-volume/i\\    option run-directory $d/run" \
      -e "/^end-volume/i\\    option glusterd-sockfile $d/glusterd.socket" \
      -e "/^end-volume/i\\    option transport.socket.bind-address $SUBNET.$s" \
      /etc/glusterfs/glusterd.vol >"$d/glusterd.vol"
  # (Without the lock's descriptor: a daemon left by a run killed outright would hold the lock, and
  # the next run, which removes such leftovers once it has the lock, would wait for ever.)
  ip netns exec "$(ns_of "s$s")" glusterd -f "$d/glusterd.vol" -p "$d/glusterd.pid" \
     -l "$d/log/glusterd.log" --log-level WARNING 9>&-
done
# The testbed's controls (scripts/dfs.sh --help), which the set-up below uses too.
cat >"$WORK/ctl" <<EOF
#!/bin/sh
# Generated by scripts/dfs.sh: controls of the testbed (see scripts/dfs.sh --help).
exec 9>&- # the daemons it starts must not hold the testbed's lock
gcli() { ip netns exec $(ns_of s1) gluster --glusterd-sock=$WORK/s1/glusterd.socket --mode=script "\$@"; }
brick_pid() { cat "$WORK/s\$1/run/vols/$VOLUME/$SUBNET.\$1-"*.pid 2>/dev/null; }
# until_ok <tries> <what> <command...>: polls the command every 0.3 s
until_ok() {
  n=\$1 what=\$2; shift 2
  until "\$@" >/dev/null 2>&1; do
    n=\$((n - 1)); [ \$n -gt 0 ] || { echo "ctl: \$what did not happen in time" >&2; exit 1; }; sleep 0.3
  done
}
bricks_online() { [ "\$("\$0" bricks-up)" = ${#SERVERS[@]} ]; }
client_mounted() { stat -f -c %T "$WORK/mnt\$1" | grep -q fuse && ls "$WORK/mnt\$1"; }
case \$1 in
  gluster) shift; gcli "\$@" ;;
  # Bricks whose process is up (the XML form: the table wraps long brick paths).
  bricks-up) gcli volume status $VOLUME --xml | tr -d ' \\n' |
               grep -o '<path>/[^<]*</path><peerid>[^<]*</peerid><status>1</status>' | wc -l ;;
  profile-start) gcli volume profile $VOLUME start >/dev/null 2>&1 || true; gcli volume profile $VOLUME info clear >/dev/null ;;
  profile-counts)
    # "Cumulative Stats" of every brick: a table whose rows end in "<calls> <FOP>".
    gcli volume profile $VOLUME info cumulative |
      awk '/^Brick:/{c=0} /Cumulative Stats/{c=1} /Interval/{c=0}
           c && NF >= 2 && \$NF ~ /^[A-Z_]+\$/ && \$(NF-1) ~ /^[0-9]+\$/ {n[\$NF] += \$(NF-1)}
           END {for (f in n) print f, n[f]}' | sort ;;
  # A killed brick restarts with the command line glusterd gave it (as glusterd would on
  # "volume start force", which does not restart a brick of another server's glusterd here).
  kill-server)
    pid=\$(brick_pid "\$2"); [ -n "\$pid" ] || { echo "ctl: no brick process on server \$2" >&2; exit 1; }
    tr '\\0' '\\n' <"/proc/\$pid/cmdline" >"$WORK/s\$2/brick.cmdline"; kill -KILL "\$pid" ;;
  restart-servers)
    for s in ${SERVERS[*]}; do
      [ -f "$WORK/s\$s/brick.cmdline" ] || continue
      tr '\\n' '\\0' <"$WORK/s\$s/brick.cmdline" | xargs -0 ip netns exec $ID-s\$s && rm "$WORK/s\$s/brick.cmdline"
    done
    until_ok 200 "every brick back" bricks_online ;;
  kill-server-after) # <seconds> <n>: in the background, so that it lands during what follows
    (sleep "\$2"; "\$0" kill-server "\$3") >/dev/null 2>&1 & ;;
  # Client n's FUSE daemon, caches off, in its network namespace (its mount appears here).
  mount-client)
    mkdir -p "$WORK/mnt\$2"
    nsenter --net=/run/netns/$ID-c\$2 glusterfs --volfile-server=$SUBNET.1 --volfile-id=$VOLUME \\
      --direct-io-mode=enable --attribute-timeout=0 --entry-timeout=0 --negative-timeout=0 \\
      --log-level=WARNING -l "$WORK/client\$2.log" -p "$WORK/client\$2.pid" "$WORK/mnt\$2" || exit 1
    until_ok 100 "client \$2's mount" client_mounted "\$2" ;;
  kill-client) kill -KILL "\$(cat "$WORK/client\$2.pid")" ;;
  restart-client) umount -l "$WORK/mnt\$2" 2>/dev/null; "\$0" mount-client "\$2" ;;
  # The volume full: every brick's tmpfs shrunk to what it holds plus 256 KiB; unfill restores it.
  fill)
    for s in ${SERVERS[*]}; do
      used=\$(df --output=used -B1 "$WORK/s\$s/brick" | tail -n 1)
      mount -o remount,size=\$((used + 262144)) "$WORK/s\$s/brick" || exit 1
    done ;;
  unfill) for s in ${SERVERS[*]}; do mount -o remount,size=$BRICK_SIZE "$WORK/s\$s/brick" || exit 1; done ;;
  *) echo "ctl: unknown control '\$1'" >&2; exit 2 ;;
esac
EOF
chmod +x "$WORK/ctl"
gcli() { "$WORK/ctl" gluster "$@"; }
wait_for() { # <seconds> <what> <command...>: polls the command until it succeeds
  local until=$((SECONDS + $1)) what=$2
  shift 2
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < until)) || { log "FAIL: $what did not happen within the time allowed"; return 1; }
    sleep 0.3
  done
}
wait_for 60 "glusterd of server 1 answering" gcli peer status
for s in "${SERVERS[@]:1}"; do wait_for 60 "peer probe of server $s" gcli peer probe "$SUBNET.$s"; done
peers_connected() { [ "$(gcli peer status | grep -c 'Peer in Cluster (Connected)')" = $((${#SERVERS[@]} - 1)) ]; }
wait_for 60 "every server joining the pool" peers_connected
bricks=()
for s in "${SERVERS[@]}"; do bricks+=("$SUBNET.$s:$WORK/s$s/brick/b"); done
wait_for 60 "the volume's creation" gcli volume create "$VOLUME" disperse "${#SERVERS[@]}" redundancy 1 "${bricks[@]}" force
# Client caches off: what keeps two clients coherent (the FUSE options below do the same in the kernel).
for option in write-behind read-ahead io-cache quick-read open-behind stat-prefetch readdir-ahead nl-cache; do
  gcli volume set "$VOLUME" "performance.$option" off >/dev/null
done
gcli volume start "$VOLUME" >/dev/null
bricks_online() { [ "$("$WORK/ctl" bricks-up)" = "${#SERVERS[@]}" ]; }
wait_for 60 "every brick online" bricks_online

# ---- clients: FUSE daemons in their own network namespaces -------------------------------------
for c in "${CLIENTS[@]}"; do "$WORK/ctl" mount-client "$c"; done
DIR=$WORK/mnt1 DIR2=$WORK/mnt2

# ---- the rank agent -------------------------------------------------------------------------------
cat >"$WORK/agent" <<EOF
#!/bin/sh
# Generated by scripts/dfs.sh: odd ranks run on client 2 (its mount bound at the shared path in a
# private mount namespace), even ranks on client 1; MPIIO_DFS_CLIENTS=1 keeps every rank on client 1.
rank=\${OMPI_COMM_WORLD_RANK:-\${PMI_RANK:-0}}
if [ "\${MPIIO_DFS_CLIENTS:-2}" != 1 ] && [ \$((rank % 2)) = 1 ]; then
  exec unshare --mount --propagation private sh -c 'mount --bind "\$1" "\$2" && cd "\$(pwd -P)" && shift 2 && exec "\$@"' agent "$DIR2" "$DIR" "\$@"
fi
exec "\$@"
EOF
chmod +x "$WORK/agent"
log "volume $VOLUME: disperse 2+1 over servers $SUBNET.1-3 (bricks tmpfs $BRICK_SIZE each), clients" \
    "$SUBNET.11 at $DIR and $SUBNET.12 at $DIR2; set up in $((SECONDS - t_setup)) s"

export MPIIO_DFS_KIND=glusterfs MPIIO_DFS_DIR=$DIR MPIIO_DFS_CLIENT2=$DIR2 MPIIO_DFS_AGENT=$WORK/agent MPIIO_DFS_CTL=$WORK/ctl
rc=0
timeout --kill-after=15 "$TIMEOUT" "$@" || rc=$?
((rc != 124)) || log "FAIL: the command did not finish within ${TIMEOUT}s (killed)"
exit $rc
