// Helpers of the browser tests: a static server for dist/ that logs every request, Debian's
// Chromium through playwright-core (WebGL 2 via SwiftShader), and a PNG decoder to look at
// screenshots without extra packages.
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { chromium } from "playwright-core";

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
export const dist = path.join(root, "dist");

const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

export async function serveDist() {
  const requests = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url);
    const file = path.join(dist, decodeURIComponent(req.url.split("?")[0].split("#")[0]).replace(/^\/$/, "/index.html"));
    if (!file.startsWith(dist) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
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
  found = (await page.evaluate(() => window.vramfitLayout())).find(w => w.label === label && (!visible || w.visible));
  if (!found) throw new Error(`no widget labelled "${label}" in the app's layout`);
  return { ...found, cx: found.x + found.w / 2, cy: found.y + found.h / 2 };
}

// Clicks the middle of the widget with this label.
export async function clickWidget(page, label, options = {}) {
  const w = await widget(page, label);
  await page.mouse.click(w.cx, w.cy, options);
  return w;
}

// Waits until the app has drawn `count` more frames (it draws a few after every input event).
export async function frames(page, count = 2) {
  const start = await page.evaluate(() => window.__frames);
  await page.waitForFunction(n => window.__frames >= n, start + count, { timeout: 10000 });
}
