#!/usr/bin/env bash
# Builds the web preset and assembles the static site:
#   dist/            index.html, embed.html, shell.js, vramfit_app.js/.wasm (the app),
#                    vramfit_api.js/.wasm + vramfit-api.js + api.html (the core-only JS API)
#   dist/vramfit.html  one self-contained file (scripts and wasm inlined) that works from disk
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export NODE_PATH=/usr/share/nodejs  # Emscripten 3.1.6's JS optimizer needs it
cmake --preset web >/dev/null
cmake --build --preset web --target vramfit_app vramfit_api
rm -rf dist && mkdir -p dist
cp build/web/vramfit_app.js build/web/vramfit_app.wasm build/web/vramfit_api.js build/web/vramfit_api.wasm \
   web/index.html web/shell.js web/vramfit-api.js web/api.html dist/
# embed.html: the same page in the compact layout for iframes.
sed 's|<script src="shell.js"></script>|<script>window.VRAMFIT_EMBED = true;</script>\n<script src="shell.js"></script>|; s|<title>[^<]*</title>|<title>vramfit (embedded)</title>|' \
  web/index.html > dist/embed.html
python3 scripts/single_file.py dist dist/vramfit.html
echo "dist/: $(ls dist | tr '\n' ' ')"
