#!/usr/bin/env bash
# Installs what mpiio-vfd needs on Debian 12 and prints the HDF5 prefix to use.
#
#   scripts/setup.sh            # packages + parallel HDF5 (cached), prints HDF5_ROOT on stdout's last line
#
# Environment:
#   HDF5_ROOT       an existing parallel HDF5 >= 1.14 install; used as is when it qualifies
#   HDF5_VERSION    1.14.5 (default, Debian suite trixie) or 1.14.6 (suite sid)
#   MPIIO_VFD_CACHE where the stock HDF5 build is cached (default /var/cache/mpiio-vfd), outside the clone
#
# Idempotent: with everything present it only checks and returns in a few seconds.
set -euo pipefail

HDF5_VERSION=${HDF5_VERSION:-1.14.5}
CACHE=${MPIIO_VFD_CACHE:-/var/cache/mpiio-vfd}
log() { echo "[setup] $*" >&2; }

# ---- Debian packages -------------------------------------------------------
PACKAGES=(build-essential cmake ninja-build pkg-config openmpi-bin libopenmpi-dev
          libgtest-dev zlib1g-dev dpkg-dev xz-utils gnuplot-nox)
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

if [ -n "${HDF5_ROOT:-}" ] && is_parallel_hdf5_114 "$HDF5_ROOT"; then
  log "using HDF5_ROOT=$HDF5_ROOT"
  echo "$HDF5_ROOT"; exit 0
fi
[ -n "${HDF5_ROOT:-}" ] && log "HDF5_ROOT=$HDF5_ROOT is not a parallel HDF5 >= 1.14; building the stock release instead"

case "$HDF5_VERSION" in
  1.14.5) SUITE=trixie ;;
  1.14.6) SUITE=sid ;;
  *) log "HDF5_VERSION must be 1.14.5 or 1.14.6 (got $HDF5_VERSION)"; exit 1 ;;
esac

PREFIX="$CACHE/hdf5-$HDF5_VERSION"
SRC="$CACHE/src/hdf5-$HDF5_VERSION"
if [ -f "$PREFIX/.complete" ] && is_parallel_hdf5_114 "$PREFIX"; then
  log "cached parallel HDF5 $HDF5_VERSION in $PREFIX"
  echo "$PREFIX"; exit 0
fi

mkdir -p "$CACHE/src"
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

log "building parallel HDF5 $HDF5_VERSION into $PREFIX (about two minutes)"
BUILD="$CACHE/build/hdf5-$HDF5_VERSION"
rm -rf "$BUILD" "$PREFIX"
cmake -S "$SRC" -B "$BUILD" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" \
  -DCMAKE_C_COMPILER=mpicc -DCMAKE_CXX_COMPILER=mpicxx \
  -DHDF5_ENABLE_PARALLEL=ON -DBUILD_SHARED_LIBS=ON -DBUILD_STATIC_LIBS=OFF \
  -DHDF5_ENABLE_Z_LIB_SUPPORT=ON -DHDF5_BUILD_TOOLS=ON -DHDF5_BUILD_HL_LIB=ON \
  -DHDF5_BUILD_CPP_LIB=OFF -DHDF5_BUILD_FORTRAN=OFF -DHDF5_BUILD_JAVA=OFF \
  -DHDF5_BUILD_EXAMPLES=OFF -DBUILD_TESTING=OFF -DHDF5_ENABLE_SZIP_SUPPORT=OFF \
  -DHDF5_ALLOW_EXTERNAL_SUPPORT=NO >"$CACHE/hdf5-$HDF5_VERSION-configure.log" 2>&1 \
  || { log "HDF5 configure failed; see $CACHE/hdf5-$HDF5_VERSION-configure.log"; exit 1; }
cmake --build "$BUILD" -j "$(nproc)" >"$CACHE/hdf5-$HDF5_VERSION-build.log" 2>&1 \
  || { log "HDF5 build failed; see $CACHE/hdf5-$HDF5_VERSION-build.log"; exit 1; }
cmake --install "$BUILD" >/dev/null
is_parallel_hdf5_114 "$PREFIX" || { log "built HDF5 is not parallel 1.14"; exit 1; }
touch "$PREFIX/.complete"
log "parallel HDF5 $HDF5_VERSION installed in $PREFIX"
echo "$PREFIX"
