#!/usr/bin/env bash
# Every test suite: set up, build native and web, run the Catch2 suite natively and under
# Node.js (WebAssembly), read models by Hub id from a local Hub-shaped server (tests/hub), check the native and the wasm CLI print the same JSON, test the JS
# API, the page in headless Chromium and the desktop app under Xvfb, then run the suite
# under AddressSanitizer + UndefinedBehaviorSanitizer and each fuzz target briefly.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scripts/setup.sh
export NODE_PATH=/usr/share/nodejs
tests/check_tags.sh
tests/check_layers.sh
python3 tests/check_messages.py  # every text the app draws has its Arabic, every Arabic entry is drawable
echo "== native build and tests"
cmake --workflow --preset native
echo "== README.md and docs/: links, page links and the examples' printed lines"
python3 tests/check_docs.py
echo "== the Hub client (CLI, libcurl) against a local Hub-shaped server"
node --test tests/hub/
echo "== WebAssembly build and tests (Node.js)"
cmake --workflow --preset web
echo "== native and WebAssembly CLI agree"
scripts/compare_native_wasm.sh
echo "== JavaScript API (Node.js test runner)"
node --test tests/js/
echo "== the page in headless Chromium (dist/ from scripts/build_dist.sh)"
scripts/build_dist.sh
node --test tests/e2e/
echo "== the desktop app under Xvfb"
tests/desktop_smoke.sh
echo "== sanitizers (ASan + UBSan): the whole suite, then each fuzz target for ${VRAMFIT_FUZZ_SECONDS:-30} s"
scripts/fuzz.sh "${VRAMFIT_FUZZ_SECONDS:-30}"
