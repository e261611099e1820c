#!/usr/bin/env bash
# Runs a command with a CephFS file system on this machine, then tears it down: the second
# distributed file system beside scripts/dfs.sh (GlusterFS), with the same interface.
#
#   scripts/cephfs.sh --check
#   scripts/cephfs.sh [options] -- <command> [args...]
#
# The file system is CephFS (Debian's Ceph 16 "pacific": ceph-mon, ceph-mgr, ceph-osd, ceph-mds,
# ceph-fuse, installed when missing): one monitor and its manager, two object storage daemons
# (OSDs: bluestore on sparse files, small memory targets), one metadata server (MDS), a data and a
# metadata pool each keeping 2 replicas (one on each OSD; still writable with one OSD down), and
# two ceph-fuse clients. Every daemon and each client runs in a network namespace of its own off one
# bridge (a private subnet, IPv6 off, no route anywhere else); the clients only join their
# namespace's network, so both mounts appear on this machine and MPI programs run here unchanged
# while every byte crosses the simulated network. Unlike GlusterFS, CephFS keeps its clients
# coherent itself (the MDS hands out and recalls capabilities: the client whose file another client
# writes loses its caches of it), as a parallel file system's lock manager does; one client setting
# is needed: fuse_disable_pagecache = true, which keeps the kernel's page cache out of the FUSE
# mounts (with it, a write of part of a page is a read-modify-write of the whole page in the kernel,
# from a copy the other client may have changed meanwhile: HDF5 files written through two clients
# came out corrupt, under the built-in driver as under the plugin). docs/testing.md ("Shared
# storage", "CephFS") says what it reproduces and what it does not.
#
# The command runs with (the same variables as scripts/dfs.sh):
#   MPIIO_DFS_KIND        cephfs
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
#                         servers handled since profile-start, "<OP> <count>" lines, from the
#                         daemons' perf counters: READ and WRITE are the OSDs' client reads and
#                         writes (op_r, op_w; summed over the OSDs; the MDS's own journal and the
#                         manager's writes included), OSD_RW their read-modify-write operations, LK
#                         the file locks the MDS granted or tested, every other line a request
#                         type the MDS handled: LOOKUP, GETATTR, OPEN, CREATE, SETATTR, ...),
#                         `kill-server N` (OSD N, 1-based: SIGKILL), `kill-server-after S N` (the
#                         same S seconds later, in the background), `restart-servers` (start every
#                         OSD that was killed and wait until it is up and every placement group
#                         active), `kill-client N` (its ceph-fuse daemon: SIGKILL, then its session
#                         evicted from the MDS, as a cluster's fencing does with a dead client after
#                         mds_session_autoclose, 300 s: here at once, so that the other client gets
#                         the capabilities the dead one held), `restart-client N` (mount it again),
#                         `fill` (the file system full: a quota on its root of what it holds plus
#                         1 MiB, seen by both clients: a write or truncate growing the files past it
#                         fails at once with EDQUOT on either client, none blocks), `fill-pool` (the
#                         data pool full instead: a pool quota of what it holds, the monitors' full
#                         flag awaited; a client learns it at its next exchange with an OSD and then
#                         fails writes with ENOSPC or EIO, never blocking), `unfill` (lifts either),
#                         `ceph <args>` (the cluster's CLI, run in the monitor's
#                         namespace; the file system is named cephfs, its pools cephfs_data and
#                         cephfs_metadata)
#
# Options:
#   --check            only check that this machine can run it (root, FUSE, network namespaces,
#                      veth, bridges); exit 0, or 1 saying why (a CI stage then fails: it is never
#                      silently skipped)
#   --osd-size SIZE    each OSD's bluestore block file (sparse, default 4g)
#   --timeout S        seconds for the command before it is killed (default 3600)
# Exit status: the command's, 124 on timeout, 1 when the machine cannot run it (or the cluster did
# not come up), 2 on usage errors. Everything is removed at the end, also on failure or
# interruption; a watchdog removes it when this script dies without its exit handler (SIGKILL) or
# when it outlives its time by far, and what a run killed outright left anyway is removed by the
# next run. One testbed at a time (flock on $MPIIO_VFD_CACHE/locks/cephfs.lock; it can run beside
# scripts/dfs.sh: each lives in namespaces, subnets, directories and mounts of its own).
set -euo pipefail

