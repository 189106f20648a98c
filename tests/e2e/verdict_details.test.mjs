// The minor items of issue 33, each where it was seen, with real input events: numbers kept
// whole on a line, a link with unknown names, notices in the flow, labels that wrap instead of
// being cut, one Escape for a list, a list's search box that stays, the keyboard told how to
// enter a table, the fit map's axis title clear of its ticks, the Embed popup under its button,
// "Which GPUs fit" sortable by headroom on a tablet and a phone, a drag that lands on round
// counts, Arabic names shaped in the English interface, and wide screens used.
//   node --test tests/e2e/     (after scripts/build_dist.sh)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { root, serveDist, launch, open, decodePng, widget, clickWidget, tapWidget, focusTextBox, typeText, frames, settled, layout,
         layoutProblems, SIZES, hashOf, waitForState, texts, shot, swipe, bringIntoView, pick, readAll } from "./support.mjs";

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser.close(); site.server.close(); });

// Lines as drawn: every visible text item in reading order (top to bottom, then left to right).
const shownLines = items => items.filter(i => i.kind === "text" && i.visible && i.label.trim() !== "")
  .sort((a, b) => a.y - b.y || a.x - b.x);

// Problems with numbers and wrapping on this screen: a text item taller than one line (Dear
// ImGui's own wrapping, which breaks after "," and "."), or a line that ends inside a number
// ("25." then "77 GB" on the next line under it).
function brokenNumbers(items) {
  const lines = shownLines(items);
  const heights = lines.filter(l => !l.label.includes("\n")).map(l => l.h).sort((a, b) => a - b);
  const oneLine = heights[Math.floor(heights.length / 2)];
  const problems = [];
  for (const l of lines) {
    if (!l.label.includes("\n") && l.h > oneLine * 1.8) problems.push(`wrapped by Dear ImGui (${Math.round(l.h)} px): "${l.label}"`);
  }
  for (let i = 0; i + 1 < lines.length; i++) {
    const a = lines[i];
    const next = lines.find(l => l.y >= a.y + a.h - 2 && Math.abs(l.x - a.x) < 4);
    if (next && /\d[.,]$/.test(a.label) && /^\d/.test(next.label)) problems.push(`a number cut: "${a.label}" | "${next.label}"`);
  }
  return problems;
}

test("numbers stay whole on a line: the verdict, the limits and training's counts at phone, tablet and embed widths", async () => {
  const requests = [
    { v: 1, model: { preset: "llama-3.1-70b" }, weights: { format: "gguf-q4_k_m" }, gpu: { id: "rtx-3090" }, context_tokens: 131072 },
    { v: 1, mode: "training", model: { preset: "llama-3.1-8b" }, gpu: { id: "rtx-4090" }, training: { method: "qlora" } },
    { v: 1, model: { preset: "llama-3.1-8b" }, gpu: { id: "rtx-4090" }, engine: "llama.cpp" },
  ];
  const sizes = [["phone", SIZES.phone, "/"], ["tablet", SIZES.tablet, "/"], ["embed 360", { viewport: { width: 360, height: 640 } }, "/embed.html"]];
  for (const [name, size, where] of sizes) {
    for (const request of requests) {
      const { context, page, errors } = await open(browser, site.origin + where + "#" + hashOf(request), size);
      await settled(page);
      const touch = !!size.hasTouch;
      for (let screen = 0; screen < 8; screen++) {
        const items = await layout(page);
        assert.deepEqual(brokenNumbers(items), [], `${name}, ${request.mode || request.engine || "inference"}, screen ${screen}`);
        const before = JSON.stringify(shownLines(items).map(l => [l.label, Math.round(l.y)]));
        if (touch) await swipe(page, 40, size.viewport.height * 0.7, 0, -size.viewport.height * 0.5);
        else {
          await page.mouse.move(size.viewport.width / 2, size.viewport.height / 2);
          await page.mouse.wheel(0, size.viewport.height * 0.5);
          await settled(page);
        }
        if (JSON.stringify(shownLines(await layout(page)).map(l => [l.label, Math.round(l.y)])) === before) break;  // the end
      }
      if (request.mode === "training" && name === "phone") await shot(page, "details-phone-training-numbers.png");
      assert.deepEqual(errors, [], name);
      await context.close();
    }
  }
});

