#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, and runs every test suite
# (unit, plugin loading, MPI suites on 1-4 ranks under OMPIO and ROMIO, error cases, install
# check, HDF5's own testpar conformance suite). Extra arguments go to ctest, e.g. `-L mpi`.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(scripts/build.sh | tail -n 1)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# MPI suites oversubscribe 2 cores with 4 ranks; they run one at a time (RUN_SERIAL).
ctest --test-dir "$build" --output-on-failure --timeout 1800 "$@"
