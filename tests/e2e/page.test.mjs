// The page in headless Chromium: it loads and draws, the canvas is the window's size x DPR,
// the JS API matches the native CLI, the URL hash round-trips (and back/forward work), a
// malformed hash falls back to defaults, embed mode and the single file load, the page asks
// for no animation frames when idle, what it loads fits its budget, no request leaves the
// origin, no console errors.
//   node --test tests/e2e/     (after scripts/build_dist.sh and the native build)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { root, dist, serveDist, launch, open, decodePng, distinctColours, widget, clickWidget, focusTextBox, textFieldHasKeyboard, frames, settled, typeText, chooseFile } from "./support.mjs";

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser.close(); site.server.close(); });

const cli = (...args) => execFileSync(path.join(root, "build/native/vramfit"), args, { encoding: "utf8" });
const hashOf = request => "r=" + Buffer.from(JSON.stringify(request)).toString("base64url");
const currentHash = page => page.evaluate(() => Module.UTF8ToString(Module._vramfit_current_hash()));
const decodeHash = hash => JSON.parse(Buffer.from(hash.replace(/^#?r=/, ""), "base64url").toString());

function assertSameOrigin(urls, origin) {
  for (const url of urls) assert.ok(url.startsWith(origin + "/") || url.startsWith("data:"), `request left the origin: ${url}`);
}

test("what index.html loads before its first frame: its own four files, nothing else, within 400,000 B gzip", async () => {
  // Every file the page requests until it has settled, gzipped (-9) as a server would send it,
  // held to the first page's budget (400,000 B; bench/web_perf.mjs reports it with the timings).
  const { context, urls } = await open(browser, site.origin + "/");
  await context.close();
  const files = [...new Set(urls.filter(url => url.startsWith(site.origin + "/")).map(url => new URL(url).pathname.slice(1) || "index.html"))];
  assert.deepEqual([...files].sort(), ["index.html", "shell.js", "vramfit_app.js", "vramfit_app.wasm"]);
  let total = 0;
  for (const file of files) total += zlib.gzipSync(fs.readFileSync(path.join(dist, file)), { level: 9 }).length;
  console.log(`page transfer size: ${total} B gzip (${files.join(", ")})`);
  assert.ok(total <= 400000, `the first page is ${total} B gzip, over the 400,000 B budget`);
});

test("the page loads, draws, and sizes its canvas to the window x devicePixelRatio", async () => {
  for (const deviceScaleFactor of [1, 2]) {
    const { context, page, errors, urls } = await open(browser, site.origin + "/", { deviceScaleFactor });
    assert.equal(await page.evaluate(() => window.vramfitFailed), undefined);
    // The backing store follows the window once the app has drawn.
    await page.waitForFunction(() => canvas.width === innerWidth * devicePixelRatio && canvas.height === innerHeight * devicePixelRatio);
    const size = await page.evaluate(() => ({ w: canvas.width, h: canvas.height, iw: innerWidth, ih: innerHeight, dpr: devicePixelRatio }));
    assert.equal(size.dpr, deviceScaleFactor);
    assert.equal(size.w, size.iw * size.dpr);
    assert.equal(size.h, size.ih * size.dpr);
    const shot = decodePng(await page.screenshot());
    assert.ok(distinctColours(shot) > 50, "the screenshot is nearly blank");
    if (deviceScaleFactor === 1) await saveShot(page, "page.png");
    assert.deepEqual(errors, []);
    assertSameOrigin(urls, site.origin);
    await context.close();
  }
});

// Screenshots for the README land in build/screenshots/ (docs/screenshots/ holds the copies).
async function saveShot(page, name) {
  const dir = path.join(root, "build/screenshots");
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, name) });
}