test("a link naming an unknown model and an unknown GPU shows the defaults, and a notice in the flow that covers nothing", async () => {
  for (const name of ["desktop", "phone"]) {
    const size = SIZES[name];
    const request = { v: 1, model: { preset: "llama-9-900b" }, gpu: { id: "rtx-9090" }, context_tokens: 16384 };
    const { context, page, errors } = await open(browser, site.origin + "/#" + hashOf(request), size);
    await settled(page);
    const items = await layout(page);
    const all = shownLines(items).map(l => l.label).join(" ");
    assert.match(all, /model 'llama-9-900b': showing Llama 3\.1 8B instead/, `${name}: the model named`);
    assert.match(all, /GPU 'rtx-9090': showing GeForce RTX 4090 instead/, `${name}: the GPU named`);
    assert.doesNotMatch(all, /lists them/, `${name}: no CLI hint`);
    // The defaults (left out of the link the app writes), the rest of the link kept.
    const s = await waitForState(page, s => s.context_tokens === 16384, `${name}: the link's context kept`);
    assert.equal((s.gpu || {}).id ?? "rtx-4090", "rtx-4090", `${name}: the default GPU`);
    assert.equal((s.model || {}).preset ?? "llama-3.1-8b", "llama-3.1-8b", `${name}: the default model`);
    if (name === "desktop") assert.ok(items.some(i => i.kind === "text" && /^(FITS|DOES NOT FIT)/.test(i.label) && i.visible), "the verdict");
    // The notice's lines cover no other item: they are in the page's flow.
    const notice = items.filter(i => i.kind === "text" && i.visible && /does not list|showing|instead/.test(i.label));
    assert.ok(notice.length > 0, `${name}: the notice`);
    for (const line of notice) {
      for (const other of items.filter(i => i.visible && !notice.includes(i) && i.w > 0 && i.h > 0)) {
        const w = Math.min(line.x + line.w, other.x + other.w) - Math.max(line.x, other.x);
        const h = Math.min(line.y + line.h, other.y + other.h) - Math.max(line.y, other.y);
        assert.ok(!(w > 2 && h > 2), `${name}: the notice "${line.label}" covers "${other.label}"`);
      }
    }
    assert.deepEqual(layoutProblems(items, size.viewport), [], `${name}: layout`);
    await shot(page, `details-${name}-unknown-names.png`);
    // Dismissed, it is gone, and nothing else went with it.
    if (name === "phone") await tapWidget(page, "Dismiss"); else await clickWidget(page, "Dismiss");
    assert.ok(!(await texts(page)).some(t => /does not list/.test(t)), `${name}: dismissed`);
    assert.deepEqual(errors, [], name);
    await context.close();
  }
});

test("labels wrap instead of being cut at tablet and phone widths (the Overhead choices)", async () => {
  for (const name of ["tablet", "phone"]) {
    const size = SIZES[name];
    const { context, page, errors } = await open(browser, site.origin + "/", size);
    const radio = await bringIntoView(page, "Articles (margin only)", size, true);
    const [, , right] = radio.clip;
    assert.ok(radio.x + radio.w <= right + 1, `${name}: "Articles (margin only)" whole: ${Math.round(radio.x + radio.w)} <= ${Math.round(right)}`);
    assert.deepEqual(layoutProblems(await layout(page), size.viewport), [], `${name}: layout`);
    await tapWidget(page, "Articles (margin only)");
    await waitForState(page, s => s.overhead && s.overhead.model === "articles", `${name}: the choice taken`);
    await shot(page, `details-${name}-overhead.png`);
    assert.deepEqual(errors, [], name);
    await context.close();
  }
});

