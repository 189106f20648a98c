#!/usr/bin/env bash
# Each folder of src/ is a layer that may include only the layers below it (CMakeLists.txt gives
# each library only their include roots, so a wrong "layer/file.hpp" include does not compile).
# This check names the offending line instead, and rejects "../" includes that would walk
# around the include roots.
set -euo pipefail
cd "$(dirname "$0")/../src"
declare -A allowed=(
  [core]="core"
  [io]="core io"
  [catalog]="core io catalog"
  [text]="core io text"
  [report]="core io catalog report"
  [net]="core io catalog report net"
  [cli]="core io catalog report text net cli"
  [app]="core io catalog report text app"
  [platform]="core io catalog report text app net platform"
)
failed=0
for layer in "${!allowed[@]}"; do
  while IFS= read -r line; do
    file=${line%%:*}
    target=$(sed -E 's/.*#include "([^"]*)".*/\1/' <<<"$line")
    if [[ $target == *../* ]]; then
      echo "$line: includes through ../"; failed=1; continue
    fi
    [[ $target == */* ]] || continue  # a file of the same folder
    first=${target%%/*}
    [[ -d $first ]] || continue       # not a layer (e.g. a generated or third-party path)
    if [[ " ${allowed[$layer]} " != *" $first "* ]]; then
      echo "$line: the $layer layer may include only: ${allowed[$layer]}"; failed=1
    fi
  done < <(grep -rn '#include "' "$layer" || true)
done
for folder in */; do
  [[ -n ${allowed[${folder%/}]+x} ]] || { echo "src/$folder is not a known layer (tests/check_layers.sh)"; failed=1; }
done
((failed == 0)) && echo "every include stays within its layer's dependencies"
exit $failed
