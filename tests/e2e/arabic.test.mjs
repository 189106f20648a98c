// The app in Arabic (العربية), used as a person uses it: an Arabic browser's first visit, the
// language switch, touch on a phone and the mouse on a laptop; every text a person reads checked
// for words left in English; and a word as the app draws it (Unicode's presentation forms, one
// glyph at a time) compared with the same word drawn by the browser's own text engine.
//   node --test tests/e2e/     (after scripts/build_dist.sh)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { serveDist, launch, widget, clickWidget, tapWidget, settled, frames, layout, layoutProblems, SIZES,
         waitForState, shot, decodePng, swipe, chooseFile, texts } from "./support.mjs";

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser.close(); site.server.close(); });

// The switch's label on the English page: "العربية" as the app draws it (shaped, visual order)
// with its id (src/app/ui_language.hpp kArabicSwitchLabel).
const ARABIC_SWITCH = "العربية###language";  // drawn shaped: "\uFE94\uFEF4\uFE91\uFEAE\uFECC\uFEDF\uFE8D"
const ARABIC_LETTERS = /[\u0600-\u06FF]/;

// Opens a page and waits until it has drawn and settled.
async function openArabic(url, options) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", error => errors.push(String(error)));
  page.on("console", message => { if (message.type() === "error") errors.push(message.text()); });
  await page.addInitScript(() => {
    window.__frames = 0;
    const raf = window.requestAnimationFrame.bind(window);
    window.requestAnimationFrame = callback => { window.__frames++; return raf(callback); };
  });
  await page.goto(url);
  await page.waitForFunction(() => window.vramfitTiming && typeof Module !== "undefined" && Module._vramfit_current_hash, null,
                             { timeout: 60000 });
  await settled(page);
  return { context, page, errors };
}

// Texts and labels a person reads that are still English: two English words in a row, no Arabic
// letter. Names and notation stay as they are: model and GPU names, formulas ("= 2 x 32 layers
// ..."), flags, and the switch back to English.
function untranslated(items) {
  const names = /^(English|vramfit|Llama|Qwen|Mistral|Mixtral|Gemma|Phi|DeepSeek|GeForce|NVIDIA|RTX|H100|A100|Tesla|AMD|Apple)/;
  return [...new Set(items.filter(i => i.visible && typeof i.shown === "string")
    .map(i => i.shown.trim())
    .filter(t => /[A-Za-z]{2,} [A-Za-z]{2,}/.test(t) && !ARABIC_LETTERS.test(t) && !t.startsWith("=") && !names.test(t)))];
}

test("phone: an Arabic browser's first visit opens the app in Arabic; Training picked by touch; nothing left in English", async () => {
  const { context, page, errors } = await openArabic(site.origin + "/", { ...SIZES.phone, locale: "ar-EG" });
  await waitForState(page, s => s.language === "ar", "the link in Arabic");
  let items = await layout(page);
  const inference = items.find(i => i.label === "Inference" && i.kind === "widget");
  assert.equal(inference.shown, "الاستدلال", "the mode is drawn in Arabic");
  await tapWidget(page, "Training");
  await waitForState(page, s => s.mode === "training", "training, picked by touch");
  await frames(page, 3);
  items = await layout(page);
  assert.deepEqual(untranslated(items), [], "every text on the screen is in Arabic");
  assert.deepEqual(layoutProblems(items, SIZES.phone.viewport), [], "no text over another, none cut");
  await shot(page, "arabic-phone.png");
  assert.deepEqual(errors, []);
  await context.close();
});

