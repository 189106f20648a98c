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
# Arabic (--lang ar): the words from the catalog (the layout's "shown"), the inputs on the right
# (the mirrored layout), and the glyphs in the font: the Arabic screenshot differs from the
# English one where the words are.
run desktop-arabic --size 1280x800 --lang ar --layout "$out/desktop-arabic.json"
run desktop-arabic-training --size 1280x800 --lang ar --hash "$training_hash" --layout "$out/desktop-arabic-training.json"
python3 - "$out" <<'PY'
import json, re, sys
out = sys.argv[1]
for name, words in (("desktop-arabic", {"Inference": "الاستدلال", "Weights": "الأوزان", "KV cache": "ذاكرة KV المؤقتة"}),
                    ("desktop-arabic-training", {"Training": "التدريب", "Gradients": "التدرجات"})):
    items = json.load(open(f"{out}/{name}.json"))
    for label, shown in words.items():
        found = [i for i in items if i["label"] == label and i["visible"]]
        assert found and found[0]["shown"] == shown, f"{name}: {label!r} is not shown as {shown!r}: {found[:1]}"
    mode = next(i for i in items if i["label"] in ("Inference", "Training") and i["kind"] == "widget")
    assert mode["x"] > 640, f"{name}: the inputs are not on the right ({mode['x']})"
    english = [i["shown"] for i in items if i["visible"] and "shown" in i and re.search(r"[a-z]{3,} [a-z]{3,}", i["shown"])
               and not re.search(r"[\u0600-\u06ff]", i["shown"]) and not i["shown"].startswith("=")]
    assert not english, f"{name}: left in English: {english}"
    print(f"desktop smoke: {name}: Arabic words, inputs on the right")
PY
compare -metric AE "$out/desktop.png" "$out/desktop-arabic.png" /dev/null 2>"$out/arabic-difference.txt" || true
echo "desktop smoke: the Arabic screenshot differs from the English one in $(cat "$out/arabic-difference.txt") pixels"
[ "$(cut -d' ' -f1 < "$out/arabic-difference.txt" | cut -d. -f1)" -gt 10000 ]