OSD_SIZE=4g TIMEOUT=3600 CHECK_ONLY=0
log() { echo "[cephfs] $*" >&2; }
die() { echo "[cephfs] error: $*" >&2; exit 2; }
while (($#)); do
  case $1 in
    --check) CHECK_ONLY=1; shift ;;
    --osd-size) OSD_SIZE=${2:?--osd-size needs a value}; shift 2 ;;
    --timeout) TIMEOUT=${2:?--timeout needs a value}; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
((CHECK_ONLY)) || (($#)) || die "no command given (see --help)"
[[ $TIMEOUT =~ ^[0-9]+$ ]] || die "--timeout takes whole seconds"
OSD_BYTES=$(numfmt --from=iec "${OSD_SIZE^^}" 2>/dev/null) || die "--osd-size: not a size: $OSD_SIZE"

# ---- can this machine do it? ------------------------------------------------------------------
cannot() { echo "[cephfs] FAIL: this machine cannot run CephFS: $*" >&2; exit 1; }
# shellcheck source=scripts/testbed_check.sh
source "$(dirname "$0")/testbed_check.sh"
check_machine() {
  testbed_check_machine mpiio-cephcheck
  command -v python3 >/dev/null || cannot "no python3 (Ceph's CLI needs it)"
}
check_machine
if ((CHECK_ONLY)); then echo "cephfs: this machine can run CephFS"; exit 0; fi

# ---- packages and the lock --------------------------------------------------------------------
PACKAGES=(ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse ceph-common attr)
missing=0
for b in ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse ceph ceph-authtool monmaptool; do
  command -v "$b" >/dev/null || missing=1
done
if ((missing)); then
  log "installing ${PACKAGES[*]}"
  t_install=$SECONDS
  { DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${PACKAGES[@]}" ||
    { DEBIAN_FRONTEND=noninteractive apt-get update -q &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${PACKAGES[@]}"; }; } >&2 ||
    cannot "could not install ${PACKAGES[*]}"
  log "installed in $((SECONDS - t_install)) s"
fi
CACHE=${MPIIO_VFD_CACHE:-/var/cache/mpiio-vfd}
mkdir -p "$CACHE/locks"
exec 9>"$CACHE/locks/cephfs.lock"
flock -n 9 || { log "waiting for another CephFS testbed to be torn down"; flock 9; }

# ---- layout -----------------------------------------------------------------------------------
ID=mpiio-ceph$$
WORK=/tmp/$ID
B=$WORK/ceph # the cluster's state: configuration, keys, daemons' data, sockets, logs
SUBNET=10.252.0 # .1-.2 OSDs (servers 1-2), .5 monitor and manager, .6 MDS, .11-.12 clients
MON_IP=$SUBNET.5
OSDS=(1 2) CLIENTS=(1 2)
# The daemons' and the watchdog's bound: the command's time and room for set-up and teardown.
LIFE=$((TIMEOUT + 900))
ns_of() { echo "$ID-$1"; } # sw (the bridge), m (mon, mgr), s1-s2 (OSDs), d (MDS), c1-c2

# Whatever a run with this script's names left (the run's pid is gone, or it is this run's own
# teardown): its watchdog, the processes in its namespaces, its mounts, its namespaces, its files.
sweep() { # <id>
  local id=$1 ns m pid
  pid=$(cat "/tmp/$id/watchdog.pid" 2>/dev/null || true)
  if [ -n "$pid" ] && [ "$pid" != "$$" ] && grep -qas "mpiio-ceph-watchdog $id" "/proc/$pid/cmdline" 2>/dev/null; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  fi
  # The command, when its script died without ending it (its timeout wrapper leads a process group).
  pid=$(cat "/tmp/$id/command.pid" 2>/dev/null || true)
  if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = timeout ]; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  fi
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
    ip netns del "$ns" 2>/dev/null || echo "[cephfs] warning: could not delete namespace $ns" >&2
  done
  rm -rf "/tmp/$id"
}
# (ip netns pids does not list what runs in a namespace's mount namespace only: every process of
# the testbed joins a network namespace of its own)
# Whether the run of pid $1 still runs (a zombie does not: this machine's init may reap late).
alive() { local state; state=$(sed -n 's/.*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null); [ -n "$state" ] && [ "$state" != Z ]; }
for stale in $( { ip netns list 2>/dev/null | awk '{print $1}'; ls -d /tmp/mpiio-ceph[0-9]* 2>/dev/null | sed 's#^/tmp/##'; } |
                sed -n 's/^\(mpiio-ceph[0-9][0-9]*\).*/\1/p' | sort -u); do
  alive "${stale#mpiio-ceph}" && continue
  log "removing the testbed left by an earlier run (${stale#mpiio-ceph} is gone)"
  sweep "$stale"
done
teardown() {
  local t0=$SECONDS
  sweep "$ID"
  log "torn down in $((SECONDS - t0)) s"
}
CMD_PID=""
trap teardown EXIT
# (the command runs in the background so that a signal reaches this script at once, not after it)
trap '[ -z "$CMD_PID" ] || kill -TERM "$CMD_PID" 2>/dev/null; exit 130' INT TERM

t_setup=$SECONDS
mkdir -p "$WORK" "$B"/{run,log,keys,crash,mon/ceph-a,mgr/ceph-x,mds/ceph-a,osd/ceph-0,osd/ceph-1}
# The watchdog: when this script is gone (killed outright, its exit handler never ran) or has
# outlived the command's time by far, it removes the testbed. Not holding the lock (9>&-).
SWEEP_FN=$(declare -f sweep alive)
setsid bash -c "$SWEEP_FN"'
  main=$1 id=$2 life=$3
  while alive "$main" && ((SECONDS < life)); do sleep 2; done
  alive "$main" && echo "[cephfs] watchdog: the testbed outlived its ${life} s: removing it" >&2
  sweep "$id"' "mpiio-ceph-watchdog $ID" $$ "$ID" "$LIFE" 9>&- </dev/null >>"$WORK/watchdog.log" 2>&1 &
echo $! >"$WORK/watchdog.pid"

# ---- network: a bridge and six hosts ----------------------------------------------------------
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
for s in "${OSDS[@]}"; do add_host "s$s" "$SUBNET.$s"; done
add_host m "$MON_IP"
add_host d "$SUBNET.6"
for c in "${CLIENTS[@]}"; do add_host "c$c" "$SUBNET.1$c"; done

# ---- the cluster's configuration and keys ------------------------------------------------------
FSID=$(cat /proc/sys/kernel/random/uuid)
CONF=$B/ceph.conf
# (\$cluster, \$name, \$id: Ceph's own meta variables)
cat >"$CONF" <<EOF
# Generated by scripts/cephfs.sh: a cluster of one machine's network namespaces, its state in $B.
[global]
fsid = $FSID
mon_host = [v2:$MON_IP:3300,v1:$MON_IP:6789]
public_network = $SUBNET.0/24
ms_bind_ipv6 = false
auth_cluster_required = cephx
auth_service_required = cephx
auth_client_required = cephx
auth_allow_insecure_global_id_reclaim = false
run_dir = $B/run
admin_socket = $B/run/\$cluster-\$name.asok
pid_file = $B/run/\$cluster-\$name.pid
log_file = $B/log/\$cluster-\$name.log
mon_cluster_log_file = $B/log/\$cluster.log
crash_dir = $B/crash
mon_data = $B/mon/\$cluster-\$id
osd_data = $B/osd/\$cluster-\$id
mds_data = $B/mds/\$cluster-\$id
mgr_data = $B/mgr/\$cluster-\$id
# Two replicas, one on each OSD (each OSD a CRUSH host of its own, below); writable with one down.
osd_pool_default_size = 2
osd_pool_default_min_size = 1
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
mon_max_pg_per_osd = 500
mon_warn_on_pool_no_redundancy = false
mon_warn_on_insecure_global_id_reclaim_allowed = false
# (the monitor's store shares this machine's disk with everything else: warn at 10 % free, not 30 %)
mon_data_avail_warn = 10
# A killed OSD is marked down as soon as the other one finds it gone (two OSDs: one reporter).
mon_osd_min_down_reporters = 1
mon_osd_reporter_subtree_level = osd
osd_heartbeat_interval = 2
# Small: the daemons share two cores and the memory with the ranks.
mon_memory_target = 268435456
osd_memory_target = 536870912
osd_memory_cache_min = 134217728
osd_op_num_shards = 2
osd_op_num_threads_per_shard = 1
ms_async_op_threads = 2
mds_cache_memory_limit = 268435456
osd_objectstore = bluestore
bluestore_block_create = true
bluestore_block_size = $OSD_BYTES
bluestore_fsck_on_mkfs = false
[mon]
keyring = $B/keys/\$cluster.\$name.keyring
[osd]
keyring = $B/keys/\$cluster.\$name.keyring
[osd.0]
crush_location = root=default host=s1
[osd.1]
crush_location = root=default host=s2
[mds]
keyring = $B/keys/\$cluster.\$name.keyring
[mgr]
keyring = $B/keys/\$cluster.\$name.keyring
mgr_initial_modules =
[client]
keyring = $B/keys/\$cluster.\$name.keyring
admin_socket = $B/run/\$cluster-\$name.\$pid.asok
log_file = $B/log/\$cluster-\$name.\$pid.log
# Required: without it, HDF5 files written through both clients are corrupt (this script's header).
fuse_disable_pagecache = true
client_oc_size = 67108864
client_oc_max_dirty = 33554432
[client.admin]
log_file = $B/log/ceph-cli.log
EOF
for c in "${CLIENTS[@]}"; do printf '[client.c%s]\nadmin_socket = %s/run/ceph-client.c%s.asok\n' "$c" "$B" "$c" >>"$CONF"; done
# Every key made here and handed to the monitor before it starts (no CLI round trip per daemon).
key() { # <entity> [--cap subsystem caps]...: its keyring, and its key in the monitor's
  local entity=$1
  shift
  ceph-authtool --create-keyring "$B/keys/ceph.$entity.keyring" --gen-key -n "$entity" "$@" >/dev/null
  ceph-authtool "$B/keys/ceph.mon.a.keyring" --import-keyring "$B/keys/ceph.$entity.keyring" >/dev/null
}
ceph-authtool --create-keyring "$B/keys/ceph.mon.a.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
key client.admin --cap mon 'allow *' --cap osd 'allow *' --cap mds 'allow *' --cap mgr 'allow *'
key mgr.x --cap mon 'allow profile mgr' --cap osd 'allow *' --cap mds 'allow *'
key mds.a --cap mon 'allow profile mds' --cap osd 'allow rwx' --cap mds 'allow *' --cap mgr 'allow profile mds'
for s in "${OSDS[@]}"; do
  key "osd.$((s - 1))" --cap mon 'allow profile osd' --cap mgr 'allow profile osd' --cap osd 'allow *'
done
for c in "${CLIENTS[@]}"; do # (p: layouts and quotas through the ceph.* xattrs)
  key "client.c$c" --cap mon 'allow r' --cap mds 'allow rwp' --cap osd 'allow rw pool=cephfs_data'
done
monmaptool --create --fsid "$FSID" --addv a "[v2:$MON_IP:3300,v1:$MON_IP:6789]" "$B/keys/monmap" >/dev/null

# ---- the admin-socket helper of the controls (perf counters, evictions) --------------------------
# One Python process for every daemon's socket: the ceph CLI would cost a second of CPU per call.
cat >"$WORK/asok.py" <<'EOF'
# Generated by scripts/cephfs.sh: commands to the daemons' admin sockets.
#   asok.py <socket> <json command>              prints the reply
#   asok.py dump <file> <socket>...              saves every socket's perf counters in <file>
#   asok.py counts <file> <socket>...            "<OP> <count>" lines: the counters now less <file>
import json, socket, struct, sys

def call(path, cmd):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(path)
    s.sendall(json.dumps(cmd).encode() + b"\0")
    def recv(n):
        b = b""
        while len(b) < n:
            chunk = s.recv(n - len(b))
            if not chunk:
                raise OSError("short reply from " + path)
            b += chunk
        return b
    (n,) = struct.unpack(">I", recv(4))
    out = recv(n).decode()
    s.close()
    return out

def counts(path):
    """The operations a daemon handled, by name, from its perf dump."""
    d = json.loads(call(path, {"prefix": "perf dump"}))
    ops = {}
    def add(name, n):
        ops[name] = ops.get(name, 0) + int(n)
    if "osd" in d:
        add("READ", d["osd"].get("op_r", 0))
        add("WRITE", d["osd"].get("op_w", 0))
        add("OSD_RW", d["osd"].get("op_rw", 0))
    if "mds_server" in d:
        for k, v in d["mds_server"].items():
            if k.startswith("req_") and k.endswith("_latency") and isinstance(v, dict):
                name = k[4:-8].upper()
                add("LK" if name in ("SETFILELOCK", "GETFILELOCK") else name, v.get("avgcount", 0))
    return ops

if sys.argv[1] in ("dump", "counts"):
    now = {}
    for p in sys.argv[3:]:
        try:
            now[p] = counts(p)
        except OSError:  # a killed daemon's socket: nothing to count there
            pass
    if not now:
        sys.exit("asok.py: no daemon answered")
    if sys.argv[1] == "dump":
        json.dump(now, open(sys.argv[2], "w"))
    else:
        start = json.load(open(sys.argv[2]))
        total = {}
        for p, ops in now.items():
            for k, n in ops.items():
                before = start.get(p, {}).get(k, 0)
                total[k] = total.get(k, 0) + (n - before if n >= before else n)  # (n < before: restarted)
        for k in sorted(total):
            if total[k]:
                print(k, total[k])
else:
    print(call(sys.argv[1], json.loads(sys.argv[2])))
EOF

# ---- the controls (scripts/cephfs.sh --help), which the set-up below uses too --------------------
cat >"$WORK/ctl" <<EOF
#!/usr/bin/env bash
# Generated by scripts/cephfs.sh: controls of the testbed (see scripts/cephfs.sh --help).
set -u
# The daemons it starts hold none of the caller's descriptors (the testbed's lock, an MPI rank's
# pipes to its launcher), and live in the testbed's mount namespace (a rank on client 2 calling
# this has a private one).
for fd in /proc/\$\$/fd/*; do
  fd=\${fd##*/}; [ "\$fd" -gt 2 ] 2>/dev/null && [ "\$fd" != 255 ] && eval "exec \$fd>&-" 2>/dev/null
done
HOST_MNT=/proc/$$/ns/mnt
cli() { nsenter --net=/run/netns/$ID-m timeout 120 ceph -c $CONF --connect-timeout 60 "\$@"; }
asok() { python3 $WORK/asok.py "\$@"; }
# until_ok <tries> <what> <command...>: polls the command every 0.3 s
until_ok() {
  local n=\$1 what=\$2; shift 2
  until "\$@" >/dev/null 2>&1; do
    n=\$((n - 1)); [ \$n -gt 0 ] || { echo "ctl: \$what did not happen in time" >&2; return 1; }; sleep 0.3
  done
}
# start <host> <log name> <program> [args]: a daemon in the foreground in the host's network
# namespace, bounded by the testbed's life.
start() {
  local host=\$1 name=\$2; shift 2
  nsenter --mount=\$HOST_MNT --net=/run/netns/$ID-\$host setsid timeout -k 10 $LIFE "\$@" -f -c $CONF \\
    </dev/null >>"$B/log/\$name.out" 2>&1 &
}
# pid_of <host> <program>: the daemon's process in that host's namespace
pid_of() { for p in \$(ip netns pids "$ID-\$1" 2>/dev/null); do [ "\$(cat /proc/\$p/comm 2>/dev/null)" = "\$2" ] && echo \$p; done; }
osd_pid() { pid_of s\$1 ceph-osd; }
client_pid() { pid_of c\$1 ceph-fuse; }
osds_up() { # every OSD up and every placement group active
  cli osd stat -f json | grep -q '"num_up_osds":${#OSDS[@]},' &&
    ! cli pg stat | grep -Eq 'peering|activating|unknown|down|incomplete|stale'
}
client_mounted() { grep -q " $WORK/mnt\$1 fuse.ceph-fuse " /proc/mounts && stat -f "$WORK/mnt\$1" && ls "$WORK/mnt\$1"; }
pool_full() { cli osd pool ls detail -f json | python3 -c 'import json,sys
for p in json.load(sys.stdin):
    if p["pool_name"] == "cephfs_data": sys.exit(0 if "full" in p.get("flags_names", "") else 1)
sys.exit(2)'; }
case \${1:-} in
  ceph) shift; cli "\$@" ;;
  start-osd) # <n>
    mkdir -p "$B/osd/ceph-\$((\$2 - 1))"
    start s\$2 osd.\$((\$2 - 1)) ceph-osd -i \$((\$2 - 1)) ;;
  start-mon) start m mon.a ceph-mon -i a ;;
  start-mgr) start m mgr.x ceph-mgr -i x ;;
  start-mds) start d mds.a ceph-mds -i a ;;
  osds-up) osds_up ;;
  profile-start) asok dump $WORK/profile.start $B/run/ceph-osd.*.asok $B/run/ceph-mds.a.asok ;;
  profile-counts) asok counts $WORK/profile.start $B/run/ceph-osd.*.asok $B/run/ceph-mds.a.asok ;;
  kill-server)
    pid=\$(osd_pid "\${2:?}"); [ -n "\$pid" ] && kill -0 "\$pid" 2>/dev/null ||
      { echo "ctl: no OSD process on server \$2" >&2; exit 1; }
    kill -KILL "\$pid" && touch "$WORK/osd\$2.killed" ;;
  kill-server-after) # <seconds> <n>: in the background, so that it lands during what follows
    (sleep "\$2"; "\$0" kill-server "\$3") >/dev/null 2>&1 & ;;
  restart-servers)
    for s in ${OSDS[*]}; do
      [ -f "$WORK/osd\$s.killed" ] || continue
      until_ok 100 "the end of OSD \$s's process" eval '[ -z "\$(osd_pid \$s)" ]' || true
      "\$0" start-osd \$s && rm "$WORK/osd\$s.killed"
    done
    until_ok 300 "every OSD up and every placement group active" osds_up ;;
  # Client n: ceph-fuse in its network namespace (its mount appears here).
  mount-client)
    mkdir -p "$WORK/mnt\$2"
    start c\$2 client.c\$2 ceph-fuse -n client.c\$2 "$WORK/mnt\$2"
    daemon=\$! # (its timeout wrapper: gone when ceph-fuse gave up, as it does at once without an active MDS)
    for try in \$(seq 300); do
      client_mounted \$2 >/dev/null 2>&1 && exit 0
      kill -0 \$daemon 2>/dev/null || { echo "ctl: client \$2's ceph-fuse exited (log: $B/log/client.c\$2.out)" >&2; exit 1; }
      sleep 0.3
    done
    echo "ctl: client \$2's mount did not happen in time" >&2; exit 1 ;;
  mds-active) asok $B/run/ceph-mds.a.asok '{"prefix": "status"}' | grep -q '"state": "up:active"' ;;
  kill-client)
    pid=\$(client_pid "\${2:?}"); [ -n "\$pid" ] || { echo "ctl: no client \$2" >&2; exit 1; }
    gid=\$(asok $B/run/ceph-client.c\$2.asok '{"prefix": "status"}' |
          python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])') || gid=""
    kill -KILL "\$pid" || exit 1
    [ -n "\$gid" ] || { echo "ctl: client \$2's session id unknown: not evicted" >&2; exit 1; }
    asok $B/run/ceph-mds.a.asok "{\"prefix\": \"session evict\", \"filters\": [\"id=\$gid\"]}" >/dev/null ;;
  restart-client) nsenter --mount=\$HOST_MNT umount -l "$WORK/mnt\$2" 2>/dev/null; "\$0" mount-client "\$2" ;;
  # The file system full: a quota on its root of what it holds plus 1 MiB (room for a file's
  # metadata, as dfs.sh leaves each brick 256 KiB), set through client 1 and awaited on client 2.
  # Every client refuses at once (EDQUOT) a write or truncate that would grow the files past it.
  fill)
    held=\$(getfattr --only-values -n ceph.dir.rbytes "$WORK/mnt1" 2>/dev/null) && [ -n "\$held" ] || exit 1
    setfattr -n ceph.quota.max_bytes -v \$((held + 1048576)) "$WORK/mnt1" || exit 1
    until_ok 100 "client 2 seeing the quota" eval \
      '[ "\$(getfattr --only-values -n ceph.quota.max_bytes "$WORK/mnt2" 2>/dev/null)" = \$((held + 1048576)) ]' ;;
  # The data pool full instead: a pool quota of the bytes it holds (Ceph's count, at least one: no
  # room), and the monitors' full flag awaited. A client learns the flag on its next exchange with
  # an OSD: from then on it refuses writes with ENOSPC and cancels those under way (EIO, or ENOSPC
  # at fsync, for what it had cached), none blocks. Which ranks fail depends on what each had in
  # flight (HDF5's metadata writes at close then fail on some ranks only: docs/testing.md).
  fill-pool)
    # (num_bytes of the pool's statistics: what the monitors hold against the quota)
    held=\$(cli pg dump pools -f json 2>/dev/null | python3 -c 'import json,sys
for p in json.load(sys.stdin)["pool_stats"]:
    if p["poolid"] == 2: print(max(1, int(p["stat_sum"]["num_bytes"])))') && [ -n "\$held" ] || exit 1
    cli osd pool set-quota cephfs_data max_bytes "\$held" >/dev/null 2>&1 || exit 1
    until_ok 200 "the data pool's full flag" pool_full ;;
  unfill) # (either fill)
    if getfattr -n ceph.quota.max_bytes "$WORK/mnt1" >/dev/null 2>&1; then
      setfattr -n ceph.quota.max_bytes -v 0 "$WORK/mnt1" || exit 1
      until_ok 100 "client 2 seeing the quota lifted" eval '! getfattr -n ceph.quota.max_bytes "$WORK/mnt2"'
    fi
    if pool_full; then
      cli osd pool set-quota cephfs_data max_bytes 0 >/dev/null 2>&1 || exit 1
      until_ok 200 "the data pool's full flag lifted" eval '! pool_full'
    fi ;;
  *) echo "ctl: unknown control '\${1:-}'" >&2; exit 2 ;;
