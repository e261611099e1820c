# Sourced by scripts/dfs.sh and scripts/cephfs.sh: whether this machine can run a testbed of
# network namespaces joined by a bridge, with FUSE mounts. testbed_check_machine <probe name>
# returns when it can, and otherwise calls the sourcing script's cannot() with the reason (which
# fails the CI stage saying why: a testbed is never silently skipped).
testbed_check_machine() {
  local probe=$1-$$ why=""
  [ "$(id -u)" = 0 ] || cannot "needs root (network namespaces, FUSE mounts)"
  command -v ip >/dev/null || cannot "no 'ip' command (Debian package iproute2)"
  command -v nsenter >/dev/null && command -v unshare >/dev/null || cannot "no nsenter/unshare (util-linux)"
  [ -c /dev/fuse ] || cannot "no /dev/fuse (the kernel has no FUSE, or the container hides it)"
  grep -qw fuse /proc/filesystems || cannot "the kernel lists no 'fuse' file system in /proc/filesystems"
  unshare --net --mount true 2>/dev/null || cannot "network/mount namespaces are not allowed here"
  ip netns add "$probe" 2>/dev/null || cannot "'ip netns add' is not permitted here"
  ip -n "$probe" link add name br0 type bridge 2>/dev/null || why="bridges cannot be created (kernel without bridge?)"
  [ -n "$why" ] || ip link add name x0 netns "$probe" type veth peer name x1 netns "$probe" 2>/dev/null ||
    why="veth pairs cannot be created (kernel without veth?)"
  ip netns del "$probe" 2>/dev/null || true
  [ -z "$why" ] || cannot "$why"
}
