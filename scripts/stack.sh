#!/usr/bin/env bash
# Stacks: an MPI family plus a parallel HDF5 that mpiio-vfd is built and tested against.
#
#   scripts/stack.sh list                     the stacks, one a line: name, suite, MPI family, HDF5
#   scripts/stack.sh info <stack>             "<suite> <mpi family>" of one stack
#   scripts/stack.sh setup <stack>            create or refresh the stack's root filesystem
#   scripts/stack.sh run <stack> <cmd> [args] run a command inside the stack (the current directory
#                                             and the source tree are the same paths inside)
#
# Stacks on this Debian 12 host (no root filesystem; scripts/setup.sh builds stock HDF5):
#   bookworm-openmpi   Open MPI 4.1 + the project's build of HDF5 1.14.5 or 1.14.6
#   bookworm-mpich     MPICH 4.0    + the project's build of HDF5 1.14.5 or 1.14.6
# Stacks in a Debian root filesystem, with the distribution's own parallel HDF5 (libhdf5-*-dev,
# headers in /usr/include/hdf5/<family>, tools in /usr/bin), as users of those systems have it:
#   trixie-openmpi     Debian 13: Open MPI 5.0, HDF5 1.14.5
#   trixie-mpich       Debian 13: MPICH 4.2,    HDF5 1.14.5
#   sid-openmpi        Debian unstable: Open MPI 6.0, HDF5 2.2
#   sid-mpich          Debian unstable: MPICH 5.0,    HDF5 2.2
# Both families of a suite share one root: $MPIIO_VFD_CACHE/roots/<suite> (default cache
# /var/cache/mpiio-vfd), made with debootstrap from the mirror apt is configured with. setup holds
# a lock ($CACHE/locks/root-<suite>.lock) while it creates or checks a root, records the HDF5
# package version it installed, and rebuilds the root when the suite's candidate version differs
# (a root that cannot be checked against the archive is used as recorded, with a warning).
# A stack that cannot be created fails with the reason.
#
# run enters the root in a private mount namespace (unshare --mount: every mount disappears when
# the command ends, also when it fails) with proc, sys, dev, dev/pts and a fresh tmpfs dev/shm, the
# source tree bound at its own absolute path, and the environment less PATH, LD_* and HDF5_ROOT.
# Inside, MPIIO_VFD_STACK names the stack and MPIIO_VFD_STACK_SUITE its suite (scripts/build.sh
# and test.sh check it: both stacks of a suite are built in the same root).
set -euo pipefail

SRC_DIR=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${MPIIO_VFD_CACHE:-/var/cache/mpiio-vfd}
# What the tests and scripts call inside a root: the toolchain, both MPI families, the
# distribution's parallel HDF5 for both, its serial tools (h5dump, h5ls, h5diff), and what
# scripts/setup.sh installs on the host for test scripts (ip for multihost, gnuplot for main.sh,
# flock/unshare from util-linux, ps/pgrep from procps, valgrind for the instructions label, strace
# for scripts/scale_counts.sh).
ROOT_PACKAGES=(build-essential cmake ninja-build pkgconf libgtest-dev zlib1g-dev hdf5-tools
               openmpi-bin libopenmpi-dev mpich libmpich-dev libhdf5-openmpi-dev libhdf5-mpich-dev
               iproute2 gnuplot-nox util-linux procps file binutils ca-certificates valgrind strace)
# Debian 13 also gets its own h5py and mpi4py, for the Python example (test/python): its
# python3-h5py-mpi is built against the libhdf5-openmpi the trixie-openmpi stack tests, and
# python3-h5py is the `import h5py` that picks it under mpirun (the serial build otherwise). (sid's
# h5py follows its HDF5 2.x transitions and would make the root's creation fail when it lags.)
PYTHON_PACKAGES=(python3-h5py python3-h5py-mpi python3-mpi4py)
# suite_packages <suite>: what a root of <suite> has installed, one package a line.
suite_packages() {
  printf '%s\n' "${ROOT_PACKAGES[@]}"
  if [ "$1" = trixie ]; then printf '%s\n' "${PYTHON_PACKAGES[@]}"; fi
}
log() { echo "[stack] $*" >&2; }
die() { log "$*"; exit 1; }