test("a list closes with one Escape, and its search box stays while the list scrolls", async () => {
  const size = SIZES.desktop;
  const { context, page, errors } = await open(browser, site.origin + "/", size);
  const searchShown = async () => (await layout(page)).some(i => i.label === "##filter" && i.visible);
  await clickWidget(page, "GPU");
  await frames(page, 2);
  assert.ok(await searchShown(), "the GPU list is open with its search box");
  const search = await widget(page, "##filter");
  // The wheel over the list, down: the entries move, the search box does not.
  const entries = async () => (await layout(page)).filter(i => i.kind === "widget" && i.visible && i.y > search.y + search.h && /RTX|H100|A100|Apple|Radeon|Tesla/.test(i.label));
  const first = (await entries())[0];
  await page.mouse.move(search.cx, search.y + search.h + 80);
  for (let notch = 0; notch < 3; notch++) await page.mouse.wheel(0, 200);
  await settled(page);
  const after = await widget(page, "##filter");
  assert.equal(Math.round(after.y), Math.round(search.y), "the search box stayed");
  assert.notEqual((await entries())[0].label, first.label, "the list scrolled under it");
  await shot(page, "details-desktop-gpu-list-scrolled.png");
  // One Escape, with the keyboard in the search box: the list is closed.
  await page.keyboard.press("Escape");
  await settled(page);
  assert.equal(await searchShown(), false, "one Escape closed the list");
  // Typed, then Escape: closed too; a pick by Enter still works.
  await clickWidget(page, "Model");
  await typeText(page, "qwen3-8b");
  await page.keyboard.press("Enter");
  await waitForState(page, s => s.model && s.model.preset === "qwen3-8b", "Enter picks the only match");
  assert.deepEqual(errors, []);
  await context.close();
});

test("the keyboard is told how to enter a table: Tab lands on it, Enter goes in, arrows move, Escape leaves", async () => {
  const size = SIZES.desktop;
  const { context, page, errors } = await open(browser, site.origin + "/", size);
  const hint = async () => (await texts(page)).find(t => /^(A table: Enter goes in|In the table:)/.test(t));
  let said;
  // Each Tab is read once the app has finished drawing after it (settled): one frame was not
  // always enough under load, and the hint, read a frame late, was missed as Tab moved on.
  for (let press = 0; press < 80 && !said; press++) {
    await page.keyboard.press("Tab");
    await settled(page);
    said = await hint();
  }
  assert.match(said || "", /^A table: Enter goes in/, "Tab reached the breakdown table, and it says so");
  await shot(page, "details-desktop-table-hint.png");
  await page.keyboard.press("Enter");
  await settled(page);
  assert.match(await hint() || "", /^In the table:/, "in the table");
  await page.keyboard.press("ArrowDown");
  await settled(page);
  const focused = (await layout(page)).find(i => i.focused);
  assert.ok(focused && focused.kind === "widget", `a row has the keyboard: ${focused && focused.label}`);
  await page.keyboard.press("Escape");
  await settled(page);
  assert.match(await hint() || "", /^A table: Enter goes in/, "Escape left the table");
  assert.deepEqual(errors, []);
  await context.close();
});