test("desktop: the switch brings Arabic with the inputs on the right; the digits and English again by the mouse", async () => {
  const context = await browser.newContext({ viewport: SIZES.desktop.viewport });
  const page = await context.newPage();
  await page.addInitScript(() => {
    window.__frames = 0;
    const raf = window.requestAnimationFrame.bind(window);
    window.requestAnimationFrame = callback => { window.__frames++; return raf(callback); };
  });
  await page.goto(site.origin + "/");
  await page.waitForFunction(() => window.vramfitTiming, null, { timeout: 60000 });
  await settled(page);
  const english = await widget(page, "Inference");
  assert.ok(english.cx < SIZES.desktop.viewport.width / 2, "English: the inputs on the left");
  await page.evaluate(() => { window.vramfitMark = 1; });
  await clickWidget(page, ARABIC_SWITCH);  // drawn in Arabic in place: no reload, no other page
  await settled(page);
  assert.equal(await page.evaluate(() => window.vramfitMark), 1, "the page reloaded for Arabic");
  assert.equal(new URL(page.url()).pathname, "/");
  await waitForState(page, s => s.language === "ar", "Arabic in the link");
  const arabic = await widget(page, "Inference");
  assert.ok(arabic.cx > SIZES.desktop.viewport.width / 2, "Arabic: the inputs on the right");
  assert.equal(arabic.shown, "الاستدلال");
  // Rows read from the right: the modes, the tabs and the top bar's buttons, in their order.
  const rightToLeft = async labels => {
    const xs = [];
    for (const label of labels) xs.push((await widget(page, label)).cx);
    return xs.every((x, i) => i === 0 || x < xs[i - 1]);
  };
  assert.ok(await rightToLeft(["Inference", "Training", "Layer list"]), "Arabic: the modes from the right");
  assert.ok(await rightToLeft(["Breakdown", "Which GPUs fit", "Fit map"]), "Arabic: the tabs from the right");
  assert.ok(await rightToLeft(["Open file...", "Copy Markdown", "Copy JSON"]), "Arabic: the top bar from the right");
  // The breakdown reads from the right: its first column (Item) is its rightmost.
  const [item, memory] = [await widget(page, "Item"), await widget(page, "Memory")];
  assert.ok(item.cx > memory.cx, "Arabic: the Item column right of the Memory column");
  // Screen readers hear the result in Arabic, marked as Arabic (the page's aria-live region).
  const live = await page.evaluate(() => ({ text: document.getElementById("live").textContent, lang: document.getElementById("live").lang }));
  assert.equal(live.lang, "ar");
  assert.match(live.text, /: يتسع \(/);
  assert.match(live.text, /الأوزان: [0-9.]+ GB\./);
  let items = await layout(page);
  assert.deepEqual(untranslated(items), [], "every text on the screen is in Arabic");
  assert.deepEqual(layoutProblems(items, SIZES.desktop.viewport), []);
  await shot(page, "arabic-desktop.png");
  // The Fit map's legend and the GPU table, by the mouse.
  for (const tab of ["Fit map", "Which GPUs fit"]) {
    await clickWidget(page, tab);
    await frames(page, 3);
    items = await layout(page);
    assert.deepEqual(untranslated(items), [], `${tab}: every text in Arabic`);
  }
  await clickWidget(page, "Digits: 123###digits");
  await waitForState(page, s => s.language === "ar-u-nu-arab", "Arabic-Indic digits in the link");
  await clickWidget(page, "English###language");
  await waitForState(page, s => s.language === undefined, "English again (the link without a language)");
  await frames(page, 3);
  assert.ok((await widget(page, "Inference")).cx < SIZES.desktop.viewport.width / 2, "English: the inputs back on the left");
  assert.ok(await rightToLeft(["Layer list", "Training", "Inference"]), "English: the modes from the left");
  assert.ok(await rightToLeft(["Fit map", "Which GPUs fit", "Breakdown"]), "English: the tabs from the left");
  await context.close();
});

// Ink (alpha or brightness over the background) of an RGBA image, as rows of 0/1, cropped to its
// bounding box.
function ink(pixels, width, height, value) {
  const rows = [];
  let x0 = width, x1 = -1, y0 = height, y1 = -1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (value(pixels, (y * width + x) * 4) > 0.35) { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); }
    }
  }
  for (let y = y0; y <= y1; y++) {
    const row = [];
    for (let x = x0; x <= x1; x++) row.push(value(pixels, (y * width + x) * 4) > 0.35 ? 1 : 0);
    rows.push(row);
  }
  return { rows, width: x1 - x0 + 1, height: y1 - y0 + 1 };
}

// How alike two ink masks are: the correlation of their column profiles (ink per column), the
// second resampled to the first's width.
function likeness(a, b) {
  const profile = m => Array.from({ length: m.width }, (_, x) => m.rows.reduce((s, row) => s + row[x], 0));
  const p = profile(a), q0 = profile(b);
  const q = p.map((_, i) => q0[Math.min(q0.length - 1, Math.round((i * (q0.length - 1)) / Math.max(1, p.length - 1)))]);
  const mean = v => v.reduce((s, x) => s + x, 0) / v.length;
  const mp = mean(p), mq = mean(q);
  let num = 0, dp = 0, dq = 0;
  for (let i = 0; i < p.length; i++) { num += (p[i] - mp) * (q[i] - mq); dp += (p[i] - mp) ** 2; dq += (q[i] - mq) ** 2; }
  return num / Math.sqrt(dp * dq);
}

