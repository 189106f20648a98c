#!/usr/bin/env bash
# The main job: set up, build the web build, assemble dist/ and serve it on localhost.
#   scripts/run.sh [port]      (default 8080; Ctrl-C stops the server)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
port="${1:-8080}"
scripts/setup.sh
scripts/build_dist.sh
echo
echo "vramfit is served at: http://127.0.0.1:${port}/"
echo "(the CLI: build/native/vramfit infer --help, after scripts/test.sh or cmake --workflow --preset native)"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory "$root/dist"
