// Helpers of the browser tests: a static server for dist/ that logs every request, Debian's
// Chromium through playwright-core (WebGL 2 via SwiftShader), and a PNG decoder to look at
// screenshots without extra packages.
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
export const dist = path.join(root, "dist");

const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

export async function serveDist() { return serveFolder(dist); }

// A static server for `folder` on a free loopback port that logs every request.
export async function serveFolder(folder) {
  const requests = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url);
    const file = path.join(folder, decodeURIComponent(req.url.split("?")[0].split("#")[0]).replace(/^\/$/, "/index.html"));
    if (!file.startsWith(folder) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404);
      res.end("not found");
      return;
    }
    res.writeHead(200, { "Content-Type": types[path.extname(file)] || "application/octet-stream" });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise(resolve => server.listen(0, "127.0.0.1", resolve));
  return { server, requests, origin: `http://127.0.0.1:${server.address().port}` };
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--disable-background-networking",
           "--disable-component-update", "--no-first-run"],
  });
}

// Opens a page, collecting console errors, page errors and every request URL.
export async function open(browser, url, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  const page = await context.newPage();
  const errors = [], urls = [];
  page.on("console", message => { if (message.type() === "error") errors.push(message.text()); });
  page.on("pageerror", error => errors.push(String(error)));
  page.on("request", request => urls.push(request.url()));
  // Count animation frames the page asks for (the app must stop asking when idle).
  await page.addInitScript(() => {
    window.__frames = 0;
    const raf = window.requestAnimationFrame.bind(window);
    window.requestAnimationFrame = callback => { window.__frames++; return raf(callback); };
  });
  await page.goto(url);
  await page.waitForFunction(() => window.vramfitTiming || window.vramfitFailed, null, { timeout: 60000 });
  if (!(await page.evaluate(() => window.vramfitFailed))) await settled(page);
  return { context, page, errors, urls };
}

// RGBA pixels of a PNG (8-bit RGB or RGBA, not interlaced: what Chromium writes).
export function decodePng(buffer) {
  let offset = 8, width = 0, height = 0, colorType = 0;
  const data = [];
  while (offset < buffer.length) {
    const length = buffer.readUInt32BE(offset);
    const type = buffer.toString("ascii", offset + 4, offset + 8);
    const body = buffer.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") { width = body.readUInt32BE(0); height = body.readUInt32BE(4); colorType = body[9]; }
    if (type === "IDAT") data.push(body);
    offset += 12 + length;
  }
  const channels = colorType === 6 ? 4 : 3;
  const raw = zlib.inflateSync(Buffer.concat(data));
  const stride = width * channels, out = Buffer.alloc(width * height * 4);
  let previous = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? line[x - channels] : 0, b = previous[x], c = x >= channels ? previous[x - channels] : 0;
      let p = 0;
      if (filter === 1) p = a;
      else if (filter === 2) p = b;
      else if (filter === 3) p = (a + b) >> 1;
      else if (filter === 4) { const pa = Math.abs(b - c), pb = Math.abs(a - c), pc = Math.abs(a + b - 2 * c); p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c; }
      line[x] = (line[x] + p) & 255;
    }
    for (let x = 0; x < width; x++) {
      for (let k = 0; k < 3; k++) out[(y * width + x) * 4 + k] = line[x * channels + k];
      out[(y * width + x) * 4 + 3] = channels === 4 ? line[x * channels + 3] : 255;
    }
    previous = line;
  }
  return { width, height, pixels: out };
}

// How many distinct colours a screenshot has (a blank or failed page has a handful).
export function distinctColours(png) {
  const seen = new Set();
  for (let i = 0; i < png.pixels.length; i += 4) seen.add(png.pixels.readUInt32BE(i));
  return seen.size;
}

// The app's layout by name (window.vramfitLayout(), src/app/layout_hook.hpp): every labelled
// widget of the last frame with its rectangle in CSS pixels. Tests tap what a person taps by
// its label, never by fixed coordinates.
export async function widget(page, label, { visible = true } = {}) {
  let found = null;
  await page.waitForFunction(([wanted, mustShow]) => window.vramfitLayout().some(w => w.label === wanted && (!mustShow || w.visible)),
                             [label, visible], { timeout: 10000 }).catch(() => {});
  // A widget before a text of the same words (the GPU combo before the "GPU" section title).
  const matches = (await page.evaluate(() => window.vramfitLayout())).filter(w => w.label === label && (!visible || w.visible));
  found = matches.find(w => w.kind === "widget") || matches[0];
  if (!found) throw new Error(`no widget labelled "${label}" in the app's layout`);
  return { ...found, cx: found.x + found.w / 2, cy: found.y + found.h / 2 };
}