test("the fit map's 'seqs' title stands above its top tick, the Embed popup under its button", async () => {
  const size = SIZES.desktop;
  const { context, page, errors } = await open(browser, site.origin + "/", size);
  await clickWidget(page, "Fit map");
  await settled(page);
  const title = await widget(page, "seqs");
  const map = await widget(page, "fit map");
  // The 256 tick's label is centred on the map's top edge: half a line above it.
  assert.ok(title.y + title.h <= map.y - title.h / 2 + 1, `"seqs" (${Math.round(title.y + title.h)}) clear of the 256 label (${Math.round(map.y - title.h / 2)})`);
  await shot(page, "details-desktop-fit-map.png");
  // The capacity contour (the dark line) runs without notches: from one pixel row to the next
  // it moves a few pixels, never a jump where the count of sequences changes.
  const png = decodePng(await page.screenshot());
  const dark = (x, y) => {
    const i = (y * png.width + x) * 4;
    return png.pixels[i] < 45 && png.pixels[i + 1] < 45 && png.pixels[i + 2] < 50;
  };
  const lineAt = [];
  for (let y = Math.ceil(map.y) + 4; y < map.y + map.h - 4; y++) {
    let found = -1;
    for (let x = Math.ceil(map.x) + 2; x < map.x + map.w - 2 && found < 0; x++) if (dark(x, y)) found = x;
    lineAt.push(found);
  }
  const jumps = [];
  for (let i = 1; i < lineAt.length; i++) if (lineAt[i] >= 0 && lineAt[i - 1] >= 0) jumps.push(Math.abs(lineAt[i] - lineAt[i - 1]));
  assert.ok(jumps.length > map.h / 2, `the contour crosses the map (${jumps.length} rows)`);
  assert.ok(Math.max(...jumps) <= 8, `no notch: the largest step between pixel rows is ${Math.max(...jumps)} px`);
  for (const [name, tap] of [["desktop", false], ["phone", true]]) {
    const viewport = SIZES[name];
    const opened = name === "desktop" ? { page } : await open(browser, site.origin + "/", viewport);
    const button = tap ? await tapWidget(opened.page, "Embed") : await clickWidget(opened.page, "Embed");
    await settled(opened.page);
    const popup = (await layout(opened.page)).filter(i => i.visible && /^(Paste this into your documentation:|Copy snippet)$/.test(i.label));
    assert.equal(popup.length, 2, `${name}: the popup`);
    for (const item of popup) assert.ok(item.y >= button.y + button.h, `${name}: "${item.label}" under the button`);
    if (name === "phone") {
      await shot(opened.page, "details-phone-embed-popup.png");
      assert.deepEqual(opened.errors, []);
      await opened.context.close();
    }
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test("Which GPUs fit sorts by headroom on a tablet and a phone, by a tap on its header", async () => {
  for (const name of ["tablet", "phone"]) {
    const size = SIZES[name];
    const { context, page, errors } = await open(browser, site.origin + "/", size);
    await bringIntoView(page, "Which GPUs fit", size, true);
    await tapWidget(page, "Which GPUs fit");
    const header = await bringIntoView(page, "Headroom", size, true);
    assert.ok(header.kind === "widget", `${name}: a Headroom column`);
    await page.touchscreen.tap(header.cx, header.cy);
    await settled(page);
    const column = await widget(page, "Headroom");
    // The headroom figures of the rows shown, top to bottom: ascending.
    const figures = (await layout(page)).filter(i => i.kind === "text" && i.visible && i.y > column.y + column.h &&
                                                     i.x >= column.x - 2 && i.x < column.x + column.w && /^-?[\d.,]+ [GMk]?i?B$/.test(i.label))
      .sort((a, b) => a.y - b.y).map(i => {
        const [number, unit] = i.label.split(" ");
        const scale = { B: 1, kB: 1e3, MB: 1e6, GB: 1e9, KiB: 1024, MiB: 2 ** 20, GiB: 2 ** 30 }[unit];
        return parseFloat(number.replace(/,/g, "")) * scale;
      });
    assert.ok(figures.length >= 3, `${name}: headroom figures shown (${figures.length})`);
    for (let i = 1; i < figures.length; i++) assert.ok(figures[i - 1] <= figures[i], `${name}: ascending at ${i}: ${figures}`);
    assert.deepEqual(layoutProblems(await layout(page), size.viewport), [], `${name}: layout`);
    await shot(page, `details-${name}-gpus-by-headroom.png`);
    assert.deepEqual(errors, [], name);
    await context.close();
  }
});

test("a drag of the context's <> handle lands on a round count", async () => {
  const size = SIZES.desktop;
  const { context, page, errors } = await open(browser, site.origin + "/", size);
  const box = await widget(page, "##Context");
  const handle = (await layout(page)).filter(i => i.label === "<>" && i.visible).sort((a, b) => Math.abs(a.y - box.y) - Math.abs(b.y - box.y))[0];
  for (const dx of [97, 61, -173]) {
    await page.mouse.move(handle.x + handle.w / 2, handle.y + handle.h / 2);
    await page.mouse.down();
    for (let step = 1; step <= 10; step++) await page.mouse.move(handle.x + handle.w / 2 + (dx * step) / 10, handle.y + handle.h / 2);
    await page.mouse.up();
    await settled(page);
    const tokens = (await waitForState(page, () => true, "the state")).context_tokens ?? 8192;
    const quarter = 2 ** Math.floor(Math.log2(tokens)) / 4;
    assert.equal(tokens % quarter, 0, `a drag of ${dx} px: ${tokens} is a quarter step of its power of two`);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test("an Arabic model name in the English interface is shaped and right to left", async () => {
  const opened = await open(browser, site.origin + "/", { ...SIZES.desktop, permissions: ["clipboard-read", "clipboard-write"] });
  const { page, errors } = opened;
  await clickWidget(page, "Paste a config.json");
  await frames(page, 2);
  const config = JSON.parse(fs.readFileSync(path.join(root, "tests/fixtures/configs/falcon-7b.json"), "utf8"));
  await focusTextBox(page, "##config");
  await page.evaluate(text => navigator.clipboard.writeText(text), JSON.stringify({ ...config, _name_or_path: "org/نموذج عربي" }));
  await page.keyboard.press("Control+V");
  await frames(page, 3);
  await clickWidget(page, "Use this config");
  await waitForState(page, s => s.model && s.model.name === "نموذج عربي", "the Arabic name");
  await settled(page);
  const name = (await layout(page)).find(i => i.kind === "text" && i.label === "نموذج عربي" && i.visible);
  assert.ok(name, "the name is drawn");
  assert.ok(typeof name.drawn === "string", "drawn through the text transform");
  // Shaped: Arabic presentation forms (U+FE70..U+FEFF); right to left: the second word drawn first.
  assert.match(name.drawn, /[\uFE70-\uFEFF]/, `shaped: ${name.drawn}`);
  const forms = [...name.drawn];
  const space = forms.indexOf(" ");
  assert.ok(space > 0 && space < forms.length - 1, "two words");
  assert.ok(forms.length - space - 1 === [..."نموذج"].length, `the first word ("نموذج") drawn last, at the right: ${name.drawn}`);
  // The language switch, "العربية", drawn shaped too (the forms tests/test_text.cpp checks).
  const language = (await layout(page)).find(i => i.kind === "text" && i.label === "العربية###language") ||
                   (await layout(page)).find(i => i.label === "العربية###language");
  assert.ok(language, "the language switch");
  await shot(page, "details-desktop-arabic-name.png");
  assert.deepEqual(errors, []);
  await opened.context.close();
});

test("at 1920 and 2560 px the results use the width: the verdict beside the tables, an engine's lines beside its bars", async () => {
  for (const width of [1920, 2560]) {
    const size = { viewport: { width, height: width === 1920 ? 1080 : 1440 } };
    for (const engine of [undefined, "llama.cpp"]) {
      const request = { v: 1, model: { preset: "llama-3.1-8b" }, gpu: { id: "rtx-4090" },
                        ...(engine ? { engine, weights: { format: "gguf-q4_k_m" } } : {}) };
      const { context, page, errors } = await open(browser, site.origin + "/#" + hashOf(request), size);
      await settled(page);
      await shot(page, `details-${width}-${engine || "vramfit"}.png`);
      const items = (await layout(page)).filter(i => i.visible);
      const right = Math.max(...items.map(i => i.x + i.w));
      assert.ok(right >= width * 0.8, `${width}, ${engine || "vramfit"}: items reach ${Math.round(right)} of ${width} px`);
      if (engine) {
        const bar = items.find(i => i.kind === "text" && /^llama\.cpp: STARTS/.test(i.label));
        const fits = items.find(i => i.kind === "text" && i.label === "What fits");
        assert.ok(bar && fits && fits.x > bar.x + width * 0.3 && fits.y < size.viewport.height / 2, `${width}: "What fits" beside the verdict`);
      } else {
        const verdict = items.find(i => i.kind === "text" && /^(FITS|DOES NOT FIT)/.test(i.label));
        const tab = items.find(i => i.label === "Which GPUs fit");
        assert.ok(verdict && tab && tab.x > verdict.x + width * 0.3 && tab.y < verdict.y + 40, `${width}: the tabs beside the verdict`);
      }
      assert.deepEqual(layoutProblems(await layout(page), size.viewport), [], `${width}: layout`);
      assert.deepEqual(errors, [], `${width}`);
      await context.close();
    }
  }
});

test("phone: a swipe scrolls the page it began on to its end and stops, not on into the table that came under the finger", async () => {
  const size = SIZES.phone, height = size.viewport.height;
  const { context, page, errors } = await open(browser, site.origin + "/", size);
  // The breakdown's header low on the screen, the page with more to scroll.
  const find = async () => (await layout(page)).find(i => i.label === "Item" && i.kind === "widget" && i.visible);
  let header = await find();
  for (let i = 0; i < 20 && !(header && header.y > height * 0.62 && header.y < height * 0.76); i++) {
    const dy = header ? header.y - height * 0.69 : height * 0.3;  // not drawn yet: further down
    // (Begun above the table, on the page: a swipe begun on the table scrolls the table.)
    await swipe(page, 40, height * 0.35, 0, -Math.max(-height * 0.3, Math.min(height * 0.3, dy)));
    header = await find();
  }
  assert.ok(header, "the breakdown's header on the screen");
  const rowUnder = async () => {
    const items = await layout(page);
    const h = items.find(i => i.label === "Item" && i.kind === "widget");
    const first = items.filter(i => i.visible && i.label === "Weights" && i.y > h.y).sort((a, b) => a.y - b.y)[0];  // the row, not the legend
    return { header: h.y, offset: first ? first.y - h.y : null };
  };
  const before = await rowUnder();
  assert.ok(before.offset !== null, "the first row under the header");
  // Down just above the table (on the page), and a long swipe up: the table comes under the
  // finger while the page is still scrolling, and the page reaches its end before the finger stops.
  await swipe(page, 40, header.y - 12, 0, -height * 0.45, 16);
  const after = await rowUnder();
  assert.ok(after.header < before.header - 20, `the page scrolled (${Math.round(before.header)} -> ${Math.round(after.header)})`);
  assert.equal(after.offset, before.offset, "the table did not scroll: its first row is where it was under the header");
  await shot(page, "details-phone-swipe-end.png");
  assert.deepEqual(errors, []);
  await context.close();
});

test("a closed list too narrow for its text drops the parenthesised tail instead of running under the arrow (tablet, phone)", async () => {
  for (const name of ["tablet", "phone"]) {
    const size = SIZES[name];
    const request = { v: 1, model: { preset: "llama-3.1-70b" }, weights: { format: "gguf-q4_k_m" }, gpu: { id: "rtx-3060" } };
    const { context, page, errors } = await open(browser, site.origin + "/#" + hashOf(request), size);
    const combo = await bringIntoView(page, "GPU", size, true);
    await settled(page);
    // The strip just left of the arrow, inside the box: the box's own colour only, no glyph cut there.
    const png = decodePng(await page.screenshot());
    const scale = png.width / size.viewport.width;
    const px = (x, y) => {
      const i = (Math.round(y * scale) * png.width + Math.round(x * scale)) * 4;
      return png.pixels.readUInt32BE(i);
    };
    const arrow = combo.x + combo.w - combo.h;
    const background = px(arrow - 1, combo.y + 2);
    const marked = [];
    for (let x = arrow - 6; x < arrow - 1; x += 1 / scale) {
      for (let y = combo.y + 3; y < combo.y + combo.h - 3; y += 1 / scale) if (px(x, y) !== background) marked.push([x, y]);
    }
    await shot(page, `details-${name}-gpu-preview.png`);
    assert.deepEqual(marked.slice(0, 3), [], `${name}: no text under the edge of the arrow`);
    // And the verdict's "on GeForce RTX 3060 12 GB" goes under the model's name when the line has no room.
    assert.deepEqual(layoutProblems(await layout(page), size.viewport), [], `${name}: layout`);
    assert.deepEqual(errors, [], name);
    await context.close();
  }
});

test("one unit choice for the answers: GB or GiB throughout the results, llama.cpp's own printed lines in its MiB under their title", async () => {
  const size = SIZES.desktop;
  const request = { v: 1, model: { preset: "llama-3.1-70b" }, weights: { format: "gguf-q4_k_m" }, gpu: { id: "rtx-3090" },
                    gpu_count: 2, engine: "llama.cpp", "llama.cpp": { "ctx-size": 16384 } };
  const { context, page, errors } = await open(browser, site.origin + "/#" + hashOf(request), size);
  const results = async () => {
    const items = await layout(page);
    const printed = items.find(i => i.kind === "text" && /^What llama\.cpp will print/.test(i.label));
    const inputs = items.find(i => i.label === "Engine" && i.kind === "widget");
    // The answer's texts: right of the inputs, above the printed lines' title.
    return items.filter(i => i.kind === "text" && i.visible && i.x > inputs.x + inputs.w && (!printed || i.y < printed.y)).map(i => i.label);
  };
  let shown = await results();
  assert.ok(shown.some(t => / GB\b/.test(t)), "figures in GB");
  assert.deepEqual(shown.filter(t => /\d (GiB|MiB|KiB)\b/.test(t)), [], "no binary unit among them");
  await clickWidget(page, "GB");
  await waitForState(page, s => s.units === "GiB", "GiB");
  shown = await results();
  assert.ok(shown.some(t => / GiB\b/.test(t)), "figures in GiB");
  assert.deepEqual(shown.filter(t => /\d (GB|MB|kB)\b/.test(t)), [], "no decimal unit among them");
  assert.ok((await texts(page)).some(t => /buffer size = +[\d.]+ MiB$/.test(t)), "llama.cpp's own lines in MiB");
  assert.deepEqual(errors, []);
  await context.close();
});

test("picking llama.cpp for a BF16 checkpoint answers with its GGUF BF16 and says so, not 'choose a gguf-* format'", async () => {
  for (const name of ["desktop", "phone"]) {
    const size = SIZES[name], touch = name !== "desktop";
    const { context, page, errors } = await open(browser, site.origin + "/", size);
    await pick(page, size, touch, "Engine", "llama.cpp (Ollama, LM Studio)");
    const s = await waitForState(page, s => s.engine === "llama.cpp", `${name}: llama.cpp`);
    assert.equal(s.weights.format, "gguf-bf16", `${name}: the GGUF of the same precision`);
    const all = (await readAll(page, touch, size.viewport.height)).join(" ");
    assert.match(all, /llama\.cpp loads GGUF files: the weights are now GGUF BF16, in place of BF16\./, `${name}: said`);
    assert.match(all, /llama\.cpp: STARTS on 1 GPU/, `${name}: answered`);
    assert.doesNotMatch(all, /choose a gguf-\* format/, `${name}: no refusal`);
    assert.deepEqual(errors, [], name);
    await context.close();
  }
});

test("a link with an unknown GPU and a checkpoint format for llama.cpp says both what it put in place", async () => {
  const size = SIZES.desktop;
  const request = { v: 1, model: { preset: "llama-3.1-8b" }, weights: { format: "bf16" }, engine: "llama.cpp",
                    gpus: ["rtx-9090"], context_tokens: 8192 };
  const { context, page, errors } = await open(browser, site.origin + "/#" + hashOf(request), size);
  await settled(page);
  const all = (await readAll(page, false, size.viewport.height)).join(" ");
  assert.match(all, /rtx-9090/, "the unknown GPU named");
  assert.match(all, /llama\.cpp loads GGUF files: the weights are now GGUF BF16, in place of BF16\./, "the format replaced, said too");
  assert.deepEqual(errors, []);
  await context.close();
});
