// The page used as a person uses it — touch taps and swipes, the wheel, the clipboard, the
// keyboard, typed numbers — at a phone's, a tablet's and a laptop's size, finding every
// widget by its label through the app's layout hook (window.vramfitLayout()). Each test names
// the observation of the page issue it covers (#1 .. #24).
//   node --test tests/e2e/     (after scripts/build_dist.sh and the native build)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { root, dist, serveDist, launch, open, widget, clickWidget, focusTextBox, textFieldHasKeyboard, frames, settled, layout, tapWidget, swipe, layoutProblems,
         SIZES, typeText, chooseFile, hashOf, decodeHash, appState as state, waitForState, texts, shot, readAll } from "./support.mjs";
import { ggufBytes } from "../support/gguf_bytes.mjs";

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser.close(); site.server.close(); });


test("#1 #21 every size: no text over another, nothing cut or outside the viewport, on every tab", async () => {
  for (const [name, size] of Object.entries(SIZES)) {
    for (const request of [{ v: 1 }, { v: 1, mode: "training", model: { preset: "llama-3.1-8b" }, training: { method: "qlora" } }]) {
      const { context, page, errors } = await open(browser, site.origin + "/#" + hashOf(request), size);
      for (const tab of ["Breakdown", "Which GPUs fit", "Fit map"]) {
        const w = await widget(page, tab, { visible: false });
        if (name === "phone") await page.touchscreen.tap(w.cx, w.cy); else await page.mouse.click(w.cx, w.cy);
        await frames(page, 3);
        const problems = layoutProblems(await layout(page), size.viewport);
        assert.deepEqual(problems, [], `${name}, ${request.mode || "inference"}, ${tab}`);
        if (request.mode === undefined) await shot(page, `page-${name}-${tab.replace(/ /g, "-").toLowerCase()}.png`);
      }
      assert.deepEqual(errors, []);
      await context.close();
    }
  }
});

test("#1 the phone shows one column: inputs, then the verdict and bar, then the tabs", async () => {
  const { context, page } = await open(browser, site.origin + "/", SIZES.phone);
  const items = await layout(page);
  const y = label => items.find(i => i.label === label || i.label.startsWith(label)).y;
  assert.ok(y("Inference") < y("FITS"), "inputs above the verdict");
  assert.ok(y("FITS") < y("Breakdown"), "the verdict above the tabs");
  const context_field = items.find(i => i.label === "##Context");
  assert.ok(context_field.x + context_field.w <= 390 && context_field.w > 100, "the inputs take the width");
  await context.close();
});