test("the page's JS API returns the native CLI's JSON for the golden requests", async () => {
  const { context, page, errors, urls } = await open(browser, site.origin + "/");
  // The API is the app's own module, wrapped: the core-only module is never loaded by the page.
  const dir = path.join(root, "tests/golden");
  const files = fs.readdirSync(dir).filter(f => f.endsWith(".json"));
  assert.ok(files.length >= 10);
  for (const file of files) {
    const text = fs.readFileSync(path.join(dir, file), "utf8");
    const request = JSON.parse(text);
    delete request._expect;
    delete request._about;
    const fromPage = await page.evaluate(async body => (await window.vramfitApi()).estimateJson(body), JSON.stringify(request));
    let native;
    try { native = cli("infer", "--request", path.join(dir, file), "--json"); } catch (e) { native = null; }
    // The page's module answers the engines it links; SGLang's and Ollama's requests and the
    // training frameworks' (answered by the CLI and the estimator module, api_estimate_all.cpp)
    // come back as an error naming a field.
    const pageLinks = !["sglang", "ollama"].includes(request.engine) &&
                      !["megatron", "deepspeed", "torchtune"].includes(request.training?.framework);
    if (native === null || !pageLinks) {
      assert.ok(JSON.parse(fromPage).error, file);
      assert.ok(JSON.parse(fromPage).error.field, file);
    } else {
      assert.deepEqual(JSON.parse(fromPage), JSON.parse(native), file);
    }
  }
  assert.ok(!urls.some(url => url.includes("vramfit_estimator")), "the page loaded the core-only module");
  assert.deepEqual(errors, []);
  assertSameOrigin(urls, site.origin);
  await context.close();
});

test("the URL hash is the state: links reproduce it, back/forward work, bad hashes fall back", async () => {
  const request = { v: 1, model: { preset: "qwen2.5-7b" }, context_tokens: 32768, concurrent_sequences: 4 };
  const { context, page, errors, urls } = await open(browser, site.origin + "/#" + hashOf(request));
  // The app's current request, decoded in the page.
  await page.evaluate(() => {
    window.appState = () => {
      const hash = Module.UTF8ToString(Module._vramfit_current_hash());
      return hash ? JSON.parse(atob(hash.slice(2).replace(/-/g, "+").replace(/_/g, "/"))) : null;
    };
  });
  let state = decodeHash(await currentHash(page));
  assert.equal(state.model.preset, "qwen2.5-7b");
  assert.equal(state.context_tokens, 32768);
  assert.equal(state.concurrent_sequences, 4);
  assert.equal(decodeHash(await page.evaluate(() => location.hash)).model.preset, "qwen2.5-7b");
  // A second configuration, then back.
  const training = { v: 1, mode: "training", model: { preset: "llama-3.1-8b" }, training: { method: "qlora" } };
  await page.evaluate(hash => { location.hash = hash; }, hashOf(training));
  await page.waitForFunction(() => appState()?.mode === "training");
  state = decodeHash(await currentHash(page));
  assert.equal(state.training.method, "qlora");
  await page.goBack();
  await page.waitForFunction(() => appState()?.model?.preset === "qwen2.5-7b");
  assert.equal(decodeHash(await currentHash(page)).context_tokens, 32768);
  assert.deepEqual(errors, []);
  assertSameOrigin(urls, site.origin);
  await context.close();

  // A malformed hash: a notice, and the defaults.
  const bad = await open(browser, site.origin + "/#r=%%%not-base64");
  const defaults = decodeHash(await currentHash(bad.page));
  assert.equal(defaults.model, undefined);  // nothing differs from the default request
  assert.ok(distinctColours(decodePng(await bad.page.screenshot())) > 50);
  assert.deepEqual(bad.errors, []);
  await bad.context.close();
});

test("the single file reads a model file from disk (file://), through its own module", async () => {
  const single = await open(browser, "file://" + path.join(dist, "vramfit.html"));
  const config = fs.readFileSync(path.join(root, "tests/fixtures/configs/falcon-7b.json"));
  const button = await widget(single.page, "Open file...");
  await chooseFile(single.page, () => single.page.mouse.click(button.cx, button.cy), { name: "falcon-7b.json", mimeType: "application/json", buffer: config });
  const state = await waitForState(single.page, s => s.model && s.model.name === "falcon-7b.json");
  assert.equal(state.model.config.num_hidden_layers, 32);
  const api = await single.page.evaluate(async () => (await window.vramfitApi()).estimate({ model: { preset: "qwen3-8b" } }).fit.fits);
  assert.equal(typeof api, "boolean");
  assert.deepEqual(single.errors, []);
  await single.context.close();
});

