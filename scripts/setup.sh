#!/usr/bin/env bash
# Installs everything vramfit needs on Debian 12 (bookworm) and fetches the Dear ImGui
# source. Safe to run again: it does nothing when everything is already there.
#   sudo-less as root, or with sudo.  Usage: scripts/setup.sh
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

# --- System packages -------------------------------------------------------------
# build: cmake ninja g++ (native), emscripten + binaryen (web), libglfw3-dev + libgl-dev
# (desktop app), nlohmann-json3-dev, catch2, libcli11-dev (headers for every target),
# nodejs (runs the wasm tests), dpkg-dev (apt-get source needs dpkg-source),
# chromium + xvfb + imagemagick (browser and desktop tests, screenshots), fonts-dejavu-core (the
# UI font: the page asks the browser for a system sans-serif, the desktop app loads it), clang and its
# runtime libraries (libFuzzer, AddressSanitizer, UndefinedBehaviorSanitizer), libstb-dev
# (stb_image_write: the desktop app's PNG screenshots), fonts-wqy-microhei (CJK glyphs for the desktop
# and the browser tests), libfribidi-dev (GNU FriBidi: the native tests' oracle for the app's Arabic
# shaping and right-to-left ordering, src/text/), libcurl4-openssl-dev (libcurl: the CLI's
# HTTPS range requests to the Hugging Face Hub, src/net/), patch (cmake/imgui.cmake applies
# cmake/imgui/*.diff to Dear ImGui's sources).
packages=(cmake ninja-build g++ emscripten binaryen libglfw3-dev libgl-dev libstb-dev fonts-wqy-microhei
          nlohmann-json3-dev catch2 libcli11-dev nodejs dpkg-dev xauth xvfb
          chromium imagemagick fonts-dejavu-core python3 ca-certificates clang libclang-rt-14-dev libfribidi-dev
          libcurl4-openssl-dev patch)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# npm: Debian's package, unless a Node.js that bundles npm (nodesource) is installed.
if ! command -v npm >/dev/null; then
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends npm
fi

# --- npm tools, pinned in package-lock.json: playwright-core (drives /usr/bin/chromium in the
# browser tests), google-closure-compiler 20220104 (the version Emscripten 3.1.6 pins;
# minifies the page's JavaScript) and @huggingface/gguf (huggingface.js's GGUF parser: the
# independent reader tests/js/gguf_oracle.test.mjs checks vramfit's against)
if [ ! -f "$here/node_modules/playwright-core/package.json" ] ||
   [ ! -x "$here/node_modules/.bin/google-closure-compiler" ] ||
   [ ! -f "$here/node_modules/@huggingface/gguf/package.json" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi

# --- Dear ImGui source (Debian's source package, pinned and checksummed) ------------
# Debian ships no ImGui package with its sources, so take the upstream tarball from the
# source package, with a private sources list: the system's apt configuration is untouched.
# The archive is the one the system's own apt sources name (no host is written here); the
# suite is Debian 13's, whose imgui is 1.90.1 (touch as a mouse source, the input queue,
# Tab through every item; Debian 12 has 1.86). The checksum pins the tarball whichever
# mirror serves it.
IMGUI_VERSION="1.90.1"
IMGUI_DEB_VERSION="1.90.1+ds-1"
IMGUI_SUITE="trixie"
IMGUI_ORIG="imgui_${IMGUI_VERSION}+ds.orig.tar.xz"
IMGUI_SHA256="$(cat "$here/scripts/imgui.sha256" | cut -d' ' -f1)"
dest="$here/third_party/imgui"
if [ "$(cat "$dest/VRAMFIT_VERSION" 2>/dev/null)" != "$IMGUI_VERSION" ]; then
  tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/lists/partial" "$tmp/archives/partial"
  . /etc/os-release
  system_archive() {  # the URI of the system's Debian apt source (apt knows it once its lists exist)
    apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
      awk -v release="$VERSION_CODENAME" '$2 == release { print $1; exit }'
  }
  archive="$(system_archive)"
  if [ -z "$archive" ]; then $SUDO apt-get update -q >/dev/null; archive="$(system_archive)"; fi
  if [ -z "$archive" ]; then
    echo "setup: no apt source for $VERSION_CODENAME (run apt-get update, or add the Debian archive to the apt sources)" >&2
    exit 1
  fi
  echo "deb-src $archive $IMGUI_SUITE main" > "$tmp/sources.list"
  apt_opts=(-o "Dir::Etc::SourceList=$tmp/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
            -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache::Archives=$tmp/archives"
            -o "APT::Sandbox::User=root")
  apt-get "${apt_opts[@]}" update -q >/dev/null
  (cd "$tmp" && apt-get "${apt_opts[@]}" source --download-only -q "imgui=$IMGUI_DEB_VERSION" >/dev/null)
  echo "$IMGUI_SHA256  $tmp/$IMGUI_ORIG" | sha256sum -c --quiet - \
    || { echo "setup: checksum of $IMGUI_ORIG does not match scripts/imgui.sha256" >&2; exit 1; }
  mkdir -p "$tmp/src" && tar -xf "$tmp/$IMGUI_ORIG" -C "$tmp/src"
  src="$(dirname "$(find "$tmp/src" -name imgui.cpp | head -n1)")"
  rm -rf "$dest" && mkdir -p "$dest" && cp -r "$src/." "$dest/"
  echo "$IMGUI_VERSION" > "$dest/VRAMFIT_VERSION"
  echo "setup: Dear ImGui $IMGUI_VERSION in third_party/imgui"
fi
echo "setup: ready"