test("desktop: the Arabic catalog (messages/ar.json) is fetched only when Arabic is wanted; one that cannot be had leaves the page in English and says why", async () => {
  const { context, page, errors } = await openArabic(site.origin + "/", { viewport: SIZES.desktop.viewport });
  const asked = [];
  page.on("request", request => asked.push(new URL(request.url()).pathname));
  await frames(page, 3);
  assert.deepEqual(asked.filter(p => p.startsWith("/messages/")), [], "an English page asks for no catalog");
  await context.route("**/messages/ar.json", route => route.fulfill({ status: 404, body: "not found" }));
  await clickWidget(page, ARABIC_SWITCH);
  await waitForState(page, s => s.language === "ar", "Arabic asked for, in the link");
  await page.waitForFunction(() => window.vramfitLayout().some(i => /could not be loaded/.test(i.label)), null, { timeout: 20000 });
  assert.deepEqual(asked.filter(p => p.startsWith("/messages/")), ["/messages/ar.json"]);
  assert.ok((await texts(page)).includes("The Arabic interface could not be loaded (messages/ar.json: HTTP 404); it stays in English."),
            JSON.stringify(await texts(page)));
  const inference = await widget(page, "Inference");
  assert.ok(inference.cx < SIZES.desktop.viewport.width / 2, "still English: the inputs on the left");
  assert.ok(!ARABIC_LETTERS.test(inference.shown || inference.label), "the mode's name in English");
  assert.deepEqual(errors.filter(e => !/404/.test(e)), []);
  await context.close();
});

test("a shaped word drawn by the app matches the browser's own Arabic (Canvas 2D), and an unshaped one does not", async () => {
  const request = { v: 1, language: "ar" };
  const { context, page, errors } = await openArabic(site.origin + "/#r=" + Buffer.from(JSON.stringify(request)).toString("base64url"),
                                                     { viewport: SIZES.desktop.viewport, deviceScaleFactor: 2 });
  // The legend's "Weights" (الأوزان): a text item, drawn by the app from presentation forms.
  const word = (await layout(page)).find(i => i.kind === "text" && i.label === "Weights" && i.visible);
  assert.ok(word, "the legend's Weights");
  assert.equal(word.shown, "الأوزان");
  const png = decodePng(await page.screenshot({ clip: { x: word.x, y: word.y, width: word.w, height: word.h } }));
  const background = [png.pixels[0], png.pixels[1], png.pixels[2]];
  const app = ink(png.pixels, png.width, png.height,
                  (px, i) => (Math.abs(px[i] - background[0]) + Math.abs(px[i + 1] - background[1]) + Math.abs(px[i + 2] - background[2])) / 3 / 160);
  // The browser draws the same logical word with its shaping (HarfBuzz), in the font and size the
  // app asks it for (src/platform/web/browser_font.hpp: 16 px of ascent + descent, at the DPR).
  const drawn = await page.evaluate(({ text, dpr }) => {
    const family = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Noto Sans', 'DejaVu Sans', sans-serif";
    const canvas = document.createElement("canvas");
    const context = canvas.getContext("2d", { willReadFrequently: true });
    context.font = "100px " + family;
    const probe = context.measureText("Mg");
    const perEm = (probe.fontBoundingBoxAscent + probe.fontBoundingBoxDescent) / 100;
    const font = (16 * dpr) / perEm + "px " + family;
    canvas.width = 400; canvas.height = 80;
    const draw = pieces => {
      context.clearRect(0, 0, canvas.width, canvas.height);
      context.font = font;
      context.fillStyle = "#fff";
      let x = 380;
      // Right to left: each piece ends where the one before it began.
      for (const piece of pieces) { context.direction = "rtl"; context.textAlign = "right"; context.fillText(piece, x, 50); x -= context.measureText(piece).width; }
      return Array.from(context.getImageData(0, 0, canvas.width, canvas.height).data);
    };
    return { shaped: draw([text]), unshaped: draw([...text]), width: canvas.width, height: canvas.height };
  }, { text: "الأوزان", dpr: 2 });
  const alpha = (px, i) => px[i + 3] / 255;
  const shaped = ink(drawn.shaped, drawn.width, drawn.height, alpha);
  const unshaped = ink(drawn.unshaped, drawn.width, drawn.height, alpha);
  const same = likeness(app, shaped), naive = likeness(app, unshaped);
  console.log(`"الأوزان": app ${app.width}x${app.height} px, browser ${shaped.width}x${shaped.height} px; ` +
              `likeness to the browser's shaping ${same.toFixed(3)}, to letters drawn one by one ${naive.toFixed(3)}`);
  assert.ok(Math.abs(app.width - shaped.width) <= 3, `the same width (app ${app.width} px, browser ${shaped.width} px)`);
  assert.ok(same >= 0.9, `the app's word is the browser's (likeness ${same.toFixed(3)})`);
  assert.ok(same > naive + 0.1, `closer to the shaped word than to letters drawn apart (${same.toFixed(3)} vs ${naive.toFixed(3)})`);
  assert.deepEqual(errors, []);
  await context.close();
});

