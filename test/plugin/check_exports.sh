#!/usr/bin/env bash
# The plugin must export exactly the two entry points HDF5's loader looks up.
#   check_exports.sh <libh5fd_mpiio.so>
set -euo pipefail
lib=$1
[ -f "$lib" ] || { echo "FAIL: $lib does not exist"; exit 1; }
exported=$(nm -D --defined-only "$lib" | awk 'NF >= 3 {print $3}' | sort)
expected=$(printf '%s\n' H5PLget_plugin_info H5PLget_plugin_type)
echo "exported dynamic symbols of $lib:"
echo "$exported"
if [ "$exported" != "$expected" ]; then
  echo "FAIL: expected exactly:"; echo "$expected"; exit 1
fi
# both are functions in the text section
for s in H5PLget_plugin_info H5PLget_plugin_type; do
  nm -D --defined-only "$lib" | grep -Eq "[[:space:]]T[[:space:]]$s\$" || { echo "FAIL: $s is not a text symbol"; exit 1; }
done
# no C++ runtime symbols leak (would clash with the host program's)
if nm -D --defined-only "$lib" | grep -q '_Z'; then echo "FAIL: C++ symbols exported"; exit 1; fi
echo PASS
