#!/usr/bin/env bash
# The desktop app under Xvfb: --screenshot renders frames and writes a PNG that is not blank
# (many distinct colours), for the inference breakdown, the fit map, a layer list and the
# Open dialog.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
app=build/native/vramfit_desktop
out=build/screenshots
mkdir -p "$out"
# The default request (breakdown, fit map), QLoRA training, and article 003's network.
training_hash="r=$(printf '%s' '{"v":1,"mode":"training","model":{"preset":"qwen2.5-7b"},"training":{"method":"qlora","micro_batch":2}}' | base64 -w0 | tr '+/' '-_' | tr -d '=')"
network=$(python3 -c 'import json; print(json.dumps(json.load(open("validation/networks/article-003-mlp.json")), separators=(",", ":")))')
network_hash="r=$(printf '%s' "{\"v\":1,\"mode\":\"training\",\"network\":$network,\"training\":{\"batch\":128,\"activation_rule\":\"layer_outputs\",\"margin_fraction\":0}}" | base64 -w0 | tr '+/' '-_' | tr -d '=')"
run() {  # name, args...
  local name="$1"; shift
  HOME="$(mktemp -d)" xvfb-run -a -s "-screen 0 1400x900x24" "$app" --screenshot "$out/$name.png" "$@"
  local colours
  colours=$(identify -format '%k' "$out/$name.png")
  if [ "$colours" -lt 50 ]; then echo "desktop smoke: $name.png has only $colours colours"; exit 1; fi
  echo "desktop smoke: $name.png, $colours colours"
}
run desktop --size 1280x800
run desktop-fit-map --size 1280x800 --panel fit_map
run desktop-training --size 1280x800 --hash "$training_hash" --panel fit_map --light
run desktop-article-003 --size 1280x800 --hash "$network_hash" --panel layers
run desktop-open-dialog --size 1280x800 --open-dialog tests/fixtures/configs
# An engine: llama.cpp over two GPUs and the host (bars per device, llama.cpp's own lines).
engine_hash="r=$(printf '%s' '{"v":1,"model":{"preset":"llama-3.1-70b"},"weights":{"format":"gguf-q4_k_m"},"engine":"llama.cpp","llama.cpp":{"ctx-size":32768,"n-gpu-layers":60},"gpus":["rtx-4090","rtx-3090"],"host":{"memory_bytes":68719476736}}' | base64 -w0 | tr '+/' '-_' | tr -d '=')"
run desktop-engine-llamacpp --size 1280x800 --hash "$engine_hash"
