// Reading a model by its Hub id, measured against the local Hub-shaped server of the tests
// (tests/hub/hub_server.mjs, loopback): the CLI's wall time and the bytes the server sent for
// Llama 3.1 70B Instruct's 31 safetensors shards (a cold cache each time) and for a GGUF repo,
// each beside the same model read from the files on disk in the same run (the ratio is what
// carries from machine to machine; loopback has no latency, so a real Hub adds its round
// trips: 2 per shard, one after the other). With the web build, the JavaScript API's
// readHubModel() (Node.js fetch) reads the 70B model too, and with dist/ (scripts/build_dist.sh)
// the page in headless Chromium: from the Hub field's read (window.vramfitReadHub, what Read
// calls) until the app's configuration holds the model read (model.hub), a fresh page each run.
//   node bench/hub_read.mjs [runs]   (after the native build; the web build for the JS API)
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { startHub } from "../tests/hub/hub_server.mjs";
import { writeFixtureRepos } from "../tests/hub/fixture_repos.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = process.env.VRAMFIT_CLI || path.join(here, "..", "build", "native", "vramfit");
const runs = Number(process.argv[2] || 9);
const token = "hf_benchToken";
const root = fs.mkdtempSync(path.join(os.tmpdir(), "vramfit-hub-bench-"));
const repos = writeFixtureRepos(path.join(root, "repos"));
const hub = await startHub({ root: path.join(root, "repos"), token });

function timed(args, env) {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    execFile(cli, args, { env: { PATH: process.env.PATH, HOME: root, ...env }, maxBuffer: 1 << 26 }, (error, stdout, stderr) => {
      if (error) reject(new Error(stderr));
      resolve(Number(process.hrtime.bigint() - start) / 1e6);
    });
  });
}

const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(label, hubArgs, localArgs) {
  const hubTimes = [], localTimes = [];
  let sent = 0, requests = 0;
  for (let i = 0; i < runs; i++) {
    const from = hub.log.length;
    hubTimes.push(await timed(["infer", ...hubArgs, "-g", "h100-80", "--json"],
                              { HF_ENDPOINT: hub.url, HF_TOKEN: token, VRAMFIT_HUB_CACHE: path.join(root, `cache-${label}-${i}`) }));
    const log = hub.log.slice(from);
    sent = log.reduce((s, e) => s + e.bytes, 0);
    requests = log.length;
    localTimes.push(await timed(["infer", ...localArgs, "-g", "h100-80", "--json"], {}));
  }
  console.log(`${label}: Hub ${median(hubTimes).toFixed(0)} ms (median of ${runs}, cold cache), files on disk ` +
              `${median(localTimes).toFixed(0)} ms, ratio ${(median(hubTimes) / median(localTimes)).toFixed(2)}; ` +
              `${sent.toLocaleString("en")} B in ${requests} HTTP requests (redirects included)`);
}

await measure("Llama-3.1-70B-Instruct (31 shards, 141 GB)", ["--hf", "meta-llama/Llama-3.1-70B-Instruct"],
              ["--config", path.join(repos.llamaDir, "config.json"), "--safetensors",
               ...repos.llamaShards.map(s => path.join(repos.llamaDir, s))]);
await measure("Tiny-GGUF:Q8_0 (a 4 MiB header)", ["--hf", "org/Tiny-GGUF:Q8_0"], ["--gguf", path.join(repos.gguf, "Tiny-Q8_0.gguf")]);
const estimator = path.join(here, "..", "build", "web", "vramfit_estimator.js");
if (fs.existsSync(estimator)) {
  const require = createRequire(import.meta.url);
  const { wrap } = require(path.join(here, "..", "web", "vramfit-api.js"));
  const vramfit = wrap(await require(estimator)({ wasmBinary: fs.readFileSync(estimator.replace(/\.js$/, ".wasm")) }));
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    const read = await vramfit.readHubModel("meta-llama/Llama-3.1-70B-Instruct", { endpoint: hub.url, token });
    if (read.error) throw new Error(read.error.message);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  console.log(`Llama-3.1-70B-Instruct with the JavaScript API (readHubModel, Node.js fetch): ${median(times).toFixed(0)} ms (median of ${runs})`);
}
if (fs.existsSync(path.join(here, "..", "dist", "index.html"))) {
  const { serveDist, launch, open, settled } = await import("../tests/e2e/support.mjs");
  const site = await serveDist();
  const browser = await launch();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const { context, page } = await open(browser, site.origin + "/");
    await settled(page);
    times.push(await page.evaluate(([endpoint, token]) => new Promise((resolve, reject) => {
      const start = performance.now();
      window.vramfitReadHub("meta-llama/Llama-3.1-70B-Instruct", endpoint, token);
      const read = () => {
        const hash = Module.UTF8ToString(Module._vramfit_current_hash());
        const text = hash.startsWith("r=") ? atob(hash.slice(2).replace(/-/g, "+").replace(/_/g, "/")) : "{}";
        if (JSON.parse(text).model?.hub) resolve(performance.now() - start);
        else if (performance.now() - start > 30000) reject(new Error("the page read nothing in 30 s"));
        else setTimeout(read, 1);
      };
      read();
    }), [hub.url, token]));
    await context.close();
  }
  await browser.close();
  site.server.close();
  console.log(`Llama-3.1-70B-Instruct in the page (headless Chromium, fetch() with Range): ${median(times).toFixed(0)} ms ` +
              `(median of ${runs}, range ${Math.min(...times).toFixed(0)}-${Math.max(...times).toFixed(0)} ms)`);
}
await hub.close();
fs.rmSync(root, { recursive: true, force: true });