esac
EOF
chmod +x "$WORK/ctl"

wait_for() { # <seconds> <what> <command...>: polls the command until it succeeds
  local until=$((SECONDS + $1)) what=$2
  shift 2
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < until)) || { log "FAIL: $what did not happen within the time allowed (logs: $B/log)"; return 1; }
    sleep 0.3
  done
}
up_failed() { # the cluster did not come up: say where, with the logs' tails
  local f
  for f in "$B"/log/*.out "$B"/log/ceph-mon.a.log "$B"/log/ceph-mds.a.log "$B"/log/ceph-client.c*.log; do
    [ -s "$f" ] && { echo "---- $f"; tail -n 15 "$f"; }
  done >&2
  cannot "the cluster did not come up: $1"
}
cli() { "$WORK/ctl" ceph "$@"; }

# ---- monitor, OSDs, file system, MDS ----------------------------------------------------------
nsenter --net="/run/netns/$(ns_of m)" ceph-mon -c "$CONF" --mkfs -i a --monmap "$B/keys/monmap" \
  --keyring "$B/keys/ceph.mon.a.keyring" >"$B/log/mon.a.mkfs.out" 2>&1 || up_failed "ceph-mon --mkfs"
"$WORK/ctl" start-mon
wait_for 60 "the monitor answering" cli mon stat || up_failed "the monitor"
"$WORK/ctl" start-mgr
# The OSDs' stores (each ceph-osd --mkfs asks the monitor for the configuration) while the CLI
# registers them and makes the pools and the file system (one CLI process for every command).
pids=()
for s in "${OSDS[@]}"; do
  uuid=$(cat /proc/sys/kernel/random/uuid)
  echo "$uuid" >"$B/osd/uuid$s"
  nsenter --net="/run/netns/$(ns_of "s$s")" timeout 300 ceph-osd -c "$CONF" -i $((s - 1)) --mkfs --osd-uuid "$uuid" \
    >"$B/log/osd.$((s - 1)).mkfs.out" 2>&1 9>&- &
  pids+=($!)
done
{ for s in "${OSDS[@]}"; do echo "osd new $(cat "$B/osd/uuid$s") $((s - 1))"; done
  echo "osd pool create cephfs_metadata"
  echo "osd pool create cephfs_data"
  echo "fs new cephfs cephfs_metadata cephfs_data"; } | cli >"$B/log/cli-setup.out" 2>&1 || true
for p in "${pids[@]}"; do wait "$p" || up_failed "ceph-osd --mkfs (log: $B/log)"; done
cli fs ls 2>/dev/null | grep -q 'name: cephfs, metadata pool: cephfs_metadata, data pools: \[cephfs_data' ||
  up_failed "the file system was not created ($(tr '\n' ' ' <"$B/log/cli-setup.out"))"
for s in "${OSDS[@]}"; do "$WORK/ctl" start-osd "$s"; done
"$WORK/ctl" start-mds
wait_for 120 "the MDS active" "$WORK/ctl" mds-active || up_failed "the MDS did not become active"

# ---- clients: ceph-fuse in their own network namespaces (they mount once the MDS is active) ------
for c in "${CLIENTS[@]}"; do "$WORK/ctl" mount-client "$c" || up_failed "client $c's mount"; done
DIR=$WORK/mnt1 DIR2=$WORK/mnt2
# Both clients see the same file system (a file created through one is read through the other).
echo "$ID" >"$DIR/.testbed" && [ "$(cat "$DIR2/.testbed")" = "$ID" ] && rm "$DIR/.testbed" ||
  up_failed "a file written through client 1 does not read back through client 2"
# statfs answers from the manager's statistics: 0 blocks (a "full" disk) until its first report.
has_blocks() { [ "$(stat -f -c %b "$DIR")" -gt 0 ]; }
wait_for 120 "statfs reporting the pools' space" has_blocks || up_failed "statfs reports no space"

# ---- the rank agent -------------------------------------------------------------------------------
cat >"$WORK/agent" <<EOF
#!/bin/sh
# Generated by scripts/cephfs.sh: odd ranks run on client 2 (its mount bound at the shared path in a
# private mount namespace), even ranks on client 1; MPIIO_DFS_CLIENTS=1 keeps every rank on client 1.
rank=\${OMPI_COMM_WORLD_RANK:-\${PMI_RANK:-0}}
if [ "\${MPIIO_DFS_CLIENTS:-2}" != 1 ] && [ \$((rank % 2)) = 1 ]; then
  exec unshare --mount --propagation private sh -c 'mount --bind "\$1" "\$2" && cd "\$(pwd -P)" && shift 2 && exec "\$@"' agent "$DIR2" "$DIR" "\$@"
fi
exec "\$@"
EOF
chmod +x "$WORK/agent"
log "CephFS: monitor $MON_IP, OSDs $SUBNET.1-2 (bluestore, $OSD_SIZE sparse files, 2 replicas), MDS $SUBNET.6," \
    "clients $SUBNET.11 at $DIR and $SUBNET.12 at $DIR2; set up in $((SECONDS - t_setup)) s"

export MPIIO_DFS_KIND=cephfs MPIIO_DFS_DIR=$DIR MPIIO_DFS_CLIENT2=$DIR2 MPIIO_DFS_AGENT=$WORK/agent MPIIO_DFS_CTL=$WORK/ctl
rc=0
timeout --kill-after=15 "$TIMEOUT" "$@" 9>&- 0<&0 &
CMD_PID=$!
echo "$CMD_PID" >"$WORK/command.pid"
wait "$CMD_PID" || rc=$?
CMD_PID=""
rm -f "$WORK/command.pid"
((rc != 124)) || log "FAIL: the command did not finish within ${TIMEOUT}s (killed)"
exit $rc
