// The engines in the page, used as a person uses them: pick an engine (answered in place, by
// the page's one module, with the same state), read one bar per device and the lines
// the engine prints, paste a command line through the clipboard, type a number — at a phone's,
// a tablet's and a laptop's size, widgets found by their labels (window.vramfitLayout()).
//   node --test tests/e2e/     (after scripts/build_dist.sh)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { root, dist, serveDist, launch, open, widget, clickWidget, focusTextBox, frames, settled, layout, tapWidget, swipe,
         layoutProblems, SIZES, typeText, hashOf, waitForState, texts, readAll, shot, chooseFile } from "./support.mjs";
import { loraGgufBytes, mmprojGgufBytes } from "../support/gguf_bytes.mjs";
import os from "node:os";

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser.close(); site.server.close(); });


// Picks an engine from the "Engine" list by touch (phone, tablet) or the mouse (laptop).
async function pickEngine(page, touch, entry) {
  const combo = touch ? await tapWidget(page, "Engine") : await clickWidget(page, "Engine");
  assert.ok(combo.visible, "the Engine list is on screen");
  const item = await widget(page, entry);
  if (touch) await page.touchscreen.tap(item.cx, item.cy); else await page.mouse.click(item.cx, item.cy);
  // The mouse then leaves the page, as a hand goes back to the keyboard: no tooltip stays over the answer.
  if (!touch) await page.evaluate(() => canvas.dispatchEvent(new PointerEvent("pointerleave", { pointerType: "mouse" })));
}

// A mark on the page's window: still there after a pick means the page did not reload or move.
const markPage = page => page.evaluate(() => { window.vramfitMark = performance.now(); return window.vramfitMark; });
async function stayedOnPage(page, mark, what) {
  await settled(page);
  assert.equal(await page.evaluate(() => window.vramfitMark), mark, `${what}: the page reloaded`);
  assert.equal(new URL(page.url()).pathname, "/", `${what}: the page moved to ${page.url()}`);
}