# stack_table: name suite family description (one stack a line)
stack_table() {
  cat <<'EOF'
bookworm-openmpi bookworm openmpi Debian 12 host: Open MPI 4.1, project-built HDF5 1.14.5/1.14.6
bookworm-mpich   bookworm mpich   Debian 12 host: MPICH 4.0, project-built HDF5 1.14.5/1.14.6
trixie-openmpi   trixie   openmpi Debian 13 root: Open MPI 5.0, Debian's HDF5 1.14.5
trixie-mpich     trixie   mpich   Debian 13 root: MPICH 4.2, Debian's HDF5 1.14.5
sid-openmpi      sid      openmpi Debian unstable root: Open MPI 6.0, Debian's HDF5 2.2
sid-mpich        sid      mpich   Debian unstable root: MPICH 5.0, Debian's HDF5 2.2
EOF
}

# stack_fields <stack>: prints "suite family", fails naming the known stacks otherwise.
stack_fields() {
  local line
  line=$(stack_table | awk -v s="$1" '$1 == s {print $2, $3}')
  [ -n "$line" ] || die "unknown stack '$1' (known: $(stack_table | awk '{printf "%s ", $1}'))"
  echo "$line"
}

# The Debian mirror apt uses on the host (deb822 sources first, then sources.list).
host_mirror() {
  local uri
  uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v -- -security | head -1 || true)
  [ -n "$uri" ] || uri=$(grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}' | grep -v -- -security | head -1 || true)
  [ -n "$uri" ] || die "no Debian mirror found in the apt configuration (/etc/apt/sources.list*)"
  echo "$uri"
}

# ---- entering a root ------------------------------------------------------------------------
# in_root <root> <cmd...>: runs cmd in the root with the mounts listed in the header, cwd kept
# when it exists inside. The mounts live in a private namespace and vanish with it.
in_root() {
  local root=$1
  shift
  [ "$(id -u)" = 0 ] || die "entering a root filesystem needs root (unshare --mount, chroot)"
  unshare --mount --propagation private -- bash -euo pipefail -c '
    root=$1 src=$2 cwd=$3; shift 3
    mount -t proc proc "$root/proc"
    mount --rbind /sys "$root/sys"
    mount --bind /dev "$root/dev"
    mount --bind /dev/pts "$root/dev/pts"
    mount -t tmpfs -o mode=1777 shm "$root/dev/shm"
    mkdir -p "$root$src"
    mount --bind "$src" "$root$src"
    # the host resolver, so apt inside reaches the mirror
    if [ -e /etc/resolv.conf ]; then
      cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
    fi
    [ -d "$root$cwd" ] || cwd=/
    exec chroot "$root" /usr/bin/env -u LD_LIBRARY_PATH -u LD_PRELOAD -u HDF5_ROOT -u HDF5_PLUGIN_PATH \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
      bash -c "cd \"\$0\" && exec \"\$@\"" "$cwd" "$@"
  ' in_root "$root" "$SRC_DIR" "$PWD" "$@"
}

# ---- creating a root ------------------------------------------------------------------------
# The HDF5 version a root records (libhdf5-openmpi-dev's), empty when it has none.
recorded_hdf5() { cat "$1/.mpiio-vfd-hdf5" 2>/dev/null || true; }

# candidate_hdf5 <root>: the suite's current libhdf5-openmpi-dev version (apt-get update inside).
candidate_hdf5() {
  in_root "$1" bash -c 'apt-get update -q >/dev/null 2>&1 &&
    apt-cache policy libhdf5-openmpi-dev | awk "/Candidate:/{print \$2}"'
}

