#!/usr/bin/env bash
# Every Catch2 test case must carry an area tag that tests/CMakeLists.txt runs as a CTest test,
# except hidden ones (a tag starting with "."), which their caller runs by tag (the GGUF dump
# that tests/js/gguf_oracle.test.mjs asks for).
set -euo pipefail
cd "$(dirname "$0")"
areas=$(grep -oE 'foreach\(area [^)]*\)' CMakeLists.txt | sed -E 's/foreach\(area //; s/\)//')
pattern="\\[($(echo $areas | tr ' ' '|'))\\]"
missing=$(grep -n 'TEST_CASE(' ./*.cpp | grep -vE "$pattern" | grep -vF '"[.' || true)
if [ -n "$missing" ]; then
  echo "test cases without an area tag ($areas):"; echo "$missing"; exit 1
fi
echo "every test case is in a CTest area"
