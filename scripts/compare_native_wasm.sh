#!/usr/bin/env bash
# Runs every golden request (tests/golden/*.json, failures included) through the native CLI
# and the WebAssembly CLI under Node.js and requires byte-identical output.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
native=build/native/vramfit
wasm="node build/web/vramfit.js"
passed=0; failed=0
for file in tests/golden/*.json; do
  for extra in "" "--compare" "--units GiB"; do
    a="$($native infer --request "$file" $extra --json 2>&1 || true)"
    b="$($wasm infer --request "$file" $extra --json 2>&1 || true)"
    if [ "$a" == "$b" ]; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
      echo "DIFFERENT: $file $extra"
      diff <(echo "$a") <(echo "$b") | head -20
    fi
  done
done
echo "native vs wasm: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
