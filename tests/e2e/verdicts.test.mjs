// A verdict people can act on (issue 33), used as a person uses the page: the workload set once
// carries into every engine picked and back (and into training); an engine's verdict says whether
// it starts, and apart from it whether the margin is kept, with the margin a field of its own in
// the engine's view; vLLM's ranks say what its verdict says.
//   node --test tests/e2e/     (after scripts/build_dist.sh)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { root, serveDist, serveFolder, launch, open, widget, clickWidget, tapWidget, focusTextBox, typeText, frames, settled, layout,
         layoutProblems, SIZES, hashOf, waitForState, texts, readAll, shot, swipe, bringIntoView, pick, textFieldHasKeyboard } from "./support.mjs";

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser.close(); site.server.close(); });

// A browser context for a page that embeds the calculator, its frames counted (frames()) in
// every frame of it, the embed's included.
async function hostContext(viewport) {
  const context = await browser.newContext({ viewport });
  await context.addInitScript(() => {
    window.__frames = 0;
    const raf = window.requestAnimationFrame.bind(window);
    window.requestAnimationFrame = callback => { window.__frames++; return raf(callback); };
  });
  return context;
}

const ENGINE = {
  generic: "vramfit's own model",
  llamacpp: "llama.cpp (Ollama, LM Studio)",
  vllm: "vLLM",
  transformers: "Transformers",
};

test("the workload (16k tokens, 2 sequences) carries into each engine picked in turn, into training, and back", async () => {
  for (const name of ["desktop", "phone"]) {
    const size = SIZES[name], touch = name !== "desktop";
    const request = { v: 1, model: { preset: "llama-3.1-8b" }, gpu: { id: "rtx-4090" }, context_tokens: 16384, concurrent_sequences: 2 };
    const { context, page, errors } = await open(browser, site.origin + "/#" + hashOf(request), size);
    await pick(page, size, touch, "Engine", ENGINE.llamacpp);
    let s = await waitForState(page, s => s.engine === "llama.cpp", `${name}: llama.cpp`);
    assert.equal(s["llama.cpp"]["ctx-size"], 32768, `${name}: -c holds both sequences' 16,384 cells`);
    assert.equal(s["llama.cpp"].parallel, 2, `${name}: -np 2`);
    await pick(page, size, touch, "Engine", ENGINE.vllm);
    s = await waitForState(page, s => s.engine === "vllm", `${name}: vLLM`);
    assert.equal(s.vllm["max-model-len"], 16384, `${name}: --max-model-len`);
    assert.equal(s.vllm["max-num-seqs"], 2, `${name}: --max-num-seqs`);
    await pick(page, size, touch, "Engine", ENGINE.transformers);
    s = await waitForState(page, s => s.engine === "transformers", `${name}: Transformers`);
    assert.equal(s.transformers.batch_size, 2, `${name}: the batch`);
    assert.equal(s.transformers.input_length + (s.transformers.max_new_tokens ?? 512), 16384, `${name}: prompt + new tokens`);
    await pick(page, size, touch, "Engine", ENGINE.generic);
    s = await waitForState(page, s => !s.engine || s.engine === "generic", `${name}: vramfit's own`);
    assert.equal(s.context_tokens, 16384, `${name}: the context came back`);
    assert.equal(s.concurrent_sequences, 2, `${name}: the sequences came back`);
    // Training: the sequence length and the micro-batch; back to inference unchanged.
    await bringIntoView(page, "Training", size, touch);
    if (touch) await tapWidget(page, "Training"); else await clickWidget(page, "Training");
    s = await waitForState(page, s => s.mode === "training", `${name}: training`);
    assert.equal(s.training.sequence_length, 16384, `${name}: the sequence length`);
    assert.equal(s.training.micro_batch, 2, `${name}: the micro-batch`);
    await bringIntoView(page, "Inference", size, touch);
    if (touch) await tapWidget(page, "Inference"); else await clickWidget(page, "Inference");
    s = await waitForState(page, s => s.mode !== "training", `${name}: inference again`);
    assert.equal(s.context_tokens, 16384);
    assert.equal(s.concurrent_sequences, 2);
    assert.deepEqual(errors, [], name);
    await context.close();
  }
});

