#!/usr/bin/env bash
# Estimator throughput, natively and in WebAssembly under Node.js (figures in README.md).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export NODE_PATH=/usr/share/nodejs
cmake --preset native >/dev/null && cmake --build --preset native --target vramfit_bench >/dev/null
cmake --preset web >/dev/null && cmake --build --preset web --target vramfit_bench >/dev/null
echo "native ($(g++ --version | head -n1)):"
build/native/bench/vramfit_bench
echo "wasm (Emscripten $(emcc --version | head -n1 | grep -oE '[0-9]+\.[0-9]+\.[0-9]+'), Node.js $(node --version)):"
node build/web/bench/vramfit_bench.js