# create_root <suite> <root>: debootstrap into <root>.new, install the packages, record, rename.
create_root() {
  local suite=$1 root=$2 mirror tmp=$2.new
  command -v debootstrap >/dev/null || die "debootstrap is not installed (scripts/setup.sh installs it)"
  mirror=$(host_mirror)
  rm -rf "$tmp"
  log "debootstrap --variant=minbase $suite into $tmp (a few minutes)"
  # (in a private mount namespace too: debootstrap's own mounts of proc and sys go with it)
  unshare --mount --propagation private -- \
    debootstrap --variant=minbase "$suite" "$tmp" "$mirror" >"$CACHE/roots/$suite-debootstrap.log" 2>&1 \
    || die "debootstrap $suite failed (mirror from apt's configuration); see $CACHE/roots/$suite-debootstrap.log"
  printf 'deb %s %s main\n' "$mirror" "$suite" >"$tmp/etc/apt/sources.list"
  # sid's Release file carries a Valid-Until date a week ahead; a mirror that is a fixed snapshot
  # of the archive serves it expired, and apt would then refuse the suite.
  echo 'Acquire::Check-Valid-Until "false";' >"$tmp/etc/apt/apt.conf.d/99mpiio-vfd"
  local packages=()
  mapfile -t packages < <(suite_packages "$suite")
  log "installing ${#packages[@]} packages into the $suite root"
  in_root "$tmp" bash -c 'export DEBIAN_FRONTEND=noninteractive
      apt-get update -q && apt-get -f install -y -q &&
      apt-get install -y -q --no-install-recommends "$@" && apt-get clean' \
      install "${packages[@]}" >"$CACHE/roots/$suite-install.log" 2>&1 \
    || die "installing packages into the $suite root failed; see $CACHE/roots/$suite-install.log"
  in_root "$tmp" dpkg-query -W -f='${Version}' libhdf5-openmpi-dev >"$tmp/.mpiio-vfd-hdf5" \
    || die "the $suite root has no libhdf5-openmpi-dev after the install"
  in_root "$tmp" dpkg-query -W -f='${Package} ${Version}\n' >"$tmp/.mpiio-vfd-packages"
  rm -rf "$root"
  mv "$tmp" "$root"
  log "$suite root ready in $root (HDF5 package $(recorded_hdf5 "$root"))"
}

# install_missing <root>: the packages (suite_packages) a root made before one was added lacks.
install_missing() {
  local root=$1 missing=() packages=()
  mapfile -t packages < <(suite_packages "$(basename "$root")")
  read -r -a missing <<<"$(in_root "$root" bash -c 'for p; do
      dpkg-query -W -f="\${Status}" "$p" 2>/dev/null | grep -q "install ok installed" || printf "%s " "$p"
    done' check "${packages[@]}")"
  ((${#missing[@]})) || return 0
  log "installing into the root: ${missing[*]}"
  in_root "$root" bash -c 'export DEBIAN_FRONTEND=noninteractive
      apt-get install -y -q --no-install-recommends "$@" && apt-get clean' install "${missing[@]}" \
      >>"$CACHE/roots/$(basename "$root")-install.log" 2>&1 \
    || die "installing ${missing[*]} into $root failed; see $CACHE/roots/$(basename "$root")-install.log"
  in_root "$root" dpkg-query -W -f='${Package} ${Version}\n' >"$root/.mpiio-vfd-packages"
}

# setup_root <suite>: the root for <suite>, created or rebuilt as needed, under the suite's lock.
setup_root() {
  local suite=$1 root=$CACHE/roots/$1 have want
  mkdir -p "$CACHE/roots" "$CACHE/locks"
  exec 9>"$CACHE/locks/root-$suite.lock"
  flock -n 9 || { log "waiting for another setup of the $suite root"; flock 9; }
  have=$(recorded_hdf5 "$root")
  if [ -n "$have" ]; then
    if want=$(candidate_hdf5 "$root") && [ -n "$want" ]; then
      if [ "$want" = "$have" ]; then
        log "$suite root in $root (HDF5 package $have, the suite's current one)"
        install_missing "$root"
        exec 9>&-; return 0
      fi
      log "the $suite suite now has HDF5 package $want (root has $have): rebuilding the root"
    else
      log "WARNING: cannot check the $suite root against the archive (apt-get update failed); using it as recorded (HDF5 package $have)"
      exec 9>&-; return 0
    fi
  fi
  create_root "$suite" "$root"
  exec 9>&-
}

main() {
  local cmd=${1:-} stack suite family
  case $cmd in
    list) stack_table ;;
    info) read -r suite family <<<"$(stack_fields "${2:?info needs a stack}")"; echo "$suite $family" ;;
    setup|run)
      stack=${2:?$cmd needs a stack}
      read -r suite family <<<"$(stack_fields "$stack")"
      [ "$suite" != bookworm ] || die "$stack is this host's own stack: nothing to set up or enter"
      if [ "$cmd" = setup ]; then setup_root "$suite"; return; fi
      shift 2
      (($#)) || die "run needs a command"
      [ -f "$CACHE/roots/$suite/.mpiio-vfd-hdf5" ] \
        || die "no $suite root in $CACHE/roots (run: scripts/stack.sh setup $stack)"
      MPIIO_VFD_STACK=$stack MPIIO_VFD_STACK_SUITE=$suite in_root "$CACHE/roots/$suite" "$@" ;;
    -h|--help|help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
    *) die "unknown command '$cmd' (list, info, setup, run; see --help)" ;;
  esac
}

main "$@"