test("llama.cpp: the 70B Q4_K_M on two RTX 3090s at 16k starts; the margin is its own field and segment, said apart", async () => {
  for (const name of ["desktop", "tablet"]) {
    const size = SIZES[name], touch = name !== "desktop";
    const request = { v: 1, model: { preset: "llama-3.1-70b" }, weights: { format: "gguf-q4_k_m" }, gpu: { id: "rtx-3090" },
                      gpu_count: 2, context_tokens: 16384 };
    const { context, page, errors } = await open(browser, site.origin + "/#" + hashOf(request), size);
    await pick(page, size, touch, "Engine", ENGINE.llamacpp);
    await waitForState(page, s => s.engine === "llama.cpp" && s["llama.cpp"]["ctx-size"] === 16384, `${name}: llama.cpp at -c 16384`);
    await settled(page);
    let all = (await readAll(page, touch, size.viewport.height)).join(" ");
    assert.match(all, /llama\.cpp: STARTS on 2 GPUs and the host/, `${name}: the engine starts`);
    assert.doesNotMatch(all, /DOES NOT|does not start|does not fit/, `${name}: nothing says it does not`);
    assert.match(all, /Headroom: less than the margin \(10%/, `${name}: the margin said apart`);
    assert.match(all, /less than the margin: [\d.]+ GB of margin, [\d.]+ GB left/, `${name}: per GPU`);
    assert.ok((await layout(page)).some(w => w.label === "margin" && w.visible), `${name}: the margin in the legend`);
    // The margin field, in the engine's own view: 0 is allowed, and then the margin is kept.
    const field = await bringIntoView(page, "##Margin (%)", size, touch);
    assert.ok(field.visible, `${name}: the margin field`);
    await focusTextBox(page, "##Margin (%)", { tap: touch });
    await page.keyboard.press("Control+A");
    await typeText(page, "0");
    await page.keyboard.press("Enter");
    await waitForState(page, s => s.overhead && s.overhead.margin_fraction === 0, `${name}: margin 0`);
    // The hand leaves the field (no tooltip stays over the answer).
    if (!touch) await page.evaluate(() => canvas.dispatchEvent(new PointerEvent("pointerleave", { pointerType: "mouse" })));
    await settled(page);
    all = (await readAll(page, touch, size.viewport.height)).join(" ");
    assert.match(all, /llama\.cpp: STARTS on 2 GPUs and the host/, `${name}: the same verdict`);
    assert.match(all, /Headroom: the margin is kept on every GPU \(0%/, `${name}: a 0 margin is kept`);
    assert.deepEqual(layoutProblems(await layout(page), size.viewport), [], `${name}: layout`);
    await shot(page, `verdict-${name}-llamacpp-margin.png`);
    assert.deepEqual(errors, [], name);
    await context.close();
  }
});

test("vLLM: a rank whose CUDA graphs may not fit beyond the budget is a warning under a green STARTS, not a red bar", async () => {
  const size = SIZES.desktop;
  const request = { v: 1, model: { preset: "llama-3.1-8b" }, gpu: { id: "h100-80" }, engine: "vllm",
                    vllm: { "max-model-len": 8192, "gpu-memory-utilization": 0.99 } };
  const { context, page, errors } = await open(browser, site.origin + "/#" + hashOf(request), size);
  await settled(page);
  const all = (await texts(page)).join("\n");
  assert.match(all, /vLLM: STARTS on 1 GPU/);
  assert.doesNotMatch(all, /does not (start|fit)/, "no rank contradicts the verdict");
  assert.match(all, /rank 0 H100 80 GB\n[\d.]+ GB of [\d.]+ GB: CUDA graphs may not fit beyond the budget/, "the rank says its warning");
  assert.match(all, /Headroom: none, [\d.]+ MB over on rank 0 H100 80 GB \(the warning above\)/, "no negative headroom");
  await shot(page, "verdict-desktop-vllm-ranks.png");
  assert.deepEqual(errors, []);
  await context.close();
});

test("embed: a wheel the calculator cannot use scrolls the documentation page around it", async () => {
  // A documentation page, taller than the window, with the calculator in an 800 x 500 iframe.
  const context = await hostContext({ width: 1280, height: 800 });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", error => errors.push(String(error)));
  const request = { v: 1, model: { preset: "qwen3-8b" }, gpu: { id: "rtx-4090" } };
  // The documentation page, served beside the embed (one browser process for both, as a real
  // browser has by the time a hand reaches the wheel; a cross-site iframe's first wheel can reach
  // the page before the browser knows the iframe is under the pointer).
  const docs = height => `<!doctype html><body style="margin:0"><h1>Docs</h1><p style="height:300px">Text above.</p>
    <iframe id="calc" src="${site.origin}/embed.html#${hashOf(request)}" width="800" height="${height}" style="border:0"></iframe>
    <p style="height:2000px">Text below.</p></body>`;
  let docsHeight = 500;
  await page.route(url => url.pathname === "/docs.html", route => route.fulfill({ contentType: "text/html", body: docs(docsHeight) }));
  await page.goto(site.origin + "/docs.html");
  let frame = page.frames().find(f => f.url().includes("/embed.html"));
  await frame.waitForFunction(() => window.vramfitTiming, null, { timeout: 60000 });
  await settled(frame);
  const hostScroll = () => page.evaluate(() => window.scrollY);
  // Where the embed's texts are (a tooltip under the pointer aside: it comes and goes with the hover).
  const embedTexts = async () => (await frame.evaluate(() => window.vramfitLayout()))
    .filter(w => w.kind === "text" && w.visible && !/^[^:]+: [\d.]+ [GMk]?i?B$/.test(w.label))
    .map(w => `${w.label}@${Math.round(w.y)}`).join("|");
  // The wheel, notch by notch, as a hand turns it, the pointer kept over the middle of the embed.
  async function wheelOverEmbed(deltaY) {
    const box = await page.locator("#calc").boundingBox();
    await page.mouse.move(box.x + 400, box.y + box.height / 2);
    await frames(frame, 2);
    await page.mouse.wheel(0, deltaY);
    await frames(frame, 2);
  }
  const shown = await embedTexts();
  for (let notch = 0; notch < 4; notch++) await wheelOverEmbed(100);
  assert.equal(await embedTexts(), shown, "the embed has nothing of its own to scroll here");
  const down = await hostScroll();
  assert.ok(down >= 300, `four notches over the embed scrolled the documentation page (${down} px)`);
  for (let notch = 0; notch < 4; notch++) await wheelOverEmbed(-100);
  assert.ok(await hostScroll() <= down - 300, "and four notches up scrolled it back");

  // A shorter embed (800 x 240) has more than it shows: the wheel scrolls it first, and the
  // documentation page only once the embed is at its end.
  docsHeight = 240;
  await page.goto(site.origin + "/docs.html?short");
  frame = page.frames().find(f => f.url().includes("/embed.html"));
  await frame.waitForFunction(() => window.vramfitTiming, null, { timeout: 60000 });
  await settled(frame);
  const before = await embedTexts();
  await wheelOverEmbed(100);
  assert.notEqual(await embedTexts(), before, "the embed's own content moved");
  assert.equal(await hostScroll(), 0, "the documentation page stayed");
  let notches = 1;
  while ((await hostScroll()) === 0 && notches < 40) {
    await wheelOverEmbed(100);
    notches++;
  }
  assert.ok(notches > 1 && notches < 40, `the page scrolled once the embed was at its end (${notches} notches)`);
  assert.deepEqual(errors, []);
  await context.close();
});

test("phone: a tap shows a (?) help and a flag's meaning; a second tap or a tap elsewhere closes it", async () => {
  const size = SIZES.phone;
  const request = { v: 1, model: { preset: "qwen3-8b" }, weights: { format: "gguf-q4_k_m" }, gpu: { id: "rtx-4090" }, engine: "llama.cpp" };
  const { context, page, errors } = await open(browser, site.origin + "/#" + hashOf(request), size);
  const meaning = "--n-gpu-layers: repeating layers on the GPUs, then the output layer; -1: all (the default).";
  const shows = async text => (await texts(page)).some(t => t.includes(text));
  // A flag's label: tapped, its long name and meaning; tapped again, gone.
  await bringIntoView(page, "-ngl", size, true);
  assert.equal(await shows("--n-gpu-layers:"), false, "nothing before the tap");
  await tapWidget(page, "-ngl");
  await settled(page);
  assert.ok(await shows("--n-gpu-layers:"), "the tap shows the flag's meaning");
  await frames(page, 3);
  assert.ok(await shows("--n-gpu-layers:"), "and it stays after the finger is lifted");
  await tapWidget(page, "-ngl");
  await settled(page);
  assert.equal(await shows("--n-gpu-layers:"), false, "a second tap closes it");
  // A "(?)" in vramfit's own inputs: tapped, its help; a tap on something that does nothing
  // (the title) closes it.
  await pick(page, size, true, "Engine", ENGINE.generic);
  await waitForState(page, s => !s.engine, "vramfit's own model");
  await bringIntoView(page, "(?)", size, true);
  const marker = (await layout(page)).find(w => w.label === "(?)" && w.visible);
  assert.ok(marker, "a (?) on the screen");
  const shown = new Set(await texts(page));
  await page.touchscreen.tap(marker.x + marker.w / 2, marker.y + marker.h / 2);
  await settled(page);
  const help = (await texts(page)).filter(t => !shown.has(t));
  assert.ok(help.length > 0, "the tap on (?) shows its help");
  for (const item of (await layout(page)).filter(w => help.includes(w.label) && w.visible)) {
    assert.ok(item.x >= 0 && item.x + item.w <= size.viewport.width, `the help is on the screen, whole: ${item.label}`);
  }
  await shot(page, "verdict-phone-help-tap.png");
  const title = await widget(page, "vramfit");
  await page.touchscreen.tap(title.cx, title.cy);
  await settled(page);
  const left = await texts(page);
  assert.ok(help.every(t => !left.includes(t)), "a tap elsewhere closes the help");
  assert.ok(!(await shows(meaning)), "nothing pinned is left");
  assert.deepEqual(errors, []);
  await context.close();
});

test("embed: the row's fields are as wide as their values, at 800 x 500 and 360 wide", async () => {
  for (const width of [800, 360]) {
    const size = { viewport: { width, height: 500 } };
    const request = { v: 1, model: { preset: "llama-3.1-70b" }, weights: { format: "gguf-q4_k_m" }, gpu: { id: "rtx-3090" },
                      context_tokens: 131072 };
    const { context, page, errors } = await open(browser, site.origin + "/embed.html#" + hashOf(request), size);
    await settled(page);
    const items = await layout(page);
    const model = items.find(w => w.label === "Model" && w.kind === "widget");
    // The model's name, as the results draw it in full, fits in the closed list with its arrow.
    const name = items.find(w => w.kind === "text" && w.label === "Llama 3.1 70B (and 3.3 70B)");
    assert.ok(name, `${width}: the model's name in the results`);
    assert.ok(model.w >= name.w + model.h, `${width}: the Model list (${model.w} px) holds its name (${name.w} px) and its arrow`);
    // The context box holds "16,777,216", the longest context, as wide as 10 of the "Context" label's characters and more.
    const box = items.find(w => w.label === "##Context");
    const label = items.find(w => w.kind === "text" && w.label === "Context");
    assert.ok(box.w >= (label.w / 7) * 10, `${width}: the context box (${box.w} px) holds 16,777,216`);
    for (const w of items.filter(i => ["Model", "Weights", "##Context", "GPU"].includes(i.label))) {
      assert.ok(w.x >= 0 && w.x + w.w <= width, `${width}: ${w.label} is on the screen, whole`);
    }
    assert.deepEqual(layoutProblems(items, size.viewport), [], `${width}: layout`);
    await shot(page, `verdict-embed-${width}.png`);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("vLLM's --gpu-memory-utilization takes the flag's own 0.95 and a percent, 80%", async () => {
  const size = SIZES.desktop;
  const request = { v: 1, model: { preset: "llama-3.1-8b" }, gpu: { id: "h100-80" }, engine: "vllm" };
  const { context, page, errors } = await open(browser, site.origin + "/#" + hashOf(request), size);
  assert.equal((await widget(page, "##--gpu-memory-utilization")).label, "##--gpu-memory-utilization");
  for (const [typed, fraction] of [["0.95", 0.95], ["80%", 0.8], ["0.9", 0.9]]) {
    await bringIntoView(page, "##--gpu-memory-utilization", size, false);
    await focusTextBox(page, "##--gpu-memory-utilization");
    await page.keyboard.press("Control+A");
    await typeText(page, typed);
    await page.keyboard.press("Enter");
    await waitForState(page, s => ((s.vllm || {})["gpu-memory-utilization"] ?? 0.9) === fraction, `${typed} is ${fraction}`);
  }
  await settled(page);
  assert.ok((await texts(page)).some(t => t.includes("gpu_memory_utilization (0.90)")), "vLLM's own line says 0.90");
  assert.deepEqual(errors, []);
  await context.close();
});

test("vLLM at -tp 2: the GPU count says 2 from -tp x -pp, no field that says 1", async () => {
  const size = SIZES.desktop;
  const request = { v: 1, model: { preset: "llama-3.1-8b" }, gpu: { id: "h100-80" }, engine: "vllm", vllm: { "tensor-parallel-size": 2 } };
  const { context, page, errors } = await open(browser, site.origin + "/#" + hashOf(request), size);
  // The wheel over the inputs, down to the GPU section at their end.
  await page.mouse.move(150, 400);
  for (let notch = 0; notch < 12; notch++) await page.mouse.wheel(0, 300);
  await settled(page);
  const shown = await texts(page);
  assert.ok(shown.includes("GPU count: 2 (-tp x -pp)"), "the count from -tp x -pp");
  assert.ok(!(await layout(page)).some(w => w.label === "##GPU count"), "no GPU count field to disagree");
  await pick(page, size, false, "Engine", ENGINE.llamacpp);
  await waitForState(page, s => s.engine === "llama.cpp", "llama.cpp");
  // llama.cpp's inputs are longer (its build and program among them): the wheel again, to the GPU section.
  await page.mouse.move(150, 400);
  for (let notch = 0; notch < 12; notch++) await page.mouse.wheel(0, 300);
  await settled(page);
  assert.equal((await widget(page, "##GPU count", { visible: false })).label, "##GPU count", "llama.cpp takes the count");
  assert.deepEqual(errors, []);
  await context.close();
});

test("a context that does not fit says so (not 'Most sequences: 0'); a garbage link shows the defaults it names; the theme button names the theme", async () => {
  const size = SIZES.desktop;
  const request = { v: 1, model: { preset: "llama-3.1-8b" }, gpu: { id: "rtx-4090" }, context_tokens: 131072 };
  const { context, page, errors } = await open(browser, site.origin + "/#" + hashOf(request), size);
  let all = (await texts(page)).join(" ");
  assert.match(all, /Most sequences: none at 131,072 tokens \(that context does not fit\)/);
  assert.doesNotMatch(all, /Most sequences: 0\b/);
  assert.match(all, /Longest context: [\d,]+ tokens/);
  // A link whose state cannot be read: the notice says the defaults are shown, and they are.
  await page.evaluate(() => { location.hash = "#r=not-a-state"; });
  await page.waitForFunction(() => window.vramfitLayout().some(w => /showing the defaults/.test(w.label)), null, { timeout: 20000 });
  const s = await waitForState(page, s => !s.context_tokens, "the defaults");
  assert.equal(s.model, undefined, "the default model (left out of the link)");
  assert.equal((s.gpu || {}).id ?? "rtx-4090", "rtx-4090");
  // The theme's button names the theme shown, as the units' button does.
  const light = await widget(page, "Light");
  assert.ok(light.visible, "the light theme says Light");
  await clickWidget(page, "Light");
  await settled(page);
  assert.ok((await widget(page, "Dark")).visible, "a click: the dark theme, and the button says Dark");
  assert.deepEqual(errors.filter(e => !/Failed to load resource/.test(e)), []);
  await context.close();
});

test("a second pasted config replaces the first one's notice", async () => {
  const opened = await open(browser, site.origin + "/", { ...SIZES.desktop, permissions: ["clipboard-read", "clipboard-write"] });
  const { page, errors } = opened;
  const paste = async config => {
    await focusTextBox(page, "##config");
    await page.keyboard.press("Control+A");
    await page.evaluate(text => navigator.clipboard.writeText(text), JSON.stringify(config));
    await page.keyboard.press("Control+V");
    await frames(page, 3);
    await clickWidget(page, "Use this config");
    await settled(page);
  };
  await clickWidget(page, "Paste a config.json");
  await frames(page, 2);
  // Without num_key_value_heads: read, with what was assumed said.
  await paste({ model_type: "llama", hidden_size: 4096, intermediate_size: 11008, num_hidden_layers: 32, num_attention_heads: 32,
                vocab_size: 32000, _name_or_path: "first/llama" });
  await waitForState(page, s => s.model && s.model.name === "llama", "the first config");
  assert.ok((await texts(page)).some(t => t.includes("num_key_value_heads missing")), "the first config's notice");
  // A complete config: nothing assumed, and the first one's notice is gone.
  await paste({ ...JSON.parse(fs.readFileSync(path.join(root, "tests/fixtures/configs/falcon-7b.json"), "utf8")), _name_or_path: "tiiuae/falcon-7b" });
  await waitForState(page, s => s.model && s.model.name === "falcon-7b", "the second config");
  assert.ok(!(await texts(page)).some(t => t.includes("num_key_value_heads missing")), "no notice left from the first");
  assert.deepEqual(errors, []);
  await opened.context.close();
});

test("a copy is confirmed; in an embed whose iframe lacks clipboard permission it says why it was not copied", async () => {
  // The page: Copy link, with the clipboard allowed.
  const opened = await open(browser, site.origin + "/", { ...SIZES.desktop, permissions: ["clipboard-read", "clipboard-write"] });
  await clickWidget(opened.page, "Copy link");
  await opened.page.waitForFunction(() => window.vramfitLayout().some(w => w.label === "Copied" && w.visible), null, { timeout: 10000 });
  assert.match(await opened.page.evaluate(() => navigator.clipboard.readText()), /#r=/, "the link is on the clipboard");
  assert.deepEqual(opened.errors, []);
  await opened.context.close();
  // A documentation page on another origin embeds the calculator without allow="clipboard-write".
  const context = await hostContext({ width: 1000, height: 700 });
  const page = await context.newPage();
  // Another origin (another port): a second server with the documentation page.
  const docsDir = fs.mkdtempSync(path.join(os.tmpdir(), "vramfit-docs-"));
  fs.writeFileSync(path.join(docsDir, "index.html"),
                   `<!doctype html><body><iframe id="calc" src="${site.origin}/embed.html" width="800" height="500"></iframe></body>`);
  const docs = await serveFolder(docsDir);
  await page.goto(docs.origin + "/");
  await page.locator("#calc").waitFor();
  let frame;
  for (let i = 0; i < 100 && !frame; i++) {
    frame = page.frames().find(f => f.url().includes("/embed.html"));
    if (!frame) await new Promise(resolve => setTimeout(resolve, 100));
  }
  await frame.waitForFunction(() => window.vramfitTiming, null, { timeout: 60000 });
  await settled(frame);
  const box = await page.locator("#calc").boundingBox();
  const button = (await frame.evaluate(() => window.vramfitLayout())).find(w => w.label === "Copy Markdown");
  await page.mouse.click(box.x + button.x + button.w / 2, box.y + button.y + button.h / 2);
  await frame.waitForFunction(() => window.vramfitLayout().some(w => /^Not copied: the browser refused the clipboard/.test(w.label)), null,
                              { timeout: 10000 });
  const said = (await frame.evaluate(() => window.vramfitLayout())).filter(w => w.visible).map(w => w.label).join(" ");
  assert.match(said, /allow="clipboard-write"/, "it says what the embedding page needs");
  await context.close();
  docs.server.close();
  fs.rmSync(docsDir, { recursive: true, force: true });
});

test("a Mac is found in the GPU list by typing; its verdict names Metal's limit of its unified memory, for llama.cpp too", async () => {
  for (const name of ["phone", "desktop"]) {
    const size = SIZES[name], touch = name !== "desktop";
    const request = { v: 1, model: { preset: "llama-3.1-70b" }, weights: { format: "gguf-q4_k_m" } };
    const { context, page, errors } = await open(browser, site.origin + "/#" + hashOf(request), size);
    await bringIntoView(page, "GPU", size, touch);
    if (touch) await tapWidget(page, "GPU"); else await clickWidget(page, "GPU");
    await textFieldHasKeyboard(page);  // the list opens with its search field active
    await typeText(page, "M4 Max, 128");
    await frames(page);
    await page.keyboard.press("Enter");
    await waitForState(page, s => s.gpu && s.gpu.id === "apple-m4-max-128", `${name}: the Mac by its name`);
    await settled(page);
    let said = (await readAll(page, touch, size.viewport.height)).join(" ");
    assert.match(said, /The GPU may use 96\.00 GiB of this Mac's 128\.00 GiB of unified memory/, `${name}: the limit and the RAM`);
    assert.match(said, /iogpu\.wired_limit_mb/, `${name}: how to raise it`);
    if (name === "phone") await shot(page, "verdict-mac-phone.png");
    if (touch) await swipe(page, 200, 300, 0, 1000);  // back to the top, where the inputs are
    await pick(page, size, touch, "Engine", ENGINE.llamacpp);
    await waitForState(page, s => s.engine === "llama.cpp", `${name}: llama.cpp`);
    said = (await readAll(page, touch, size.viewport.height)).join(" ");
    assert.match(said, /The GPU may use 96\.00 GiB of this Mac's 128\.00 GiB/, `${name}: said under llama.cpp's verdict too`);
    if (name === "desktop") await shot(page, "verdict-mac-llamacpp-desktop.png");
    assert.deepEqual(errors, [], name);
    await context.close();
  }
});