// The browser's file picker opened by `press` (a click or tap on an Open button), given `file`.
// Playwright intercepts pickers only once its subscription has reached the browser: a round
// trip after subscribing and before the press, so the picker cannot open before it is watched.
export async function chooseFile(page, press, file) {
  const chooser = page.waitForEvent("filechooser");
  await page.evaluate(() => 0);
  await press();
  await (await chooser).setFiles(file);
}

// Clicks (or taps) a text box and waits until the page's text field has the keyboard: what is
// typed goes there (src/platform/web/web_input.cpp places it over the active text box).
export async function focusTextBox(page, label, { tap = false } = {}) {
  const w = tap ? await tapWidget(page, label) : await clickWidget(page, label);
  // This text box is the one being edited (the page's text field may still hold the keyboard
  // from another box, e.g. a list's search a moment ago).
  await page.waitForFunction(name => window.vramfitLayout().some(i => i.label === name && i.active), label, { timeout: 10000 });
  await textFieldHasKeyboard(page);
  return w;
}

// Types as a person does, a key at a time (40 ms apart), not as one burst between frames.
export async function typeText(page, text) {
  await page.keyboard.type(text, { delay: 40 });
}

// Waits until the page's text field has the keyboard (a text box, or a list's search, is active).
export async function textFieldHasKeyboard(page) {
  await page.waitForFunction(() => document.activeElement && document.activeElement.id === "text-input", null, { timeout: 10000 });
}

// Clicks the middle of the widget with this label.
export async function clickWidget(page, label, options = {}) {
  const w = await widget(page, label);
  await page.mouse.click(w.cx, w.cy, options);
  await settled(page);  // the press waits a frame for its position (src/platform/web/web_input.cpp)
  return w;
}

// Waits until the app has stopped drawing (it pauses once its picture holds still after the
// last event; window.vramfitPaused): its layout is final, so what a test taps is where the
// next frame has it.
export async function settled(page) {
  await page.waitForFunction(() => window.vramfitPaused === true, null, { timeout: 20000, polling: 10 });
}

// Waits until the app has drawn `count` more frames (it draws a few after every input event).
export async function frames(page, count = 2) {
  const start = await page.evaluate(() => window.__frames);
  await page.waitForFunction(n => window.__frames >= n, start + count, { timeout: 10000 });
}

// The three sizes the page is tried at: a phone (touch, DPR 3), a tablet (touch) and a laptop (mouse).
export const SIZES = {
  phone: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true },
  tablet: { viewport: { width: 820, height: 1180 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
  desktop: { viewport: { width: 1366, height: 768 }, deviceScaleFactor: 1 },
};

// The app's layout, every item (see widget()).
export const layout = page => page.evaluate(() => window.vramfitLayout());

// A finger's tap at the middle of the widget with this label (touch events, not the mouse).
export async function tapWidget(page, label) {
  const w = await widget(page, label);
  await page.touchscreen.tap(w.cx, w.cy);
  await settled(page);  // the press waits a frame for its position (src/platform/web/web_input.cpp)
  return w;
}

// A finger's swipe from (x, y) by (dx, dy) in `steps` moves, through the browser's touch input.
export async function swipe(page, x, y, dx, dy, steps = 8) {
  const session = await page.context().newCDPSession(page);
  const point = (px, py) => [{ x: px, y: py, id: 1 }];
  await session.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: point(x, y) });
  for (let i = 1; i <= steps; i++) {
    await session.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: point(x + (dx * i) / steps, y + (dy * i) / steps) });
  }
  await session.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
  await session.detach();
  await settled(page);
}