test("#2 touch: a tap lands where the finger is; a swipe scrolls and never taps", async () => {
  const { context, page, errors } = await open(browser, site.origin + "/", SIZES.phone);
  await tapWidget(page, "Flash attention");
  await waitForState(page, s => s.overhead && s.overhead.flash_attention === false, "flash attention off");
  // A swipe up over the page: the page scrolls, the checkbox under the finger does not flip.
  const before = await widget(page, "Flash attention");
  await swipe(page, before.cx, before.cy, 0, -300);
  const after_swipe = await widget(page, "Flash attention", { visible: false });
  assert.ok(after_swipe.y < before.y - 100, `the page scrolled (${before.y} -> ${after_swipe.y})`);
  assert.equal((await state(page)).overhead.flash_attention, false, "the swipe did not tap");
  // Radio buttons take every tap.
  for (const [label, mode] of [["Training", "training"], ["Inference", undefined], ["Training", "training"]]) {
    await swipe(page, 200, 300, 0, 1000);  // back to the top
    await tapWidget(page, label);
    await waitForState(page, s => s.mode === mode, `mode ${label}`);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test("#2 #16 #17 tablet: the GPU is chosen by touch, every time; the list shows GiB; Enter takes the only match", async () => {
  const { context, page, errors } = await open(browser, site.origin + "/", SIZES.tablet);
  for (const [gpu, id] of [["GeForce RTX 3090", "rtx-3090"], ["GeForce RTX 4090", "rtx-4090"], ["RTX A6000", "rtx-a6000"], ["L4", "l4"]]) {
    await tapWidget(page, "GPU");
    // Swipe the list up until the GPU shows (a finger scrolls the list under it).
    let entry = null;
    for (let tries = 0; tries < 8 && !entry; tries++) {
      const items = await layout(page);
      entry = items.find(i => i.label.startsWith(gpu + "  (") && i.visible && i.y > 0 && i.y + i.h < SIZES.tablet.viewport.height);
      if (!entry) {
        const first = items.find(i => /GiB\)$/.test(i.label) && i.visible);
        assert.ok(first, `a tap on GPU opened the list (for ${gpu}; ${tries} swipes)`);
        await swipe(page, first.x + 60, first.y + 200, 0, -200);
      }
    }
    assert.ok(entry, `${gpu} in the list`);
    assert.match(entry.label, /\(\d+\.\d GiB\)$/, "capacity as sold, in GiB");
    await page.touchscreen.tap(entry.x + entry.w / 2, entry.y + entry.h / 2);
    await settled(page);
    await waitForState(page, s => (s.gpu ? s.gpu.id : "rtx-4090") === id, `GPU ${id}`);
  }
  // Type into the search and press Enter: the only match is taken.
  await tapWidget(page, "GPU");
  await textFieldHasKeyboard(page);  // the list opens with its search field active
  await typeText(page, "A100 80");
  await frames(page);
  await page.keyboard.press("Enter");
  await waitForState(page, s => s.gpu && s.gpu.id === "a100-80", "A100 80 GB by Enter");
  assert.ok(!(await layout(page)).some(i => i.label === "Memory (GiB)"), "no custom field under a catalog GPU");
  assert.deepEqual(errors, []);
  await context.close();
});

test("#5 the wheel scrolls the browser's way, about three lines a notch", async () => {
  const { context, page } = await open(browser, site.origin + "/", SIZES.desktop);
  await clickWidget(page, "Which GPUs fit");
  const first = await widget(page, "GeForce RTX 4090");
  await page.mouse.move(first.cx, first.cy + 100);
  await page.mouse.wheel(0, 100);  // one notch down
  await frames(page, 3);
  const down = await widget(page, "GeForce RTX 4090", { visible: false });
  const moved = first.y - down.y;
  assert.ok(moved > 30 && moved < 70, `one notch down moved the list up by ${moved} px (three 16 px lines = 48)`);
  await page.mouse.wheel(0, -100);
  await frames(page, 3);
  assert.equal((await widget(page, "GeForce RTX 4090")).y, first.y, "one notch up comes back");
  await context.close();
});

test("#6 #13 numbers: click and type 32k; bad text keeps the value and says why; one history entry per edit", async () => {
  const { context, page, errors } = await open(browser, site.origin + "/", SIZES.desktop);
  const entries = await page.evaluate(() => history.length);
  await focusTextBox(page, "##Context");
  await typeText(page, "32k");
  await page.keyboard.press("Enter");
  await waitForState(page, s => s.context_tokens === 32768, "context 32k");
  assert.equal(await page.evaluate(() => history.length), entries + 1, "one entry for the whole typed number");
  for (const [typed, tokens] of [["128K", 131072], ["32,768", 32768], ["1M", 1048576]]) {
    await focusTextBox(page, "##Context");
    await page.keyboard.press("Control+A");
    await typeText(page, typed);
    await page.keyboard.press("Enter");
    await waitForState(page, s => s.context_tokens === tokens, `context ${typed}`);
  }
  await focusTextBox(page, "##Context");
  await page.keyboard.press("Control+A");
  await typeText(page, "32q");
  await page.keyboard.press("Enter");
  await frames(page, 3);
  assert.equal((await state(page)).context_tokens, 1048576, "kept");
  assert.match((await texts(page)).join(" "), /unknown suffix 'q'.*kept 1,048,576/, "says why (in lines wrapped at spaces)");
  // The steppers double and halve.
  const field = await widget(page, "##Context");
  const plus = (await layout(page)).find(i => i.label === "-" && Math.abs(i.y - field.y) < 2);
  await page.mouse.click(plus.x + plus.w / 2, plus.y + plus.h / 2);
  await waitForState(page, s => s.context_tokens === 524288, "halved by -");
  assert.deepEqual(errors, []);
  await context.close();
});

test("#3 paste goes into the text field; copy from a field copies that field", async () => {
  const opened = await open(browser, site.origin + "/", { ...SIZES.desktop, permissions: ["clipboard-read", "clipboard-write"] });
  const { page, errors } = opened;
  await page.evaluate(() => { window.copied = []; window.vramfitCopied = text => window.copied.push(text); });
  await clickWidget(page, "Paste a config.json");
  await frames(page, 2);
  await focusTextBox(page, "##config");
  const config = JSON.stringify({ ...JSON.parse(fs.readFileSync(path.join(root, "tests/fixtures/configs/falcon-7b.json"), "utf8")),
                                  _name_or_path: "tiiuae/falcon-7b" });
  await page.evaluate(text => navigator.clipboard.writeText(text), config);
  await page.keyboard.press("Control+V");
  await frames(page, 3);
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Control+C");
  await frames(page, 3);
  assert.equal(await page.evaluate(() => window.copied[window.copied.length - 1]), config, "the field's own text was copied");
  await clickWidget(page, "Use this config");
  const s = await waitForState(page, s => s.model && s.model.name, "the pasted config");
  assert.equal(s.model.name, "falcon-7b", "named by _name_or_path");
  assert.deepEqual(errors, []);
  await opened.context.close();
});

test("#7 two GPUs: the verdict says 2 x and per GPU; no row is larger than its parent", async () => {
  const request = { v: 1, model: { preset: "llama-3.1-70b" }, weights: { format: "gguf-q4_k_m" }, gpu: { id: "rtx-3090" }, gpu_count: 2 };
  const { context, page } = await open(browser, site.origin + "/#" + hashOf(request), SIZES.desktop);
  const live = await page.evaluate(() => document.getElementById("live").textContent);
  assert.match(live, /on 2 x GeForce RTX 3090: (fits|does not fit) \(per GPU [\d.]+ GB of [\d.]+ GB\)/);
  const all = await texts(page);
  assert.ok(all.some(t => /^on 2 x GeForce RTX 3090$/.test(t)));
  await context.close();
});

test("#8 #23 a warning stands beside the verdict; when nothing fits, a sentence says so", async () => {
  const long = await open(browser, site.origin + "/#" + hashOf({ v: 1, model: { preset: "llama-3.1-8b" }, context_tokens: 200000 }), SIZES.desktop);
  const items = await layout(long.page);
  const warning = items.find(i => i.kind === "text" && i.label.startsWith("warning: context_tokens (200,000) exceeds"));
  assert.ok(warning && warning.visible && warning.y + warning.h < 768, "the warning is on screen without scrolling");
  assert.ok(warning.y < items.find(i => i.label === "Breakdown").y, "above the tabs");
  await long.context.close();
  const none = await open(browser, site.origin + "/#" + hashOf({ v: 1, model: { preset: "llama-3.1-405b" }, gpu: { id: "rtx-3060-12" } }), SIZES.desktop);
  assert.ok((await texts(none.page)).some(t => t.startsWith("Not even one token of context fits")));
  await none.context.close();
});

test("#9 embed: Open full page opens index.html with the same configuration; the snippet allows clipboard-write; key inputs", async () => {
  const request = { v: 1, model: { preset: "phi-4" }, context_tokens: 16384 };
  const embed = await open(browser, site.origin + "/embed.html#" + hashOf(request), { viewport: { width: 760, height: 460 } });
  for (const label of ["Model", "Weights", "##Context", "GPU"]) await widget(embed.page, label);
  const [popup] = await Promise.all([embed.context.waitForEvent("page"), clickWidget(embed.page, "Open full page")]);
  await popup.waitForLoadState();
  assert.equal(new URL(popup.url()).pathname, "/index.html");
  assert.equal(decodeHash(new URL(popup.url()).hash).model.preset, "phi-4");
  await embed.context.close();
  const full = await open(browser, site.origin + "/", SIZES.desktop);
  await full.page.evaluate(() => { window.copied = []; window.vramfitCopied = text => window.copied.push(text); });
  await clickWidget(full.page, "Embed");
  await clickWidget(full.page, "Copy snippet");
  const snippet = await full.page.evaluate(() => window.copied[0]);
  assert.match(snippet, /<iframe src="http:\/\/127\.0\.0\.1:\d+\/embed\.html#r=[^"]+" [^>]*allow="clipboard-write"/);
  await full.context.close();
});

test("#10 non-Latin names render: _name_or_path in Chinese, a file name in Arabic", async () => {
  const { context, page, errors } = await open(browser, site.origin + "/", SIZES.desktop);
  const config = { ...JSON.parse(fs.readFileSync(path.join(root, "tests/fixtures/configs/falcon-7b.json"), "utf8")), _name_or_path: "Qwen/通义千问-7B" };
  const button = await widget(page, "Open file...");
  for (const [name, body, shown] of [["config.json", JSON.stringify(config), "通义千问-7B"], ["نموذج-عربي.json", fs.readFileSync(path.join(root, "tests/fixtures/configs/falcon-7b.json")), "نموذج-عربي.json"]]) {
    await chooseFile(page, () => page.mouse.click(button.cx, button.cy), { name, mimeType: "application/json", buffer: Buffer.from(body) });
    await waitForState(page, s => s.model && s.model.name === shown, shown);
    await frames(page, 4);
    const missing = await page.evaluate(text => [...text].filter(c => !Module._vramfit_has_glyph(c.codePointAt(0))), shown);
    assert.deepEqual(missing, [], `every character of ${shown} has a glyph`);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test("#11 the keyboard reaches every control; focus shows from the start", async () => {
  const { context, page } = await open(browser, site.origin + "/", SIZES.desktop);
  await frames(page, 2);
  assert.ok((await layout(page)).some(i => i.focused), "an item has the keyboard focus at load");
  const reached = new Set();
  for (let i = 0; i < 120; i++) {
    await page.keyboard.press("Tab");
    await settled(page);
    const focused = (await layout(page)).find(item => item.focused);
    if (focused) reached.add(focused.label);
  }
  for (const label of ["Open file...", "Copy JSON", "Copy link", "Inference", "Layer list", "Model", "Weights", "##Context", "GPU", "Breakdown", "Which GPUs fit", "Fit map"]) {
    assert.ok(reached.has(label), `Tab reaches ${label} (reached: ${[...reached].join(", ")})`);
  }
  await context.close();
});

test("#12 training: the fewest GPUs, and the sharding that would fit when DDP cannot", async () => {
  const request = { v: 1, mode: "training", model: { preset: "llama-3.1-8b" }, gpu: { id: "rtx-4090" } };
  const { context, page } = await open(browser, site.origin + "/#" + hashOf(request), SIZES.desktop);
  assert.ok((await texts(page)).some(t => /Fewest GPUs: none with DDP \(every GPU holds everything\); with ZeRO-3, \d+ GPUs/.test(t)));
  await clickWidget(page, "Which GPUs fit");
  assert.ok((await texts(page)).some(t => /^ZeRO-3: \d+$/.test(t)));
  await context.close();
});

test("#14 #15 #20 formulas keep numbers whole; legend colours mean the same in every mode; the fit map has a legend", async () => {
  const { context, page } = await open(browser, site.origin + "/", SIZES.desktop);
  // A line that ends in the middle of "1,073,741,824" ends with a digit and a comma.
  const broken = (await texts(page)).filter(t => /\d,$/.test(t));
  assert.deepEqual(broken, [], "no number is split across lines");
  const swatch = async () => {
    const label = (await layout(page)).find(i => i.kind === "text" && i.label === "Safety margin");
    const png = await page.screenshot({ clip: { x: label.x - 12, y: label.y + 4, width: 6, height: 6 } });
    return png.toString("base64");
  };
  const inference = await swatch();
  await clickWidget(page, "Training");
  await frames(page, 3);
  assert.equal(await swatch(), inference, "the margin's colour is the same in training");
  await clickWidget(page, "Fit map");
  await frames(page, 2);
  const legend = await texts(page);
  assert.ok(legend.includes("0 to 100% of the GPU: fits") && legend.includes("over 100%: does not fit"));
  assert.ok(legend.some(t => t.startsWith("Dark line in a light halo")));
  await context.close();
});

test("#18 an unknown GPU in a link: a notice, and the rest of the link still shown", async () => {
  const { context, page, errors } = await open(browser, site.origin + "/#" + hashOf({ v: 1, model: { preset: "qwen3-8b" }, gpu: { id: "rtx-9090" } }), SIZES.desktop);
  const all = await texts(page);
  assert.ok(all.some(t => t.includes("rtx-9090") && t.includes("showing GeForce RTX 4090 instead")), all.join(" | "));
  assert.ok(all.some(t => /^(FITS|DOES NOT FIT)/.test(t)), "the verdict is still there");
  assert.equal((await state(page)).model.preset, "qwen3-8b");
  assert.deepEqual(errors, []);
  await context.close();
});

test("#19 Which GPUs fit sorts by a column", async () => {
  const { context, page } = await open(browser, site.origin + "/", SIZES.desktop);
  await clickWidget(page, "Which GPUs fit");
  const rowsByY = async () => (await layout(page)).filter(i => i.kind === "widget" && /GiB|GB|RTX|Tesla|^A\d|^L\d|^H\d|^B\d|MI\d|Apple|Radeon/.test(i.label) && i.h < 30 && i.w > 300).sort((a, b) => a.y - b.y);
  const memoryHeader = (await layout(page)).find(i => i.label === "Memory" && i.kind === "widget");
  assert.ok(memoryHeader, "the Memory header is a widget");
  await page.mouse.click(memoryHeader.x + memoryHeader.w / 2, memoryHeader.y + memoryHeader.h / 2);
  await frames(page, 3);
  const ascending = (await rowsByY())[0].label;
  // A second click, not a double click (Dear ImGui's double-click time is 0.3 s); the new order
  // is waited for, a frame at a time, rather than read after a fixed number of frames.
  await page.waitForTimeout(400);
  await page.mouse.click(memoryHeader.x + memoryHeader.w / 2, memoryHeader.y + memoryHeader.h / 2);
  let descending = ascending;
  for (let i = 0; i < 20 && descending === ascending; i++) {
    await frames(page, 1).catch(() => {});
    descending = (await rowsByY())[0].label;
  }
  assert.notEqual(ascending, descending, "a second click reverses the order");
  await context.close();
});

test("#22 a GGUF cut after its header reads, with a warning about the incomplete download", async () => {
  const { context, page } = await open(browser, site.origin + "/", SIZES.desktop);
  const button = await widget(page, "Open file...");
  await chooseFile(page, () => page.mouse.click(button.cx, button.cy), { name: "cut.gguf", mimeType: "application/octet-stream", buffer: ggufBytes({ tokens: 100 }) });
  await waitForState(page, s => s.model && s.model.name === "cut.gguf", "the cut GGUF");
  await frames(page, 3);
  assert.ok((await texts(page)).some(t => t.includes("an incomplete download?")));
  await context.close();
});

test("#24 switching to Layer list keeps the tab that was open", async () => {
  const { context, page } = await open(browser, site.origin + "/", SIZES.desktop);
  await clickWidget(page, "Which GPUs fit");
  await clickWidget(page, "Layer list");
  await frames(page, 3);
  await widget(page, "##gpu_filter");  // the GPU list is still what is shown
  await context.close();
});

test("#4 the single file reads a GGUF from file://", async () => {
  const single = await open(browser, "file://" + path.join(dist, "vramfit.html"), SIZES.desktop);
  const button = await widget(single.page, "Open file...");
  await chooseFile(single.page, () => single.page.mouse.click(button.cx, button.cy), { name: "tiny.gguf", mimeType: "application/octet-stream", buffer: ggufBytes({ tokens: 100 }) });
  const s = await waitForState(single.page, s => s.model && s.model.name === "tiny.gguf", "the GGUF");
  assert.equal(s.weights.format, "as_stored");
  assert.equal(s.engine, "llama.cpp", "a GGUF is answered by llama.cpp's model");
  await settled(single.page);
  const shown = await texts(single.page);
  assert.ok(shown.some(t => t.startsWith("llama.cpp: ")), "the verdict names the engine");
  assert.ok(shown.some(t => t.startsWith("The engine's own allocation answers; Engine")), "and says how to switch");
  assert.deepEqual(single.errors, []);
  await single.context.close();
});

test("a GGUF format picked from Weights is answered by llama.cpp's model; an engine picked by name stays", async () => {
  for (const [name, size] of Object.entries(SIZES)) {
    const request = { v: 1, model: { preset: "llama-3.1-70b" }, gpu: { id: "rtx-3090" }, gpu_count: 2, context_tokens: 16384 };
    const touch = name !== "desktop";
    // (On a phone the verdict is under the inputs: the page read down first, then opened afresh.)
    const reading = await open(browser, site.origin + "/#" + hashOf(request), size);
    assert.ok((await readAll(reading.page, touch, size.viewport.height)).some(t => t.startsWith("vramfit's own engine-neutral model answers")),
              `${name}: the generic verdict says so`);
    await reading.context.close();
    const { context, page, errors } = await open(browser, site.origin + "/#" + hashOf(request), size);
    if (touch) await tapWidget(page, "Weights"); else await clickWidget(page, "Weights");
    await frames(page, 2);
    await focusTextBox(page, "##filter", { tap: touch });  // the list's search box, typed into
    await typeText(page, "Q4_K_M");
    await frames(page, 3);
    const item = await widget(page, "GGUF Q4_K_M");
    if (touch) await page.touchscreen.tap(item.cx, item.cy); else await page.mouse.click(item.cx, item.cy);
    const s = await waitForState(page, s => s.weights && s.weights.format === "gguf-q4_k_m", `${name}: Q4_K_M picked`);
    assert.equal(s.engine, "llama.cpp", `${name}: answered by llama.cpp`);
    assert.equal(s.context_tokens, 16384, `${name}: the context stays`);
    assert.deepEqual(errors, [], name);
    await context.close();
  }
  // vLLM picked by name: a GGUF format leaves it.
  const vllm = { v: 1, model: { preset: "qwen2.5-7b" }, gpu: { id: "h100-80" }, engine: "vllm" };
  const { context, page } = await open(browser, site.origin + "/#" + hashOf(vllm), SIZES.desktop);
  await clickWidget(page, "Weights");
  await frames(page, 2);
  await focusTextBox(page, "##filter");
  await typeText(page, "Q8_0");
  await frames(page, 3);
  const item = await widget(page, "GGUF Q8_0");
  await page.mouse.click(item.cx, item.cy);
  const s = await waitForState(page, s => s.weights && s.weights.format === "gguf-q8_0", "Q8_0 picked");
  assert.equal(s.engine, "vllm");
  await context.close();
});

test("Open file... opens the picker inside the click or tap itself (browsers allow a picker only there), once", async () => {
  for (const size of ["phone", "desktop"]) {
    const { context, page, errors } = await open(browser, site.origin + "/", SIZES[size]);
    await page.evaluate(() => {
      window.pickerOpenedIn = [];
      const click = HTMLInputElement.prototype.click;
      HTMLInputElement.prototype.click = function () {
        window.pickerOpenedIn.push(window.event ? window.event.type : "a frame");
        return click.call(this);
      };
    });
    const button = await widget(page, "Open file...");
    const press = () => size === "phone" ? page.touchscreen.tap(button.cx, button.cy) : page.mouse.click(button.cx, button.cy);
    const config = fs.readFileSync(path.join(root, "tests/fixtures/configs/falcon-7b.json"));
    await chooseFile(page, press, { name: "falcon-7b.json", mimeType: "application/json", buffer: config });
    await waitForState(page, s => s.model && s.model.name === "falcon-7b.json", "the picked config");
    await frames(page, 3);  // the app's own ask, a frame after the press, is the same press
    assert.deepEqual(await page.evaluate(() => window.pickerOpenedIn), ["pointerup"], size);
    assert.deepEqual(errors, [], size);
    await context.close();
  }
});

test("models in the app: a GPT-BigCode config's one KV head, a YaRN config's warning, an unknown model_type's notice, Mamba's fixed state, Llama 3.2 Vision's cross-attention, Qwen2-Audio's, Mistral 3's and Granite Vision's towers", async () => {
  const fixture = name => JSON.parse(fs.readFileSync(path.join(root, "tests/fixtures/configs", name), "utf8"));
  // SantaCoder's config (GPT-2 key names, multi_query): read by the page's own module.
  const santa = await open(browser, site.origin + "/#" + hashOf({ v: 1, model: { config: fixture("santacoder.json"), name: "santacoder" } }), SIZES.desktop);
  const read = (await state(santa.page)).model.config;
  assert.equal(read.num_key_value_heads, 1);
  assert.equal(read.position_embeddings, 2048);
  assert.ok((await texts(santa.page)).some(t => t.startsWith("santacoder")));
  assert.deepEqual(santa.errors, []);
  await santa.context.close();
  // Qwen2.5-7B-Instruct with YaRN x 4, at 65,536 tokens: past the trained 32,768, within the scaling.
  const yarn = await open(browser, site.origin + "/#" + hashOf({ v: 1, model: { config: fixture("qwen2.5-7b-instruct-yarn.json") }, context_tokens: 65536 }), SIZES.desktop);
  assert.ok((await texts(yarn.page)).some(t => t.includes("within what rope_scaling stretches RoPE to (131,072)")));
  await yarn.context.close();
  // MPT: nothing Llama-shaped is assumed; the notice names the keys that could not be placed.
  const mpt = await open(browser, site.origin + "/#" + hashOf({ v: 1, model: { config: { model_type: "mpt", d_model: 4096, n_layers: 32, n_heads: 32, vocab_size: 50432 } } }), SIZES.desktop);
  const notice = (await texts(mpt.page)).join(" ");
  assert.match(notice, /model_type 'mpt' is not one vramfit knows/);
  assert.match(notice, /n_heads, n_layers/);
  await mpt.context.close();
  // A config opened in the app (desktop): the texts it must show, no page errors, an optional screenshot.
  const showsConfig = async (model, context_tokens, patterns, screenshot) => {
    const opened = await open(browser, site.origin + "/#" + hashOf({ v: 1, model, context_tokens }), SIZES.desktop);
    const text = (await texts(opened.page)).join(" ");
    for (const pattern of patterns) assert.match(text, pattern);
    if (screenshot) await shot(opened.page, screenshot);
    assert.deepEqual(opened.errors, []);
    await opened.context.close();
  };
  // Mamba: a fixed recurrent state instead of a KV cache, any context.
  await showsConfig({ config: fixture("mamba-130m-hf.json"), name: "mamba-130m" }, 65536,
                    [/Recurrent state/, /Longest context: any \(a fixed state\)/]);
  // Llama 3.2 Vision from its config (its floats read by the page's strtod, the browser's Number()):
  // the towers in the count, 8 cross-attention layers holding one image's tiles.
  await showsConfig({ config: fixture("llama-3.2-11b-vision-instruct.json") }, 8192,
                    [/10,670,220,835 parameters/,
                     /209,846,272 B \(cross-attention layers\)/]);  // 2 x 8 layers x 8 x 128 x 2 B x 6,404 tokens
  // Qwen2-Audio from its config: Whisper's encoder and the projector in the count, named as audio.
  await showsConfig({ config: fixture("qwen2-audio-7b-instruct.json") }, 8192,
                    [/8,397,094,912 parameters/, /642,215,936 parameters are the audio tower and projector/]);
  // Mistral Small 3.1 from its config: Pixtral's encoder and the patch-merging projector in the count.
  await showsConfig({ config: fixture("mistral-small-3.1-24b-instruct-2503.json") }, 8192,
                    [/24,011,361,280 parameters/, /438,958,080 parameters are the vision tower and projector/],
                    "models-mistral3-config.png");
  // Granite Vision 3.3 2B (LLaVA-NeXT with SigLIP): the pooling head and the four-layer projector in the count.
  await showsConfig({ config: fixture("granite-vision-3.3-2b.json") }, 8192,
                    [/2,975,396,928 parameters/, /441,863,232 parameters are the vision tower and projector/]);
  // A vision preset picked on the phone by touch: its tower is in the count the page shows.
  const phone = await open(browser, site.origin + "/", SIZES.phone);
  await tapWidget(phone.page, "Model");
  await frames(phone.page, 2);
  await focusTextBox(phone.page, "##filter", { tap: true });  // the list's search box, typed into
  await typeText(phone.page, "VL");
  await frames(phone.page, 3);
  const item = await widget(phone.page, "Qwen2.5-VL 7B Instruct");
  await phone.page.touchscreen.tap(item.cx, item.cy);
  const picked = await waitForState(phone.page, s => s.model && s.model.preset === "qwen2.5-vl-7b", "the vision preset");
  assert.equal(picked.model.preset, "qwen2.5-vl-7b");
  await frames(phone.page, 3);
  await shot(phone.page, "models-vision-phone.png");
  assert.deepEqual(phone.errors, []);
  await phone.context.close();
});