test("tablet: llama.cpp with a draft model in Arabic: the verdict, the facts and the limits read in Arabic; the printed lines stay llama.cpp's", async () => {
  const request = { v: 1, language: "ar", model: { preset: "llama-3.1-70b" }, weights: { format: "gguf-q4_k_m" }, engine: "llama.cpp",
                    "llama.cpp": { "ctx-size": 16384 }, gpus: ["rtx-3090", "rtx-3090"],
                    draft: { model: { preset: "llama-3.2-1b" }, weights: { format: "gguf-q8_0" } } };
  const { context, page, errors } = await openArabic(site.origin + "/#r=" + Buffer.from(JSON.stringify(request)).toString("base64url"),
                                                     SIZES.tablet);
  // On a tablet the results are under the inputs: a finger swipes down the page, collecting what
  // each screen shows.
  const seen = new Map();
  const collect = async () => { for (const i of await layout(page)) if (i.visible && i.shown !== undefined) seen.set(i.label, i); };
  await collect();
  for (let i = 0; i < 14; i++) {
    await swipe(page, 60, 900, 0, -500);
    await collect();
  }
  const shown = [...seen.values()].map(i => i.shown.replace(/\u200e/g, ""));  // (the marks that keep "-md" together)
  assert.ok(shown.some(t => t.startsWith("llama.cpp: يبدأ العمل") || t.startsWith("llama.cpp: لا يبدأ العمل")), "the verdict in Arabic");
  assert.ok(shown.some(t => t.startsWith("نموذج المسودة (-md): Llama 3.2 1B")), "the draft's fact in Arabic");
  assert.ok(shown.some(t => t.startsWith("أكبر -ngl يبدأ معه العمل:")), "the limits in Arabic");
  // What llama.cpp prints stays as llama.cpp prints it (a log to compare with).
  assert.ok(shown.some(t => /^llama_kv_cache: +CUDA0 KV buffer size = /.test(t)), "llama.cpp's own lines");
  const printed = /^(load_tensors|llama_kv_cache|llama_context|llama_adapter_lora_init_impl|graph_reserve|clip_ctx):/;
  assert.deepEqual(untranslated([...seen.values()].filter(i => !printed.test(i.shown))), [], "every other text in Arabic");
  await shot(page, "arabic-tablet-llamacpp.png");
  assert.deepEqual(errors, []);
  await context.close();
});

test("desktop in Arabic with Arabic-Indic digits: typed numbers (the keyboard), a pasted one (the clipboard), the wheel", async () => {
  const request = { v: 1, language: "ar-u-nu-arab" };
  const { context, page, errors } = await openArabic(site.origin + "/#r=" + Buffer.from(JSON.stringify(request)).toString("base64url"),
                                                     { viewport: SIZES.desktop.viewport, permissions: ["clipboard-read", "clipboard-write"] });
  // Typed as a person types them, Western digits in the field (drawn as typed), whatever the labels use.
  await clickWidget(page, "##Context");
  await page.waitForFunction(() => window.vramfitLayout().some(i => i.label === "##Context" && i.active), null, { timeout: 10000 });
  await page.keyboard.type("32k", { delay: 40 });
  await page.keyboard.press("Enter");
  await waitForState(page, s => s.context_tokens === 32768, "context 32k typed in Arabic");
  await page.evaluate(() => navigator.clipboard.writeText("4"));
  await clickWidget(page, "##Sequences");
  await page.waitForFunction(() => window.vramfitLayout().some(i => i.label === "##Sequences" && i.active), null, { timeout: 10000 });
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Control+V");
  await page.keyboard.press("Enter");
  await waitForState(page, s => s.concurrent_sequences === 4, "4 sequences pasted in Arabic");
  // The wheel scrolls the GPU table the browser's way, about three lines a notch.
  await clickWidget(page, "Which GPUs fit");
  const first = await widget(page, "GeForce RTX 4090");
  await page.mouse.move(first.cx, first.cy + 100);
  await page.mouse.wheel(0, 100);
  await frames(page, 3);
  const moved = first.y - (await widget(page, "GeForce RTX 4090", { visible: false })).y;
  assert.ok(moved > 30 && moved < 70, `one notch down moved the list up by ${moved} px`);
  await shot(page, "arabic-desktop-digits.png");
  assert.deepEqual(errors, []);
  await context.close();
});

