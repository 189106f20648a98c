#!/usr/bin/env bash
# Builds the web preset and assembles the static site:
#   dist/            index.html, embed.html, shell.js, vramfit_app.js/.wasm (the app, with every
#                    engine; vramfit-api.js wraps it for dropped files and Hub ids),
#                    vramfit_estimator.js/.wasm + vramfit-api.js + api.html (the core-only JS API),
#                    messages/ar.json (the Arabic catalog, fetched when the page is first drawn in Arabic)
#   dist/vramfit.html  one self-contained file (scripts and wasm inlined) that works from disk
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export NODE_PATH=/usr/share/nodejs  # Emscripten 3.1.6's JS optimizer needs it
cmake --preset web >/dev/null
cmake --build --preset web --target vramfit_app vramfit_estimator
rm -rf dist && mkdir -p dist
cp build/web/vramfit_app.js build/web/vramfit_app.wasm \
   build/web/vramfit_estimator.js build/web/vramfit_estimator.wasm \
   web/vramfit-api.js web/api.html dist/
# The Arabic catalog without its notes to translators ("_" keys, which no program reads) and
# layout, as the native builds embed it (cmake/embed.cmake).
mkdir -p dist/messages
python3 -c 'import json, sys
catalog = {k: v for k, v in json.load(open(sys.argv[1], encoding="utf-8")).items() if not k.startswith("_")}
open(sys.argv[2], "w", encoding="utf-8").write(json.dumps(catalog, ensure_ascii=False, separators=(",", ":")))' \
  data/messages/ar.json dist/messages/ar.json
# The page without its comment lines and indentation.
sed -e '/^<!--.*-->$/d' -e 's/^ *//' web/index.html > dist/index.html
# The page's own script, minified (Closure Compiler's SIMPLE mode: whitespace, comments and
# local names; nothing the page or the app calls by name changes): 2.1 -> 1.4 KB gzip.
closure=node_modules/.bin/google-closure-compiler
if [ -x "$closure" ]; then
  "$closure" --compilation_level SIMPLE --language_out ECMASCRIPT_2017 --js web/shell.js --js_output_file dist/shell.js
else
  echo "build_dist: $closure missing (scripts/setup.sh installs it): shell.js is not minified" >&2
  cp web/shell.js dist/
fi
# embed.html: the same page in the compact layout for iframes.
sed 's|<script src="shell.js"></script>|<script>window.VRAMFIT_EMBED = true;</script>\n<script src="shell.js"></script>|; s|<title>[^<]*</title>|<title>vramfit (embedded)</title>|' \
  dist/index.html > dist/embed.html
python3 scripts/single_file.py dist dist/vramfit.html
echo "dist/: $(ls dist | tr '\n' ' ')"
