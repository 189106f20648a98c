// The page's Hub field, used as a person uses it, against the local Hub-shaped server of
// tests/hub (loopback only, real fixture files): the endpoint and an id typed with the keyboard,
// Read tapped or clicked at a phone's, a tablet's and a laptop's size; a GGUF repository's
// files to pick; a gated model refused without a token and read with one (sent only to the
// endpoint), the token remembered on the device and forgotten; a failed reading keeps the
// model shown; Cancel; the link pins the id to its commit and reopens without the network.
//   node --test tests/e2e/     (after scripts/build_dist.sh)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { dist, serveDist, launch, open, widget, clickWidget, tapWidget, focusTextBox, typeText, settled, frames, layout,
         layoutProblems, SIZES, waitForState, texts, shot, swipe, hashOf } from "./support.mjs";
import { startHub } from "../hub/hub_server.mjs";
import { writeFixtureRepos } from "../hub/fixture_repos.mjs";

const TOKEN = "hf_pageFixtureToken0123456789";
let site, browser, hub, dir;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "vramfit-page-hub-"));
  writeFixtureRepos(path.join(dir, "repos"));
  hub = await startHub({ root: path.join(dir, "repos"), token: TOKEN });
  site = await serveDist();
  browser = await launch();
});
after(async () => {
  await browser.close();
  site.server.close();
  await hub.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// Every request the page made went to its own origin or, for a Hub reading, to the endpoint and
// the storage host it redirects to (the server's CDN name for itself); nothing else.
function assertOnlyPageAndHub(urls) {
  const hubPort = new URL(hub.url).port;
  for (const url of urls) {
    const u = new URL(url);
    const allowed = url.startsWith(site.origin + "/") || url.startsWith("data:") ||
                    ((u.hostname === "127.0.0.1" || u.hostname === "localhost") && (u.origin === new URL(hub.url).origin || u.port !== hubPort));
    assert.ok(allowed, `a request left the page and the Hub: ${url}`);
  }
}

// A finger swipes (phone) until the widget is in the upper part of the screen; a laptop sees it.
async function bringIntoView(page, label, size) {
  for (let i = 0; i < 12; i++) {
    const w = await widget(page, label, { visible: false });
    if (w.visible && w.cy < size.viewport.height * 0.6 && w.cy > 40) return;
    await swipe(page, 60, size.viewport.height * 0.7, 0, w.cy > size.viewport.height * 0.6 ? -size.viewport.height * 0.3 : size.viewport.height * 0.3);
  }
}

// Types into a text box of the app: tapped or clicked, its old text selected and replaced.
async function typeInto(page, label, text, touch) {
  await focusTextBox(page, label, { tap: touch });
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Backspace");
  await typeText(page, text);
}

const press = (page, label, touch) => (touch ? tapWidget(page, label) : clickWidget(page, label));

// Opens the Hub settings and names the local Hub as the endpoint.
async function useLocalHub(page, size, touch) {
  await bringIntoView(page, "Hub settings", size);
  await press(page, "Hub settings", touch);
  await typeInto(page, "Endpoint", hub.url, touch);
}

test("a GGUF repository by its id, typed and read at every size; its other GGUF file picked; the link pins the commit", async () => {
  for (const [name, size] of Object.entries(SIZES)) {
    const touch = name !== "desktop";
    const { context, page, errors, urls } = await open(browser, site.origin + "/", size);
    await useLocalHub(page, size, touch);
    await typeInto(page, "##hub_id", "org/Tiny-GGUF", touch);
    await press(page, "Read", touch);
    const s = await waitForState(page, s => s.model && s.model.hub, `${name}: the model read from the Hub`);
    assert.equal(s.model.hub, `org/Tiny-GGUF@${hub.sha("org/Tiny-GGUF")}:${path.basename(s.model.hub.split(":").pop())}`);
    assert.match(s.model.hub, /Q4_K_M\.gguf$/, `${name}: Q4_K_M, as llama.cpp's -hf picks it`);
    assert.equal(s.engine, "llama.cpp", `${name}: a GGUF is answered by llama.cpp`);
    assert.equal(s.weights.format, "as_stored");
    await settled(page);
    await frames(page, 3);
    assert.deepEqual(layoutProblems(await layout(page), size.viewport), [], `${name}: the Hub field's layout`);
    if (name !== "tablet") await shot(page, `hub-${name}.png`);
    // The repository's other GGUF file, from the list the reading left.
    await bringIntoView(page, "GGUF file", size);
    await press(page, "GGUF file", touch);
    const q8 = (await layout(page)).find(w => w.label.startsWith("Q8_0 (") && w.visible);
    assert.ok(q8, `${name}: the Q8_0 file is offered`);
    if (touch) await page.touchscreen.tap(q8.x + q8.w / 2, q8.y + q8.h / 2); else await page.mouse.click(q8.x + q8.w / 2, q8.y + q8.h / 2);
    const q = await waitForState(page, s => s.model && s.model.hub && s.model.hub.endsWith("Q8_0.gguf"), `${name}: Q8_0 read`);
    assert.ok(q.model.name.includes("Q8_0"), `${name}: the model's name says which file`);
    assertOnlyPageAndHub(urls);
    assert.deepEqual(errors, [], name);
    // The link reopens the same model without the network: the config is in it, pinned to its commit.
    const link = new URL(page.url()).hash;
    await context.close();
    const again = await open(browser, site.origin + "/" + link, size);
    const r = await waitForState(again.page, s => s.model && s.model.hub, `${name}: the link's model`);
    assert.equal(r.model.hub, q.model.hub);
    assert.ok(!again.urls.some(u => u.startsWith(hub.url)), `${name}: the link reads nothing from the Hub`);
    assert.equal((await widget(again.page, "##hub_id", { visible: false })).label, "##hub_id");
    await again.context.close();
  }
});

test("a gated model: refused without a token (the model shown stays), read with one sent only to the endpoint; remembered and forgotten", async () => {
  const size = SIZES.desktop;
  // The README's fourth question: two H100s at 32k, the model then named by its Hub id.
  const request = { v: 1, model: { preset: "qwen3-8b" }, gpu: { id: "h100-80" }, gpu_count: 2, context_tokens: 32768 };
  const { context, page, errors, urls } = await open(browser, site.origin + "/#" + hashOf(request), size);
  await useLocalHub(page, size, false);
  await typeInto(page, "##hub_id", "https://huggingface.co/meta-llama/Llama-3.1-70B-Instruct", false);
  await clickWidget(page, "Read");
  await page.waitForFunction(() => window.vramfitLayout().some(w => /gated/.test(w.label)), null, { timeout: 30000 });
  await settled(page);
  const shown = (await texts(page)).join(" ");
  assert.match(shown, /meta-llama\/Llama-3\.1-70B-Instruct/, "the message names the repository");
  const kept = await waitForState(page, s => s.model && s.model.preset === "qwen3-8b", "the model shown stays");
  assert.equal(kept.model.preset, "qwen3-8b");
  // The token, typed into its (masked) field, kept on this device at the user's word.
  await typeInto(page, "Token", TOKEN, false);
  await clickWidget(page, "Remember the token on this device");
  assert.equal(await page.evaluate(() => localStorage.getItem("vramfit.hf_token")), TOKEN);
  assert.ok(!(await texts(page)).some(t => t.includes(TOKEN)), "the token is never drawn");
  const from = hub.log.length;
  await clickWidget(page, "Read");
  const s = await waitForState(page, s => s.model && s.model.hub, "the gated model, with the token");
  assert.ok(s.model.hub.startsWith("meta-llama/Llama-3.1-70B-Instruct@" + hub.sha("meta-llama/Llama-3.1-70B-Instruct")));
  assert.equal(s.model.config.num_hidden_layers, 80);
  assert.equal(s.gpu_count, 2, "the GPUs and the context stay as they were");
  assert.equal(s.context_tokens, 32768);
  await settled(page);
  // The page's answer is the CLI's (README.md: the same lines from build/native/vramfit --hf).
  const answer = (await texts(page)).join("\n");
  assert.match(answer, /on 2 x H100 80 GB\nFITS +per GPU 84\.18 GB of 85\.52 GB\n/);
  assert.match(answer, /headroom 1\.34 GB per GPU/);
  assert.match(answer, /Longest context: 40,208 tokens +Most sequences: 1 +Fewest GPUs: 2/);
  await shot(page, "hub-gated-70b.png");
  const log = hub.log.slice(from);
  assert.ok(log.filter(e => e.cdn).every(e => e.authorization === ""), "the token never reaches the storage host");
  // (A CORS preflight, 204, carries no headers of the request it asks about.)
  assert.ok(log.filter(e => !e.cdn && e.status !== 204).every(e => e.authorization === `Bearer ${TOKEN}`), "the token reaches the endpoint");
  assert.ok(!page.url().includes(TOKEN) && !decodeURIComponent(page.url()).includes(TOKEN), "nor the link");
  assertOnlyPageAndHub(urls);
  assert.deepEqual(errors.filter(e => !/Failed to load resource/.test(e)), []);
  // A second visit on this device (the same browser profile) has the token; Forget takes it away.
  const page2 = await context.newPage();
  await page2.goto(site.origin + "/");
  await page2.waitForFunction(() => window.vramfitTiming, null, { timeout: 60000 });
  await settled(page2);
  await bringIntoView(page2, "Hub settings", size);
  await clickWidget(page2, "Hub settings");
  await clickWidget(page2, "Forget the token");
  assert.equal(await page2.evaluate(() => localStorage.getItem("vramfit.hf_token")), null);
  assert.ok(!(await page2.evaluate(() => window.vramfitLayout())).some(w => w.label === "Forget the token"), "nothing left to forget");
  await context.close();
});

test("phone: a reading that stalls is cancelled by a tap; a rate-limited one says so; the model shown stays", async () => {
  const size = SIZES.phone;
  const { context, page, errors } = await open(browser, site.origin + "/", size);
  await useLocalHub(page, size, true);
  const before = await waitForState(page, () => true, "the page's state");
  await typeInto(page, "##hub_id", "fault/slow", true);
  await tapWidget(page, "Read");
  await page.waitForFunction(() => window.vramfitLayout().some(w => w.label === "Cancel" && w.visible), null, { timeout: 20000 });
  await tapWidget(page, "Cancel");
  await page.waitForFunction(() => window.vramfitLayout().some(w => w.label === "Read" && w.visible), null, { timeout: 20000 });
  await settled(page);
  assert.ok((await texts(page)).some(t => t.includes("cancelled")), "the field says the reading was cancelled");
  await typeInto(page, "##hub_id", "fault/rate-limited", true);
  await tapWidget(page, "Read");
  await page.waitForFunction(() => window.vramfitLayout().some(w => /429|rate/i.test(w.label)), null, { timeout: 30000 });
  const after = await waitForState(page, () => true, "the page's state");
  assert.deepEqual(after, before, "a failed reading keeps the model shown");
  assert.deepEqual(errors.filter(e => !/Failed to load resource/.test(e)), []);
  await context.close();
});

test("embed: a documentation site's iframe reads a model by its Hub id; a preset picked after it drops the Hub model cleanly", async () => {
  const size = { viewport: { width: 760, height: 460 } };
  const request = { v: 1, model: { preset: "phi-4" }, gpu: { id: "rtx-4090" }, context_tokens: 16384 };
  const { context, page, errors, urls } = await open(browser, site.origin + "/embed.html#" + hashOf(request), size);
  await useLocalHub(page, size, false);
  await typeInto(page, "##hub_id", "org/Tiny-GGUF:Q8_0", false);
  await clickWidget(page, "Read");
  const s = await waitForState(page, s => s.model && s.model.hub, "the embed's model read from the Hub");
  assert.match(s.model.hub, /^org\/Tiny-GGUF@[0-9a-f]{40}:.*Q8_0\.gguf$/);
  assert.equal(s.engine, "llama.cpp", "a GGUF is answered by llama.cpp");
  assert.equal(s["llama.cpp"]["ctx-size"], 16384, "the embed's context carries into llama.cpp's -c");
  await settled(page);
  assert.deepEqual(layoutProblems(await layout(page), size.viewport), [], "the embed's layout with the Hub field");
  await shot(page, "hub-embed.png");
  // The model list of the compact row: a preset replaces the Hub model, its link valid.
  await clickWidget(page, "Model");
  await frames(page, 2);
  await focusTextBox(page, "##filter");  // the list's search box
  await typeText(page, "Qwen3 8B");
  await frames(page, 3);
  const item = await widget(page, "Qwen3 8B");
  await page.mouse.click(item.cx, item.cy);
  const p = await waitForState(page, s => s.model && s.model.preset === "qwen3-8b", "the preset picked in the embed");
  assert.equal(p.model.hub, undefined, "no Hub id beside a preset");
  assert.notEqual((p.weights || {}).format, "as_stored", "a preset has no stored layout");
  assertOnlyPageAndHub(urls);
  assert.deepEqual(errors.filter(e => !/Failed to load resource/.test(e)), []);
  await context.close();
});

test("the single file, opened from disk (file://), reads a GGUF by the Hub URL people copy, through its own module", async () => {
  const size = SIZES.desktop;
  const { context, page, errors, urls } = await open(browser, "file://" + path.join(dist, "vramfit.html"), size);
  await useLocalHub(page, size, false);
  await typeInto(page, "##hub_id", "https://huggingface.co/org/Tiny-GGUF/blob/main/Tiny-Q8_0.gguf", false);
  await clickWidget(page, "Read");
  const s = await waitForState(page, s => s.model && s.model.hub, "the single file's model read from the Hub");
  assert.equal(s.model.hub, `org/Tiny-GGUF@${hub.sha("org/Tiny-GGUF")}:Tiny-Q8_0.gguf`);
  assert.equal(s.engine, "llama.cpp");
  assert.equal(s.weights.format, "as_stored");
  // What it read is what the JavaScript API reads from the same Hub (the same core, the same readers).
  const api = await page.evaluate(async endpoint => {
    const vramfit = await window.vramfitApi();
    const read = await vramfit.readHubModel("org/Tiny-GGUF:Q8_0", { endpoint });
    return read.error ? read : { model: read.model, weights: read.weights };
  }, hub.url);
  assert.equal(api.error, undefined, JSON.stringify(api.error));
  assert.ok(s.model.config && s.model.config.num_hidden_layers > 0 && s.weights.stored, "the link holds the config and the stored tensors");
  assert.deepEqual(s.model.config, api.model.config, "the same config as the JavaScript API's");
  assert.deepEqual(s.weights.stored, api.weights.stored, "the same tensor bytes as the JavaScript API's");
  assert.ok(urls.every(u => u.startsWith("file://") || u.startsWith("data:") || u.startsWith(hub.url) ||
                            new URL(u).hostname === "localhost"), "nothing but the file and the Hub");
  assert.deepEqual(errors.filter(e => !/Failed to load resource/.test(e)), []);
  await context.close();
});
