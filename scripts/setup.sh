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
# cmake/imgui/*.diff to Dear ImGui's sources), libyaml-cpp-dev (yaml-cpp: the CLI reads a
# LLaMA-Factory training YAML, src/cli/yaml_config.cpp).
packages=(cmake ninja-build g++ emscripten binaryen libglfw3-dev libgl-dev libstb-dev fonts-wqy-microhei
          nlohmann-json3-dev catch2 libcli11-dev nodejs dpkg-dev xauth xvfb
          chromium imagemagick fonts-dejavu-core python3 ca-certificates clang libclang-rt-14-dev libfribidi-dev
          libcurl4-openssl-dev patch libyaml-cpp-dev)
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

# --- Sources from Debian's source packages (pinned and checksummed) -------------------
# Dear ImGui: Debian ships no ImGui package with its sources. GNU FriBidi: the page orders and
# shapes Arabic with it (src/text/), compiled to WebAssembly from its source as Dear ImGui is; the
# native builds link Debian's libfribidi-dev of the same release (1.0.8). yaml-cpp: the CLI reads
# LLaMA-Factory's training YAML with it (src/cli/yaml_config.cpp); the WebAssembly CLI compiles the
# release that libyaml-cpp-dev (0.7.0) is natively. Each upstream tarball is
# taken from its source package with a private sources list: the system's apt configuration is
# untouched. The archive is the one the system's own apt sources name (no host is written here);
# ImGui's suite is Debian 13's, whose imgui is 1.90.1 (touch as a mouse source, the input queue,
# Tab through every item; Debian 12 has 1.86). The checksums (scripts/*.sha256) pin the
# tarballs whichever mirror serves them.
. /etc/os-release
system_archive() {  # the URI of the system's Debian apt source (apt knows it once its lists exist)
  apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
    awk -v release="$VERSION_CODENAME" '$2 == release { print $1; exit }'
}
# fetch_debian_source NAME PACKAGE=DEBIAN_VERSION SUITE ORIG_TARBALL VERSION FILE_IN_SOURCE
# unpacks the source folder holding FILE_IN_SOURCE into third_party/NAME (once per VERSION).
fetch_debian_source() {
  local name="$1" package="$2" suite="$3" orig="$4" version="$5" marker="$6"
  local dest="$here/third_party/$name"
  [ "$(cat "$dest/VRAMFIT_VERSION" 2>/dev/null)" != "$version" ] || return 0
  local sha256; sha256="$(cut -d' ' -f1 "$here/scripts/$name.sha256")"
  local tmp; tmp="$(mktemp -d)"
  mkdir -p "$tmp/lists/partial" "$tmp/archives/partial"
  local archive; archive="$(system_archive)"
  if [ -z "$archive" ]; then $SUDO apt-get update -q >/dev/null; archive="$(system_archive)"; fi
  if [ -z "$archive" ]; then
    echo "setup: no apt source for $VERSION_CODENAME (run apt-get update, or add the Debian archive to the apt sources)" >&2
    exit 1
  fi
  echo "deb-src $archive $suite main" > "$tmp/sources.list"
  local apt_opts=(-o "Dir::Etc::SourceList=$tmp/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
                  -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache::Archives=$tmp/archives"
                  -o "APT::Sandbox::User=root")
  apt-get "${apt_opts[@]}" update -q >/dev/null
  (cd "$tmp" && apt-get "${apt_opts[@]}" source --download-only -q "$package" >/dev/null)
  echo "$sha256  $tmp/$orig" | sha256sum -c --quiet - \
    || { echo "setup: checksum of $orig does not match scripts/$name.sha256" >&2; exit 1; }
  mkdir -p "$tmp/src" && tar -xf "$tmp/$orig" -C "$tmp/src"
  local src; src="$(dirname "$(find "$tmp/src" -path "*/$marker" | head -n1)")"
  rm -rf "$dest" && mkdir -p "$dest" && cp -r "$src/." "$dest/"
  echo "$version" > "$dest/VRAMFIT_VERSION"
  rm -rf "$tmp"
  echo "setup: $name $version in third_party/$name"
}
fetch_debian_source imgui "imgui=1.90.1+ds-1" trixie "imgui_1.90.1+ds.orig.tar.xz" 1.90.1 imgui.cpp
fetch_debian_source fribidi "fribidi=1.0.8-2.1" bookworm "fribidi_1.0.8.orig.tar.bz2" 1.0.8 fribidi.pc.in
fetch_debian_source yaml-cpp "yaml-cpp=0.7.0+dfsg-8" bookworm "yaml-cpp_0.7.0+dfsg.orig.tar.xz" 0.7.0 yaml-cpp.pc.in
echo "setup: ready"