test("embed mode loads; the single-file page works from disk, in Arabic with its own catalog", async () => {
  const embed = await open(browser, site.origin + "/embed.html#" + hashOf({ v: 1, model: { preset: "phi-4" } }));
  assert.equal(await embed.page.evaluate(() => window.VRAMFIT_EMBED), true);
  assert.equal(decodeHash(await currentHash(embed.page)).model.preset, "phi-4");
  assert.ok(distinctColours(decodePng(await embed.page.screenshot())) > 50);
  assert.deepEqual(embed.errors, []);
  assertSameOrigin(embed.urls, site.origin);
  await embed.context.close();

  // In Arabic too: the single file carries its catalog (nothing is fetched from disk).
  const single = await open(browser, "file://" + path.join(dist, "vramfit.html") + "#" + hashOf({ v: 1, language: "ar" }));
  assert.equal(await single.page.evaluate(() => window.vramfitFailed), undefined);
  assert.ok(distinctColours(decodePng(await single.page.screenshot())) > 50);
  await single.page.waitForFunction(() => window.vramfitLayout().some(i => i.label === "Inference" && i.shown === "الاستدلال"));
  assert.deepEqual(single.errors, []);
  for (const url of single.urls) assert.ok(url.startsWith("file://") || url.startsWith("data:"), url);
  assert.equal(single.urls.filter(url => url.includes("messages/")).length, 0);
  await single.context.close();
});

test("without WebGL 2 the page says so instead of starting", async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.addInitScript(() => { delete window.WebGL2RenderingContext; });
  await page.goto(site.origin + "/");
  await page.waitForFunction(() => window.vramfitFailed, null, { timeout: 30000 });
  assert.equal(await page.evaluate(() => window.vramfitFailed), "webgl2");
  assert.match(await page.evaluate(() => document.getElementById("status").textContent), /needs WebGL 2/);
  await context.close();
});

test("an idle page stops asking for frames; input wakes it", async () => {
  const { context, page, errors } = await open(browser, site.origin + "/");
  await page.waitForTimeout(500);
  const settled = await page.evaluate(() => window.__frames);
  await page.waitForTimeout(1500);
  assert.equal(await page.evaluate(() => window.__frames), settled, "frames were requested while idle");
  await page.mouse.move(200, 200);
  await page.mouse.move(220, 210);
  await page.waitForFunction(n => window.__frames > n, settled, { timeout: 5000 });  // input woke the page
  assert.deepEqual(errors, []);
  await context.close();
});

test("a dropped config.json sets the model; only the page reads it", async () => {
  const { context, page, errors, urls } = await open(browser, site.origin + "/");
  const config = fs.readFileSync(path.join(root, "tests/fixtures/configs", fs.readdirSync(path.join(root, "tests/fixtures/configs"))[0]), "utf8");
  await page.evaluate(text => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([text], "config.json", { type: "application/json" }));
    canvas.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, config);
  await page.waitForFunction(() => {
    const hash = Module.UTF8ToString(Module._vramfit_current_hash());
    return hash && JSON.parse(atob(hash.slice(2).replace(/-/g, "+").replace(/_/g, "/"))).model?.config !== undefined;
  });
  const state = decodeHash(await currentHash(page));
  assert.equal(state.model.name, "config.json");
  assert.ok(state.model.config.num_hidden_layers > 0);
  assert.deepEqual(errors, []);
  assertSameOrigin(urls, site.origin);
  await context.close();
});