// Text items (kind "text") and labelled widgets that overlap each other or are cut by their
// window's edge or the viewport, on the last frame: what a person would see as broken text.
export function layoutProblems(items, viewport) {
  const problems = [];
  const shown = items.filter(i => i.visible && i.w > 0 && i.h > 0);
  const texts = shown.filter(i => i.kind === "text" && i.label.trim() !== "");
  for (const i of shown) {
    const [cx0, , cx1] = i.clip;
    const inside = i.x >= cx0 - 1 && i.x + i.w <= cx1 + 1;
    // (A window that scrolls sideways cuts its items at its edge on purpose; a row that spans a
    // table's columns is wider than the column it is declared in.)
    if (!inside && !i.scrolls_sideways && !(i.kind === "widget" && i.w > (cx1 - cx0))) problems.push(`cut by its window: "${i.label}" [${Math.round(i.x)}..${Math.round(i.x + i.w)}] in [${Math.round(cx0)}..${Math.round(cx1)}]`);
    if (!i.scrolls_sideways && (i.x < -1 || i.x + i.w > viewport.width + 1)) problems.push(`outside the viewport: "${i.label}"`);
  }
  // What is drawn of a text: its rectangle within its window's clip (a table's last row, cut
  // by the table's edge, is not drawn over the line under the table).
  const drawn = i => {
    const [cx0, cy0, cx1, cy1] = i.clip;
    const x = Math.max(i.x, cx0), y = Math.max(i.y, cy0);
    return { ...i, x, y, w: Math.min(i.x + i.w, cx1) - x, h: Math.min(i.y + i.h, cy1) - y };
  };
  for (let a = 0; a < texts.length; a++) {
    for (let b = a + 1; b < texts.length; b++) {
      const p = drawn(texts[a]), q = drawn(texts[b]);
      const w = Math.min(p.x + p.w, q.x + q.w) - Math.max(p.x, q.x);
      const h = Math.min(p.y + p.h, q.y + q.h) - Math.max(p.y, q.y);
      // Rectangles of two texts may touch at a pixel's edge; more than that is one over the other.
      if (w > 2 && h > 2) problems.push(`texts overlap: "${p.label}" and "${q.label}"`);
    }
  }
  return problems;
}

// The app's state as a URL hash (r=<request JSON, base64url>), and back.
export const hashOf = request => "r=" + Buffer.from(JSON.stringify(request)).toString("base64url");
export const decodeHash = hash => JSON.parse(Buffer.from(hash.replace(/^#?r=/, ""), "base64url").toString() || "{}");
// The request the app holds now.
export const appState = async page => decodeHash(await page.evaluate(() => Module.UTF8ToString(Module._vramfit_current_hash())));

// Waits, a frame at a time, until the app's request passes `check`.
export async function waitForState(page, check, what) {
  for (let i = 0; i < 100; i++) {
    const s = await appState(page);
    if (check(s)) return s;
    await frames(page, 1).catch(() => {});
  }
  assert.fail(`the request never reached: ${what} (${JSON.stringify(await appState(page))})`);
}

// The text items of the last frame.
export const texts = async page => (await layout(page)).filter(i => i.kind === "text").map(i => i.label);

// A screenshot for the README, in build/screenshots/ (docs/screenshots/ holds the copies).
export async function shot(page, name) {
  const dir = path.join(root, "build/screenshots");
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, name) });
}

// The texts of the whole page as a person reads them: on a phone the results are under the
// inputs, so a finger swipes up, a screen at a time, collecting what each screen shows.
export async function readAll(page, touch, height) {
  const seen = new Set(await texts(page));
  if (!touch) return [...seen];
  for (let i = 0; i < 12; i++) {
    await swipe(page, 60, height * 0.7, 0, -height * 0.5);
    const now = await texts(page);
    const before = seen.size;
    now.forEach(t => seen.add(t));
    if (seen.size === before && i > 2) break;  // the bottom: nothing new
  }
  return [...seen];
}

// Brings a widget into the upper part of the screen: a finger swipes (phone), the wheel turns (laptop).
export async function bringIntoView(page, label, size, touch) {
  for (let i = 0; i < 14; i++) {
    const w = await widget(page, label, { visible: false });
    if (w.visible && w.cy < size.viewport.height * 0.7 && w.cy > 40) return w;
    const down = w.cy > size.viewport.height * 0.7;
    if (touch) await swipe(page, 60, size.viewport.height * 0.6, 0, down ? -size.viewport.height * 0.3 : size.viewport.height * 0.3);
    else {
      await page.mouse.move(size.viewport.width * 0.25, size.viewport.height * 0.5);
      await page.mouse.wheel(0, down ? 300 : -300);
      await frames(page, 2);
    }
  }
  return widget(page, label);
}

// Opens the list `combo` and picks `entry` in it, by a tap or a click.
export async function pick(page, size, touch, combo, entry) {
  await bringIntoView(page, combo, size, touch);
  if (touch) await tapWidget(page, combo); else await clickWidget(page, combo);
  await frames(page, 2);
  const item = await widget(page, entry);
  if (touch) await page.touchscreen.tap(item.cx, item.cy); else await page.mouse.click(item.cx, item.cy);
  await settled(page);
}
