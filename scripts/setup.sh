#!/usr/bin/env bash
# Installs what mpiio-vfd needs on Debian 12 and prints the HDF5 prefix (or root) to use.
#
#   scripts/setup.sh [--mpi openmpi|mpich] [--hdf5 1.14.5|1.14.6]
#   scripts/setup.sh --stack <trixie-openmpi|trixie-mpich|sid-openmpi|sid-mpich>
#
# Installs the Debian packages (compilers, CMake, the chosen MPI family, debootstrap), then builds
# the stock parallel HDF5 release (with its subfiling driver) against that MPI into a cache, once
# per (MPI family, HDF5 version):
#   Open MPI: $CACHE/hdf5-<version>          MPICH: $CACHE/hdf5-<version>-mpich
# With a root stack (scripts/stack.sh), it creates or refreshes that stack's Debian root
# filesystem instead ($CACHE/roots/<suite>) and prints its path.
# The last line on stdout is the HDF5 prefix or the root (everything else goes to stderr).
#
# Options (environment equivalents in parentheses):
#   --mpi F          MPI family, openmpi (default) or mpich                      (MPIIO_MPI)
#   --hdf5 V         HDF5 release, 1.14.5 (default, Debian suite trixie) or 1.14.6 (suite sid)
#                                                                                (HDF5_VERSION)
#   --stack S        a stack (scripts/stack.sh list); bookworm-<family> is --mpi <family>
# Environment:
#   HDF5_ROOT        an existing parallel HDF5 >= 1.14 install; used as is when it qualifies and is
#                    linked against the requested MPI family
#   MPIIO_VFD_CACHE  where the stock HDF5 builds are cached (default /var/cache/mpiio-vfd)
#
# Idempotent: with everything present it only checks and returns in a few seconds. Two concurrent
# runs never build the same prefix at once (flock on $CACHE/locks/<prefix name>.lock); the second
# waits and reuses the first one's build.
set -euo pipefail

MPI_FAMILY=${MPIIO_MPI:-openmpi}
HDF5_VERSION=${HDF5_VERSION:-1.14.5}
STACK=""
while (($#)); do
  case $1 in
    --mpi) MPI_FAMILY=${2:?--mpi needs a value}; shift 2 ;;
    --stack) STACK=${2:?--stack needs a value}; shift 2 ;;
    --hdf5) HDF5_VERSION=${2:?--hdf5 needs a value}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "[setup] unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
CACHE=${MPIIO_VFD_CACHE:-/var/cache/mpiio-vfd}
log() { echo "[setup] $*" >&2; }
SUITE_OF_STACK=bookworm
if [ -n "$STACK" ]; then
  read -r SUITE_OF_STACK MPI_FAMILY <<<"$("$(dirname "$0")"/stack.sh info "$STACK")"
fi

case "$MPI_FAMILY" in
  openmpi) MPI_PACKAGES=(openmpi-bin libopenmpi-dev); MPICC=mpicc.openmpi; MPICXX=mpicxx.openmpi; SUFFIX="" ;;
  mpich) MPI_PACKAGES=(mpich libmpich-dev); MPICC=mpicc.mpich; MPICXX=mpicxx.mpich; SUFFIX="-mpich" ;;
  *) log "--mpi must be openmpi or mpich (got $MPI_FAMILY)"; exit 2 ;;
esac
case "$HDF5_VERSION" in
  1.14.5) SUITE=trixie ;;
  1.14.6) SUITE=sid ;;
  *) log "--hdf5 must be 1.14.5 or 1.14.6 (got $HDF5_VERSION)"; exit 2 ;;
esac

# ---- Debian packages -------------------------------------------------------
# (debootstrap and util-linux's unshare make and enter the root stacks' file systems; valgrind counts
# instructions for the instructions label, strace file-system calls for scripts/scale_counts.sh)
PACKAGES=(build-essential cmake ninja-build pkg-config "${MPI_PACKAGES[@]}"
          libgtest-dev zlib1g-dev dpkg-dev xz-utils gnuplot-nox iproute2 util-linux debootstrap
          valgrind strace)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" != 0 ]; then
    log "missing Debian packages: ${missing[*]} (run this script as root to install them)"; exit 1
  fi
  log "installing: ${missing[*]}"
  apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi
