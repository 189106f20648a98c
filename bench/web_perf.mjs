// The page's performance, measured in headless Chromium from a local server:
//   transfer size   gzip -9 of every file index.html loads
//   first frame     navigation start -> the app's first drawn frame (median of 7 loads)
//   idle CPU        main-thread task time over 5 s with no input, as a share of 5 s
//   node bench/web_perf.mjs   (after scripts/build_dist.sh)
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { dist, serveDist, launch, open } from "../tests/e2e/support.mjs";

const files = ["index.html", "shell.js", "vramfit_app.js", "vramfit_app.wasm"];
let total = 0;
for (const file of files) {
  const bytes = fs.readFileSync(path.join(dist, file));
  const gz = zlib.gzipSync(bytes, { level: 9 }).length;
  total += gz;
  console.log(`${file.padEnd(18)} ${String(bytes.length).padStart(9)} B  gzip ${String(gz).padStart(8)} B`);
}
console.log(`transfer size (gzip, all files the page loads): ${(total / 1024).toFixed(1)} KiB (${total} B)`);
// The core-only module: fetched by the page only when a file is dropped (or the JS API is used).
let onDrop = 0;
for (const file of ["vramfit-api.js", "vramfit_estimator.js", "vramfit_estimator.wasm"]) {
  const bytes = fs.readFileSync(path.join(dist, file));
  const gz = zlib.gzipSync(bytes, { level: 9 }).length;
  onDrop += gz;
  console.log(`${file.padEnd(18)} ${String(bytes.length).padStart(9)} B  gzip ${String(gz).padStart(8)} B  (on first drop)`);
}
console.log(`fetched on the first dropped file: ${(onDrop / 1024).toFixed(1)} KiB (${onDrop} B)`);
const single = fs.statSync(path.join(dist, "vramfit.html")).size;
console.log(`vramfit.html (single file): ${single} B, gzip ${zlib.gzipSync(fs.readFileSync(path.join(dist, "vramfit.html")), { level: 9 }).length} B`);

const site = await serveDist();
const browser = await launch();
const times = [];
for (let i = 0; i < 7; i++) {
  const { context, page } = await open(browser, site.origin + "/");
  times.push(await page.evaluate(() => window.vramfitTiming.sinceNavigationMs));
  await context.close();
}
times.sort((a, b) => a - b);
console.log(`first frame: median ${times[3].toFixed(0)} ms (min ${times[0].toFixed(0)}, max ${times[6].toFixed(0)}) over 7 loads`);

const { context, page } = await open(browser, site.origin + "/");
const cdp = await context.newCDPSession(page);
await cdp.send("Performance.enable");
await page.waitForTimeout(1000);
const metric = async name => (await cdp.send("Performance.getMetrics")).metrics.find(m => m.name === name).value;
const before = await metric("TaskDuration");
await page.waitForTimeout(5000);
const after = await metric("TaskDuration");
console.log(`idle CPU (main thread, 5 s without input): ${((after - before) / 5 * 100).toFixed(2)}%`);
await context.close();
await browser.close();
site.server.close();