test("Open file... takes a config.json through the browser's file picker", async () => {
  const { context, page, errors, urls } = await open(browser, site.origin + "/");
  const config = fs.readFileSync(path.join(root, "tests/fixtures/configs/falcon-7b.json"));
  const button = await widget(page, "Open file...");
  await chooseFile(page, () => page.mouse.click(button.cx, button.cy), { name: "falcon-7b.json", mimeType: "application/json", buffer: config });
  await page.waitForFunction(() => {
    const hash = Module.UTF8ToString(Module._vramfit_current_hash());
    return hash && JSON.parse(atob(hash.slice(2).replace(/-/g, "+").replace(/_/g, "/"))).model?.name === "falcon-7b.json";
  });
  assert.equal(decodeHash(await currentHash(page)).model.config.num_hidden_layers, 32);
  assert.deepEqual(errors, []);
  assertSameOrigin(urls, site.origin);
  await context.close();
});


// The app's request once `check` holds for it (input reaches the app a frame or two later).
async function waitForState(page, check) {
  for (let i = 0; i < 50; i++) {
    const state = decodeHash(await currentHash(page));
    if (check(state)) return state;
    await page.waitForTimeout(100);
  }
  return decodeHash(await currentHash(page));
}

test("typed numbers reach the request through Dear ImGui's text fields", async () => {
  const { context, page, errors } = await open(browser, site.origin + "/");
  // A custom GPU: chosen from the GPU list, then its memory typed ("48.5": a fraction of a GiB).
  await clickWidget(page, "GPU");
  await textFieldHasKeyboard(page);  // the list opens with its search field active
  await typeText(page, "custom");  // the list's search; Enter takes the only match
  await settled(page);
  await page.keyboard.press("Enter");
  await settled(page);
  // Choosing Custom GPU starts it at the current card's memory; its field shows then.
  await waitForState(page, s => s.gpu && s.gpu.capacity_bytes > 0);
  await settled(page);
  await focusTextBox(page, "##Memory (GiB)");
  await page.keyboard.press("Control+A");
  await typeText(page, "48.5");
  await page.keyboard.press("Enter");
  let state = await waitForState(page, s => s.gpu && s.gpu.capacity_bytes === 48.5 * 2 ** 30);
  assert.equal(state.gpu.capacity_bytes, 48.5 * 2 ** 30);
  // The Context field takes a click and typing.
  await focusTextBox(page, "##Context");
  await page.keyboard.press("Control+A");
  await typeText(page, "32768");
  await page.keyboard.press("Enter");
  state = await waitForState(page, s => s.context_tokens === 32768);
  assert.equal(state.context_tokens, 32768);
  assert.deepEqual(errors, []);
  await context.close();
});

test("Which GPUs fit: a click on a row chooses that GPU; the filter box narrows the list", async () => {
  const { context, page, errors } = await open(browser, site.origin + "/");
  await clickWidget(page, "Which GPUs fit");
  await clickWidget(page, "GeForce RTX 3090");
  let state = await waitForState(page, s => s.gpu && s.gpu.id);
  assert.equal(state.gpu.id, "rtx-3090");
  // The filter box narrows the list to what matches.
  await focusTextBox(page, "##gpu_filter");
  await typeText(page, "H100");
  await page.waitForFunction(() => !window.vramfitLayout().some(w => w.label === "GeForce RTX 3090"));
  const labels = (await page.evaluate(() => window.vramfitLayout())).map(w => w.label);
  assert.ok(labels.some(label => /H100/.test(label)), JSON.stringify(labels));
  assert.deepEqual(errors, []);
  await context.close();
});

test("screen readers get the result in words (an aria-live region the app keeps current)", async () => {
  const { context, page, errors } = await open(browser, site.origin + "/");
  assert.equal(await page.evaluate(() => document.getElementById("live").getAttribute("aria-live")), "polite");
  const text = await page.evaluate(() => document.getElementById("live").textContent);
  assert.match(text, /^Llama 3\.1 8B on GeForce RTX 4090: fits \(19\.50 GB of 25\.76 GB\)\. Weights: 16\.06 GB\. KV cache: 1\.07 GB\./);
  // Another configuration: the words follow.
  await page.evaluate(hash => { location.hash = hash; }, hashOf({ v: 1, model: { preset: "llama-3.1-70b" } }));
  await page.waitForFunction(() => document.getElementById("live").textContent.includes("does not fit"));
  assert.deepEqual(errors, []);
  await context.close();
});