if [ "$SUITE_OF_STACK" != bookworm ]; then
  "$(dirname "$0")"/stack.sh setup "$STACK"
  echo "$CACHE/roots/$SUITE_OF_STACK"; exit 0
fi

# Debian installs the families side by side; the suffixed wrappers pick one explicitly (the
# unsuffixed mpicc is whichever family the alternatives system prefers).
command -v "$MPICC" >/dev/null || { MPICC=mpicc; MPICXX=mpicxx; }

# ---- parallel HDF5 ---------------------------------------------------------
is_parallel_hdf5_114() { # $1 = prefix
  local conf="$1/include/H5pubconf.h" pub="$1/include/H5public.h"
  [ -f "$conf" ] && [ -f "$pub" ] || return 1
  grep -q '^#define H5_HAVE_PARALLEL 1' "$conf" || return 1
  local maj min
  maj=$(awk '/#define H5_VERS_MAJOR/{print $3}' "$pub")
  min=$(awk '/#define H5_VERS_MINOR/{print $3}' "$pub")
  [ "$maj" = 1 ] && [ "$min" -ge 14 ]
}

# The MPI family libhdf5 in prefix $1 is linked against: openmpi, mpich, or unknown.
hdf5_mpi_family() {
  local lib
  lib=$(ls "$1"/lib/libhdf5.so "$1"/lib/*/libhdf5.so 2>/dev/null | head -1)
  [ -n "$lib" ] || { echo unknown; return; }
  case "$(ldd "$lib" 2>/dev/null)" in
    *libmpi.so.40*) echo openmpi ;;
    *libmpich.so*|*libmpi.so.12*) echo mpich ;;
    *) echo unknown ;;
  esac
}

if [ -n "${HDF5_ROOT:-}" ]; then
  if ! is_parallel_hdf5_114 "$HDF5_ROOT"; then
    log "HDF5_ROOT=$HDF5_ROOT is not a parallel HDF5 >= 1.14; using the stock release instead"
  elif [ "$(hdf5_mpi_family "$HDF5_ROOT")" = "$MPI_FAMILY" ]; then
    log "using HDF5_ROOT=$HDF5_ROOT"
    echo "$HDF5_ROOT"; exit 0
  else
    log "HDF5_ROOT=$HDF5_ROOT is linked against $(hdf5_mpi_family "$HDF5_ROOT"), not $MPI_FAMILY; using the stock release instead"
  fi
fi

NAME="hdf5-$HDF5_VERSION$SUFFIX"
PREFIX="$CACHE/$NAME"
SRC="$CACHE/src/hdf5-$HDF5_VERSION"
# The stock builds include the subfiling driver (the benchmark compares it with the plugin); a
# cached build from before it was added is rebuilt.
stock_build_ready() {
  [ -f "$1/.complete" ] && is_parallel_hdf5_114 "$1" &&
    grep -q '^#define H5_HAVE_SUBFILING_VFD 1' "$1/include/H5pubconf.h"
}
if stock_build_ready "$PREFIX"; then
  log "cached parallel HDF5 $HDF5_VERSION ($MPI_FAMILY) in $PREFIX"
  echo "$PREFIX"; exit 0
fi

mkdir -p "$CACHE/src" "$CACHE/locks"
# One builder per prefix (and per source tree); whoever waited re-checks and reuses.
exec 8>"$CACHE/locks/$NAME.lock"
flock -n 8 || { log "waiting for another setup that is building $NAME"; flock 8; }
if stock_build_ready "$PREFIX"; then
  log "parallel HDF5 $HDF5_VERSION ($MPI_FAMILY) was built meanwhile in $PREFIX"
  echo "$PREFIX"; exit 0
fi

exec 7>"$CACHE/locks/src-hdf5-$HDF5_VERSION.lock"
flock -n 7 || { log "waiting for another setup that is unpacking hdf5-$HDF5_VERSION"; flock 7; }
if [ ! -f "$SRC/.unpacked" ]; then
  # Fetch Debian's hdf5 source package from the mirror apt already uses, with a private
  # apt state so the system's sources and lists stay untouched.
  APTDIR=$(mktemp -d)
  trap 'rm -rf "$APTDIR"' EXIT
  mkdir -p "$APTDIR/lists/partial" "$APTDIR/parts" "$APTDIR/dl"
  uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v -- -security | head -1 || true)
  [ -n "$uri" ] || uri=$(grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}' | grep -v -- -security | head -1 || true)
  [ -n "$uri" ] || { log "no Debian mirror found in the apt configuration"; exit 1; }
  cat > "$APTDIR/parts/hdf5-src.sources" <<SRCEOF
Types: deb-src
URIs: $uri
Suites: $SUITE
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRCEOF
  A=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$APTDIR/parts" -o "Dir::State::Lists=$APTDIR/lists")
  log "fetching Debian source package hdf5 ($SUITE)"
  apt-get "${A[@]}" update -q >&2
  ver=$(apt-cache "${A[@]}" showsrc hdf5 | awk '/^Version:/{print $2}' | grep "^$HDF5_VERSION" | head -1 || true)
  [ -n "$ver" ] || { log "suite $SUITE has no hdf5 $HDF5_VERSION"; exit 1; }
  (cd "$APTDIR/dl" && apt-get "${A[@]}" source --download-only "hdf5=$ver" >&2)
  rm -rf "$SRC"; mkdir -p "$SRC"
  # The upstream ("orig") tarball is the stock release; Debian's patches are not applied.
  tar -xf "$APTDIR"/dl/hdf5_*.orig.tar.* -C "$SRC" --strip-components=1
  touch "$SRC/.unpacked"
fi
exec 7>&-

log "building parallel HDF5 $HDF5_VERSION with $MPI_FAMILY ($MPICC) into $PREFIX (several minutes)"
BUILD="$CACHE/build/$NAME"
rm -rf "$BUILD" "$PREFIX"
cmake -S "$SRC" -B "$BUILD" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" \
  -DCMAKE_C_COMPILER="$MPICC" -DCMAKE_CXX_COMPILER="$MPICXX" \
  -DMPI_C_COMPILER="$MPICC" -DMPI_CXX_COMPILER="$MPICXX" \
  -DHDF5_ENABLE_PARALLEL=ON -DBUILD_SHARED_LIBS=ON -DBUILD_STATIC_LIBS=OFF \
  -DHDF5_ENABLE_Z_LIB_SUPPORT=ON -DHDF5_BUILD_TOOLS=ON -DHDF5_BUILD_HL_LIB=ON \
  -DHDF5_BUILD_CPP_LIB=OFF -DHDF5_BUILD_FORTRAN=OFF -DHDF5_BUILD_JAVA=OFF \
  -DHDF5_BUILD_EXAMPLES=OFF -DBUILD_TESTING=OFF -DHDF5_ENABLE_SZIP_SUPPORT=OFF \
  -DHDF5_ENABLE_SUBFILING_VFD=ON \
  -DHDF5_ALLOW_EXTERNAL_SUPPORT=NO >"$CACHE/$NAME-configure.log" 2>&1 \
  || { log "HDF5 configure failed; see $CACHE/$NAME-configure.log"; exit 1; }
cmake --build "$BUILD" -j "$(nproc)" >"$CACHE/$NAME-build.log" 2>&1 \
  || { log "HDF5 build failed; see $CACHE/$NAME-build.log"; exit 1; }
cmake --install "$BUILD" >/dev/null
is_parallel_hdf5_114 "$PREFIX" || { log "built HDF5 is not parallel 1.14"; exit 1; }
got=$(hdf5_mpi_family "$PREFIX")
[ "$got" = "$MPI_FAMILY" ] || { log "built HDF5 is linked against $got, not $MPI_FAMILY"; exit 1; }
touch "$PREFIX/.complete"
log "parallel HDF5 $HDF5_VERSION ($MPI_FAMILY) installed in $PREFIX"
echo "$PREFIX"
