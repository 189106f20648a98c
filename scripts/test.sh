#!/usr/bin/env bash
# Every test suite: set up, build native and web, run the Catch2 suite natively and under
# Node.js (WebAssembly), then check the native and the wasm CLI print the same JSON.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scripts/setup.sh
export NODE_PATH=/usr/share/nodejs
echo "== native build and tests"
cmake --workflow --preset native
echo "== WebAssembly build and tests (Node.js)"
cmake --workflow --preset web
echo "== native and WebAssembly CLI agree"
scripts/compare_native_wasm.sh
