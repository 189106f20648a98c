#!/usr/bin/env bash
# Builds the web preset and assembles the static site in dist/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export NODE_PATH=/usr/share/nodejs  # Emscripten 3.1.6's JS optimizer needs it
cmake --preset web >/dev/null
cmake --build --preset web --target vramfit_api
rm -rf dist && mkdir -p dist
cp build/web/vramfit_api.js build/web/vramfit_api.wasm web/vramfit-api.js web/api.html dist/
# Until the ImGui app lands, the page is the JavaScript API example.
cp web/api.html dist/index.html
echo "dist/: $(ls dist | tr '\n' ' ')"