test("desktop in Arabic: a file that is no model, numbers typed with Arabic digits and mistyped, and Copy Markdown, all read in Arabic", async () => {
  const request = { v: 1, language: "ar", model: { preset: "llama-3.1-8b" }, gpu: { id: "rtx-4090" } };
  const { context, page, errors } = await openArabic(site.origin + "/#r=" + Buffer.from(JSON.stringify(request)).toString("base64url"),
                                                     { viewport: SIZES.desktop.viewport });
  const shownTexts = async () => (await layout(page)).filter(i => i.visible && typeof i.shown === "string").map(i => i.shown);
  // Files that are not models: the reader's error, in Arabic, with the file's name as it is.
  const button = await widget(page, "Open file...");
  for (const [name, body, words] of [["weights.bin", "hello", "ليس ملف"], ["model.gguf", "GGUX and more than four bytes", "ليس ملف GGUF"]]) {
    await chooseFile(page, () => page.mouse.click(button.cx, button.cy), { name, mimeType: "application/octet-stream", buffer: Buffer.from(body) });
    await page.waitForFunction(w => window.vramfitLayout().some(i => typeof i.shown === "string" && i.shown.includes(w)), words, { timeout: 20000 });
    const notice = (await shownTexts()).find(t => t.includes(words));
    assert.ok(notice.includes(name), `the notice names ${name}: ${notice}`);
    assert.ok(!/[A-Za-z]{3,} [A-Za-z]{3,}/.test(notice.replace(/\(?"[^"]*"\)?/g, "")), `no English sentence left: ${notice}`);
  }
  // A number typed with an Arabic keyboard's digits (٣٢k) is read as 32k.
  await clickWidget(page, "##Context");
  await page.waitForFunction(() => window.vramfitLayout().some(i => i.label === "##Context" && i.active), null, { timeout: 10000 });
  await page.keyboard.press("Control+A");
  await page.keyboard.type("\u0663\u0662k", { delay: 40 });
  await page.keyboard.press("Enter");
  await waitForState(page, s => s.context_tokens === 32768, "٣٢k typed: 32,768 tokens");
  // A number the keyboard got wrong: why it was not taken, in Arabic.
  await clickWidget(page, "##Context");
  await page.waitForFunction(() => window.vramfitLayout().some(i => i.label === "##Context" && i.active), null, { timeout: 10000 });
  await page.keyboard.press("Control+A");
  await page.keyboard.type("abc", { delay: 40 });
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => window.vramfitLayout().some(i => typeof i.shown === "string" && i.shown.includes("ليس عددا")), null,
                             { timeout: 10000 });
  const typed = (await shownTexts()).find(t => t.includes("ليس عددا"));
  assert.match(typed, /^"abc": ليس عددا؛ بقيت القيمة [0-9,]+\.$/);
  await page.mouse.move(5, SIZES.desktop.viewport.height / 2);  // (the field's tooltip away, for the screenshot)
  await frames(page, 3);
  assert.deepEqual(untranslated(await layout(page)), [], "every text on the screen is in Arabic");
  await shot(page, "arabic-desktop-errors.png");
  // Copy Markdown: the report's words in Arabic; names, figures and formulas as they are.
  await page.evaluate(() => { window.copied = []; window.vramfitCopied = text => window.copied.push(text); });
  await clickWidget(page, "Copy Markdown");
  const markdown = await page.evaluate(() => window.copied[window.copied.length - 1]);
  assert.match(markdown, /^\*\*Llama 3\.1 8B على GeForce RTX 4090: يتسع \([0-9.]+ GB من [0-9.]+ GB\)\*\*$/m);
  assert.match(markdown, /^\| البند \| الذاكرة \| الصيغة \|$/m);
  assert.match(markdown, /^\| الأوزان \| [0-9.]+ GB \| .*= [0-9,]+ B \|$/m);
  assert.match(markdown, /^\| \*\*المجموع\*\* \| \*\*[0-9.]+ GB\*\* \| [0-9,]+ B \|$/m);
  assert.doesNotMatch(markdown, /\| item \||\*\*total\*\*| fits /);
  assert.deepEqual(errors, []);
  await context.close();
});