test("picking llama.cpp answers in place with the same state: a bar per device, llama.cpp's own lines", async () => {
  for (const [name, size] of Object.entries(SIZES)) {
    const request = { v: 1, model: { preset: "llama-3.1-70b" }, weights: { format: "gguf-q4_k_m" }, gpu: { id: "rtx-3090" }, gpu_count: 2 };
    const { context, page, errors, urls } = await open(browser, site.origin + "/#" + hashOf(request), size);
    const mark = await markPage(page);
    await pickEngine(page, name !== "desktop", "llama.cpp (Ollama, LM Studio)");
    await stayedOnPage(page, mark, name);
    assert.equal(urls.filter(u => u.endsWith(".wasm")).length, 1, `${name}: one module, loaded once`);
    const s = await waitForState(page, s => s.engine === "llama.cpp", "engine llama.cpp");
    assert.equal(s.model.preset, "llama-3.1-70b", "the model came along");
    assert.equal(s.gpu.id, "rtx-3090", "the GPU came along");
    const problems = layoutProblems(await layout(page), size.viewport);
    const all = await readAll(page, name === "phone", size.viewport.height);
    assert.ok(all.some(t => t.startsWith("llama.cpp: ")), `${name}: the engine's verdict`);
    assert.ok(all.some(t => /^CUDA0 GeForce RTX 3090, \d+ layers$/.test(t)), `${name}: a bar for CUDA0`);
    assert.ok(all.some(t => /^CUDA1 GeForce RTX 3090, \d+ layers$/.test(t)), `${name}: a bar for CUDA1`);
    assert.ok(all.some(t => t.startsWith("host (CPU_Mapped")), `${name}: a bar for the host`);
    // (A line wraps at spaces on a narrow screen: its pieces are read in order.)
    assert.match(all.join(" "), /load_tensors: CUDA0 model buffer size = +[\d.]+ MiB/, `${name}: llama.cpp's own line`);
    assert.deepEqual(problems, [], `${name}: the engine view's layout`);
    await shot(page, `engines-${name}-llamacpp.png`);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("a pasted vllm serve command (clipboard) becomes vLLM's settings; its KV lines show", async () => {
  const request = { v: 1, model: { preset: "qwen2.5-7b" }, weights: { format: "bf16" }, gpu: { id: "h100-80" }, engine: "vllm" };
  const opened = await open(browser, site.origin + "/#" + hashOf(request),
                            { ...SIZES.desktop, permissions: ["clipboard-read", "clipboard-write"] });
  const { page, errors } = opened;
  // The vLLM inputs are a long column: the wheel brings the command box up first.
  const header = await widget(page, "Paste a command", { visible: false });
  await page.mouse.move(header.cx, Math.min(header.cy, 600));
  await page.mouse.wheel(0, Math.max(0, header.cy - 250));
  await frames(page, 3);
  await clickWidget(page, "Paste a command");
  await frames(page, 2);
  await focusTextBox(page, "##command");
  await page.evaluate(text => navigator.clipboard.writeText(text),
                      "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2 --max-model-len 32k --port 8000");
  await page.keyboard.press("Control+V");
  await frames(page, 3);
  await clickWidget(page, "Use this command");
  const s = await waitForState(page, s => s.vllm && s.vllm["tensor-parallel-size"] === 2, "-tp 2 from the command");
  assert.equal(s.model ? s.model.preset : "llama-3.1-8b", "llama-3.1-8b", "the Hugging Face id read as its preset (the default: left out of the link)");
  assert.equal(s.vllm["max-model-len"], 32000, "32k is vLLM's 32,000");
  // What reading the command said is under its button: the wheel brings it up.
  const button = await widget(page, "Use this command", { visible: false });
  await page.mouse.move(button.cx, Math.min(button.cy, 700));
  await page.mouse.wheel(0, 400);
  await frames(page, 3);
  await settled(page);
  const all = await texts(page);
  const read = all.join(" ");
  assert.ok(read.includes("read as the preset Llama 3.1 8B"), "says how the model id was read");
  assert.ok(read.includes("--port 8000 does not change memory"), "names the flag it set aside");
  assert.ok(all.some(t => /^GPU KV cache size: [\d,]+ tokens$/.test(t)), "vLLM's KV line");
  assert.ok(all.some(t => t.startsWith("rank 1 H100 80 GB")), "a bar for the second rank");
  await shot(page, "engines-desktop-vllm.png");
  // Copy Markdown and the screen reader's words carry the engine's answer, not the generic one.
  await page.evaluate(() => { window.copied = []; window.vramfitCopied = text => window.copied.push(text); });
  await clickWidget(page, "Copy Markdown");
  const markdown = await page.evaluate(() => window.copied[window.copied.length - 1]);
  assert.match(markdown, /^\*\*Llama 3\.1 8B\*\*, vLLM: STARTS on 2 GPUs$/m);
  assert.match(markdown, /^- rank 1 H100 80 GB: [\d.]+ GB of [\d.]+ GB[^(\n]* \(weights /m);
  assert.match(markdown, /^GPU KV cache size: [\d,]+ tokens$/m);
  assert.match(await page.evaluate(() => document.getElementById("live").textContent), /vLLM: STARTS on 2 GPUs/);
  assert.deepEqual(errors, []);
  await opened.context.close();
});

test("vLLM's LoRA slots: a link with --enable-lora shows them in 'Model loading took'; a click on the box takes them away", async () => {
  const request = { v: 1, model: { preset: "qwen2.5-7b" }, weights: { format: "bf16" }, gpu: { id: "h100-80" }, engine: "vllm",
                    vllm: { "enable-lora": true, "max-loras": 4, "max-lora-rank": 64 } };
  const opened = await open(browser, site.origin + "/#" + hashOf(request), SIZES.desktop);
  const { page, errors } = opened;
  await settled(page);
  const cli = (...args) => execFileSync(path.join(root, "build/native/vramfit"), args, { encoding: "utf8" });
  const loading = text => text.split("\n").map(l => l.trim()).find(l => l.startsWith("Model loading took"));
  const withLora = loading(cli("infer", "-m", "qwen2.5-7b", "-w", "bf16", "-g", "h100-80", "--engine", "vllm", "--enable-lora",
                               "--max-loras", "4", "--max-lora-rank", "64"));
  const without = loading(cli("infer", "-m", "qwen2.5-7b", "-w", "bf16", "-g", "h100-80", "--engine", "vllm"));
  assert.notEqual(withLora, without);
  assert.ok((await texts(page)).includes(withLora), `the page prints vLLM's line as the CLI does: ${withLora}`);
  const box = await widget(page, "--enable-lora", { visible: false });
  await page.mouse.move(box.cx, Math.min(box.cy, 700));
  await page.mouse.wheel(0, Math.max(0, box.cy - 600));
  await frames(page, 3);
  await clickWidget(page, "--enable-lora");
  const s = await waitForState(page, s => !s.vllm || !s.vllm["enable-lora"], "--enable-lora off");
  assert.ok(!s.vllm || !s.vllm["max-loras"], "the LoRA flags leave the link with the box");
  await frames(page, 3);
  assert.ok((await texts(page)).includes(without), `without LoRA: ${without}`);
  assert.deepEqual(errors, []);
  await opened.context.close();
});

test("phone: a draft model picked by touch for llama.cpp; its buffers in each bar and its own lines, as the CLI prints them", async () => {
  const request = { v: 1, model: { preset: "llama-3.1-70b" }, weights: { format: "gguf-q4_k_m" }, engine: "llama.cpp",
                    "llama.cpp": { "ctx-size": 16384 }, gpus: ["rtx-3090", "rtx-3090"] };
  const opened = await open(browser, site.origin + "/#" + hashOf(request), SIZES.phone);
  const { page, errors } = opened;
  const height = SIZES.phone.viewport.height;
  await settled(page);
  // The inputs scroll as one column on a phone: a finger swipes until the draft's list is in view.
  for (let i = 0; i < 12; i++) {
    const w = await widget(page, "Draft model", { visible: false });
    if (w.visible && w.cy < height * 0.6) break;
    await swipe(page, 60, height * 0.7, 0, -height * 0.35);
  }
  await tapWidget(page, "Draft model");
  await frames(page, 2);
  await focusTextBox(page, "##filter", { tap: true });  // the list's search box, typed into
  await typeText(page, "3.2 1B");
  await frames(page, 3);
  const item = await widget(page, "Llama 3.2 1B");
  await page.touchscreen.tap(item.cx, item.cy);
  const s = await waitForState(page, s => s.draft && s.draft.model.preset === "llama-3.2-1b", "the draft model in the link");
  assert.equal(s.draft.weights.format, "gguf-q8_0", "a GGUF format for llama.cpp's -md");
  await frames(page, 3);
  await shot(page, "engines-phone-llamacpp-draft.png");
  // What the CLI prints for the same draft, line by line, is what the page shows.
  const cli = execFileSync(path.join(root, "build/native/vramfit"),
                           ["infer", "--engine", "llama.cpp", "-m", "llama-3.1-70b", "-w", "gguf-q4_k_m", "--gpus", "rtx-3090", "rtx-3090",
                            "-c", "16384", "--draft", "llama-3.2-1b", "--draft-weights", "gguf-q8_0"], { encoding: "utf8" });
  const draftLines = cli.split("and for the draft model:")[1].split("\n\n")[0].split("\n").map(l => l.trim()).filter(Boolean);
  assert.ok(draftLines.length >= 8, "the CLI prints the draft's buffers");
  const all = (await readAll(page, true, height)).join(" ");
  assert.match(all, /draft model \(-md\): Llama 3\.2 1B, gguf-q8_0; offloaded 17\/17 layers; 16,384 KV cells/);
  // Copy Markdown (a finger brings the top bar back, then taps it) carries llama.cpp's lines for
  // the draft exactly as the CLI prints them.
  const onScreen = label => page.evaluate(l => window.vramfitLayout().some(w => w.label === l && w.visible), label);
  for (let i = 0; i < 16 && !(await onScreen("Copy Markdown")); i++) await swipe(page, 60, height * 0.25, 0, height * 0.5);
  await page.evaluate(() => { window.copied = []; window.vramfitCopied = text => window.copied.push(text); });
  await tapWidget(page, "Copy Markdown");
  const markdown = await page.evaluate(() => window.copied[window.copied.length - 1]);
  const copiedLines = markdown.split("and for the draft model:")[1].split("\n").map(l => l.trim());
  for (const line of draftLines) assert.ok(copiedLines.includes(line), `the page prints: ${line}`);
  assert.deepEqual(errors, []);
  await opened.context.close();
});

test("desktop: vLLM with a draft model picked with the mouse; 'Model loading took' and the KV tokens as the CLI prints them", async () => {
  const request = { v: 1, model: { preset: "llama-3.1-8b" }, weights: { format: "bf16" }, gpu: { id: "h100-80" }, engine: "vllm",
                    vllm: { "max-model-len": 32768 } };
  const opened = await open(browser, site.origin + "/#" + hashOf(request), SIZES.desktop);
  const { page, errors } = opened;
  await settled(page);
  const combo = await widget(page, "Draft model", { visible: false });
  await page.mouse.move(combo.cx, Math.min(combo.cy, 600));
  await page.mouse.wheel(0, Math.max(0, combo.cy - 400));
  await frames(page, 3);
  await clickWidget(page, "Draft model");
  await frames(page, 2);
  await focusTextBox(page, "##filter");
  await typeText(page, "Llama 3.2 1B");
  await frames(page, 2);
  await clickWidget(page, "Llama 3.2 1B");
  const s = await waitForState(page, s => s.draft && s.vllm && s.vllm["speculative-config"], "the draft and its --speculative-config");
  assert.equal(s.draft.model.preset, "llama-3.2-1b");
  assert.deepEqual(s.vllm["speculative-config"], { method: "draft_model", num_speculative_tokens: 5 });
  await frames(page, 3);
  const cli = execFileSync(path.join(root, "build/native/vramfit"),
                           ["infer", "-g", "h100-80", "--cmd", "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32768 " +
                            "--speculative-config '{\"model\": \"meta-llama/Llama-3.2-1B-Instruct\", \"num_speculative_tokens\": 5}'"],
                           { encoding: "utf8" });
  const lines = cli.split("\n").map(l => l.trim());
  const shown = await texts(page);
  for (const prefix of ["Model loading took", "GPU KV cache size:"]) {
    const line = lines.find(l => l.startsWith(prefix));
    assert.ok(shown.includes(line), `the page prints the CLI's line: ${line}`);
  }
  assert.ok(shown.some(t => t.startsWith("draft model (--speculative-config, 5 tokens): Llama 3.2 1B")), "the draft's fact");
  await shot(page, "engines-desktop-vllm-draft.png");
  assert.deepEqual(errors, []);
  await opened.context.close();
});

test("desktop: a LoRA adapter opened with Open file... joins llama.cpp's --lora; its buffer line as the CLI prints it", async () => {
  const request = { v: 1, model: { preset: "llama-3.1-8b" }, weights: { format: "gguf-q4_k_m" }, engine: "llama.cpp",
                    "llama.cpp": { "ctx-size": 8192 } };
  const opened = await open(browser, site.origin + "/#" + hashOf(request), SIZES.desktop);
  const { page, errors } = opened;
  await settled(page);
  const adapter = loraGgufBytes({ layers: 32, hidden: 4096, rank: 16 });
  const button = await widget(page, "Open file...");
  await chooseFile(page, () => page.mouse.click(button.cx, button.cy),
                   { name: "llama-3.1-8b-lora-q.gguf", mimeType: "application/octet-stream", buffer: adapter });
  const s = await waitForState(page, s => s["llama.cpp"] && s["llama.cpp"].lora && s["llama.cpp"].lora.length === 1, "the adapter in the link");
  assert.equal(s["llama.cpp"].lora[0].file, "llama-3.1-8b-lora-q.gguf");
  assert.ok(!s.model || s.model.preset === "llama-3.1-8b", "the model stays (the default: left out of the link)");
  await frames(page, 3);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vramfit-")), "llama-3.1-8b-lora-q.gguf");
  fs.writeFileSync(file, adapter);
  const cli = execFileSync(path.join(root, "build/native/vramfit"),
                           ["infer", "-m", "llama-3.1-8b", "-w", "gguf-q4_k_m", "--cmd", `llama-server -c 8192 --lora ${file}`],
                           { encoding: "utf8" });
  const line = cli.split("\n").map(l => l.trim()).find(l => l.startsWith("llama_adapter_lora_init_impl:"));
  assert.equal(line, "llama_adapter_lora_init_impl: CUDA0 LoRA buffer size =     8.00 MiB");
  const shown = await texts(page);
  assert.ok(shown.includes(line), `the page prints the CLI's line: ${line}`);
  assert.ok(shown.includes("--lora llama-3.1-8b-lora-q.gguf (rank 16)"), "the adapter is listed under llama.cpp's inputs");
  await clickWidget(page, "Remove adapter");
  await waitForState(page, s => !s["llama.cpp"].lora, "the adapter removed");
  assert.deepEqual(errors, []);
  await opened.context.close();
});

test("tablet: a multimodal projector opened by touch (Open file...) joins llama.cpp's --mmproj; --no-mmproj-offload moves it to the host", async () => {
  const request = { v: 1, model: { preset: "llava-1.5-7b" }, weights: { format: "gguf-q4_k_m" }, engine: "llama.cpp",
                    "llama.cpp": { "ctx-size": 4096 } };
  const opened = await open(browser, site.origin + "/#" + hashOf(request), SIZES.tablet);
  const { page, errors } = opened;
  await settled(page);
  const button = await widget(page, "Open file...");
  await chooseFile(page, () => page.touchscreen.tap(button.cx, button.cy),
                   { name: "mmproj-model-f16.gguf", mimeType: "application/octet-stream", buffer: mmprojGgufBytes() });
  let s = await waitForState(page, s => s["llama.cpp"] && s["llama.cpp"].mmproj, "the projector in the link");
  assert.equal(s["llama.cpp"].mmproj.file, "mmproj-model-f16.gguf");
  await frames(page, 3);
  const box = await widget(page, "--no-mmproj-offload", { visible: false });
  if (!box.visible) await swipe(page, 60, SIZES.tablet.viewport.height * 0.7, 0, -(box.cy - SIZES.tablet.viewport.height * 0.5));
  await tapWidget(page, "--no-mmproj-offload");
  s = await waitForState(page, s => s["llama.cpp"]["no-mmproj-offload"] === true, "--no-mmproj-offload");
  await frames(page, 3);
  await shot(page, "engines-tablet-llamacpp-mmproj.png");
  // The report the page shows is the CLI's for the same file and flag.
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vramfit-")), "mmproj-model-f16.gguf");
  fs.writeFileSync(file, mmprojGgufBytes());
  const cli = execFileSync(path.join(root, "build/native/vramfit"),
                           ["infer", "-m", "llava-1.5-7b", "-w", "gguf-q4_k_m", "--cmd", `llama-server -c 4096 --mmproj ${file} --no-mmproj-offload`],
                           { encoding: "utf8" });
  assert.match(cli, /mmproj \(--mmproj\): mmproj-model-f16\.gguf \(mlp\): weights [\d.]+ MB \+ one image's graph [\d.]+ MB \(estimated\) on the CPU/);
  await page.evaluate(() => { window.copied = []; window.vramfitCopied = text => window.copied.push(text); });
  const onScreen = label => page.evaluate(l => window.vramfitLayout().some(w => w.label === l && w.visible), label);
  for (let i = 0; i < 12 && !(await onScreen("Copy JSON")); i++) await swipe(page, 60, SIZES.tablet.viewport.height * 0.25, 0, 400);
  await tapWidget(page, "Copy JSON");
  const report = JSON.parse(await page.evaluate(() => window.copied[window.copied.length - 1]));
  const native = JSON.parse(execFileSync(path.join(root, "build/native/vramfit"),
                                         ["infer", "-m", "llava-1.5-7b", "-w", "gguf-q4_k_m", "--json", "--cmd",
                                          `llama-server -c 4096 --mmproj ${file} --no-mmproj-offload`], { encoding: "utf8" }));
  assert.equal(report.engine.host.mmproj_bytes, native.engine.host.mmproj_bytes);
  assert.ok(report.engine.host.mmproj_bytes > 0);
  assert.deepEqual(errors, []);
  await opened.context.close();
});

test("tablet: Transformers by touch, a typed max_new_tokens, the peak per GPU as torch prints it", async () => {
  const { context, page, errors } = await open(browser, site.origin + "/", SIZES.tablet);
  const mark = await markPage(page);
  await pickEngine(page, true, "Transformers");
  await stayedOnPage(page, mark, "tablet");
  await waitForState(page, s => s.engine === "transformers", "engine transformers");
  assert.deepEqual(layoutProblems(await layout(page), SIZES.tablet.viewport), []);
  await shot(page, "engines-tablet-transformers.png");
  await focusTextBox(page, "##max_new_tokens", { tap: true });
  await page.keyboard.press("Control+A");
  await typeText(page, "3k");
  await page.keyboard.press("Enter");
  await waitForState(page, s => s.transformers && s.transformers.max_new_tokens === 3072, "max_new_tokens 3k (3 x 1,024)");
  const all = await texts(page);
  assert.ok(all.some(t => /^torch\.cuda\.max_memory_allocated\(0\): \d+ \([\d.]+ GiB\)$/.test(t)), "torch's own figure");
  assert.ok(all.some(t => t.startsWith("Transformers: ")), "the verdict");
  assert.deepEqual(errors, []);
  await context.close();
});

test("a link with an engine's settings opens on the first page (and its embed) with them", async () => {
  const request = { v: 1, model: { preset: "qwen2.5-7b" }, weights: { format: "gguf-q4_k_m" }, engine: "llama.cpp",
                    "llama.cpp": { "ctx-size": 16384, "n-gpu-layers": 20, "cache-type-k": "q8_0" }, gpus: ["rtx-4090", "rtx-3090"] };
  for (const page_name of ["", "embed.html"]) {
    const { context, page, errors } = await open(browser, site.origin + "/" + page_name + "#" + hashOf(request), SIZES.desktop);
    assert.equal(new URL(page.url()).pathname, "/" + page_name, "the page stays where the link points");
    const s = await waitForState(page, s => s.engine === "llama.cpp", "engine llama.cpp");
    assert.equal(s["llama.cpp"]["ctx-size"], 16384, `${page_name || "index.html"}: -c came along`);
    assert.equal(s["llama.cpp"]["n-gpu-layers"], 20);
    assert.deepEqual(s.gpus, ["rtx-4090", "rtx-3090"]);
    if (!page_name) assert.ok((await texts(page)).some(t => t.startsWith("load_tensors: offloaded 20/")), "llama.cpp's line for -ngl 20");
    assert.ok((await texts(page)).some(t => t.startsWith("llama.cpp: ")), `${page_name || "index.html"}: llama.cpp's verdict`);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("Layer list on the first page shows the example network in place; a link with a network opens with it", async () => {
  for (const [name, size] of Object.entries(SIZES)) {
    const request = { v: 1, model: { preset: "qwen3-8b" }, gpu: { id: "rtx-3090" } };
    const { context, page, errors } = await open(browser, site.origin + "/#" + hashOf(request), size);
    const mark = await markPage(page);
    if (name === "desktop") await clickWidget(page, "Layer list"); else await tapWidget(page, "Layer list");
    await stayedOnPage(page, mark, name);
    const s = await waitForState(page, s => s.network && s.mode === "training", "a layer list");
    assert.equal(s.network.name, "article-003-mlp", `${name}: the example network came`);
    assert.equal(s.gpu.id, "rtx-3090", `${name}: the GPU came along`);
    await frames(page, 3);
    const shown = name === "phone" ? await readAll(page, true, size.viewport.height) : await texts(page);
    assert.match(shown.join(" "), /Largest batch: [\d,]+ +Parameters: [\d,]+/, `${name}: the network's verdict`);
    await shot(page, `layer-list-${name}.png`);
    assert.deepEqual(errors, [], name);
    await context.close();
  }
  // A shared link with a network opens on the first page with it.
  const link = { v: 1, mode: "training", network: { input: [16], layers: [{ type: "linear", out: 8 }, { type: "relu" }] } };
  const { context, page, errors } = await open(browser, site.origin + "/#" + hashOf(link), SIZES.desktop);
  const s = await waitForState(page, s => s.network && s.network.layers.length === 2, "the link's network");
  assert.deepEqual(s.network.input, [16]);
  assert.deepEqual(errors, []);
  await context.close();
});

test("laptop: llama.cpp's build typed into its field: from b9460 llama-server reserves one output per sequence; before, the whole -ub of logits", async () => {
  // Qwen3-4B Q4_K_M, -c 8192 -np 4, as a public llama-server log of October 2026 ran it
  // (validation/engines/llamacpp.json): the newest build prints a compute buffer of a layer's
  // size; build 9459 reserved 512 tokens' logits (512 x 4 B x (151,936 + 2,560) = 301.75 MiB).
  const request = { v: 1, model: { preset: "qwen3-4b" }, weights: { format: "gguf-q4_k_m" }, gpu: { id: "rtx-4090" },
                    engine: "llama.cpp", "llama.cpp": { "ctx-size": 8192, parallel: 4 } };
  const opened = await open(browser, site.origin + "/#" + hashOf(request), SIZES.desktop);
  const { page, errors } = opened;
  await settled(page);
  const computeLine = async () => (await texts(page)).find(t => /CUDA0 compute buffer size/.test(t));
  const newest = await computeLine();
  assert.ok(newest, "llama.cpp's compute line is shown");
  assert.ok(!newest.includes("301.75 MiB"), `the newest build: ${newest}`);
  assert.ok((await texts(page)).includes("program: llama-server"), "the program the answer is for");
  const field = await widget(page, "##build", { visible: false });
  await page.mouse.move(field.cx, Math.min(field.cy, 600));
  await page.mouse.wheel(0, Math.max(0, field.cy - 400));
  await frames(page, 3);
  await focusTextBox(page, "##build");
  await page.keyboard.press("Control+A");
  await typeText(page, "9459");
  await page.keyboard.press("Enter");
  const s = await waitForState(page, s => s["llama.cpp"] && s["llama.cpp"].build === 9459, "build 9459 in the link");
  assert.equal(s["llama.cpp"].tool, "llama-server");
  await frames(page, 3);
  const old = await computeLine();
  assert.match(old, /CUDA0 compute buffer size = +301\.75 MiB/, `build 9459: ${old}`);
  const cli = execFileSync(path.join(root, "build/native/vramfit"),
                           ["infer", "-g", "rtx-4090", "-m", "qwen3-4b", "-w", "gguf-q4_k_m", "--llama-build", "9459",
                            "--cmd", "llama-server -c 8192 -np 4"], { encoding: "utf8" });
  assert.ok(cli.split("\n").map(l => l.trim()).includes(old), "the CLI prints the same line");
  assert.deepEqual(errors, []);
  await opened.context.close();
});
