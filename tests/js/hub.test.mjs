// readHubModel(): the JavaScript API reads a model by its Hub id with fetch() from the local
// Hub-shaped server of tests/hub (loopback only): the request fields equal the native CLI's
// for the same id and for the same files on disk, the token reaches only the endpoint, a
// cancel stops the reading, and every failure is an error value naming the repo.
//   node --test tests/js/    (after the native and web builds)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startHub } from "../hub/hub_server.mjs";
import { writeFixtureRepos } from "../hub/fixture_repos.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const require = createRequire(import.meta.url);
const createVramfit = require(path.join(root, "build/web/vramfit_estimator.js"));
const { wrap } = require(path.join(root, "web/vramfit-api.js"));
const vramfit = wrap(await createVramfit({ wasmBinary: fs.readFileSync(path.join(root, "build/web/vramfit_estimator.wasm")) }));
const TOKEN = "hf_jsFixtureToken9876543210";
let dir, hub, repos;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "vramfit-js-hub-"));
  repos = writeFixtureRepos(path.join(dir, "repos"));
  hub = await startHub({ root: path.join(dir, "repos"), token: TOKEN });
});

after(async () => {
  await hub.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// The native CLI (asynchronously: the server runs in this process), its report's request.
function cliRequest(args, env = {}) {
  return new Promise((resolve, reject) => {
    execFile(path.join(root, "build/native/vramfit"), ["infer", ...args, "-g", "h100-80", "--json"],
             { encoding: "utf8", maxBuffer: 1 << 26,
               env: { PATH: process.env.PATH, HOME: dir, VRAMFIT_HUB_CACHE: path.join(dir, "cli-cache"), HF_ENDPOINT: hub.url, ...env } },
             (error, stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(JSON.parse(stdout).request)));
  });
}

test("a sharded 70B model: the CLI's request fields, for kilobytes, the token only to the endpoint", async () => {
  const from = hub.log.length;
  const progress = [];
  const read = await vramfit.readHubModel("meta-llama/Llama-3.1-70B-Instruct",
                                          { endpoint: hub.url, token: TOKEN, onProgress: p => progress.push(p) });
  assert.equal(read.error, undefined, JSON.stringify(read.error));
  const log = hub.log.slice(from);
  assert.equal(read.hub.sha, hub.sha("meta-llama/Llama-3.1-70B-Instruct"));
  assert.equal(read.hub.files_read.length, 33);
  assert.equal(read.hub.bytes_fetched, log.reduce((s, e) => s + e.bytes, 0));
  assert.ok(read.hub.bytes_fetched < 2_000_000);
  assert.deepEqual(progress.at(-1), { files_done: 33, files_planned: 33, bytes_fetched: read.hub.bytes_fetched });
  assert.ok(log.filter(e => e.cdn).every(e => e.authorization === "" && e.status === 206));
  assert.ok(log.filter(e => !e.cdn).every(e => e.authorization === `Bearer ${TOKEN}`));
  assert.ok(!JSON.stringify(read).includes(TOKEN));
  const fromHub = await cliRequest(["--hf", "meta-llama/Llama-3.1-70B-Instruct"], { HF_TOKEN: TOKEN });
  const local = await cliRequest(["--config", path.join(repos.llamaDir, "config.json"), "--safetensors",
                                  ...repos.llamaShards.map(s => path.join(repos.llamaDir, s))]);
  assert.deepEqual(read.model, local.model);
  assert.deepEqual(read.weights, local.weights);
  assert.deepEqual(fromHub.model, local.model);
  // The fields make the same report as the CLI's.
  const report = vramfit.estimate({ ...local, model: read.model, weights: read.weights });
  assert.equal(report.breakdown.items[0].bytes, 141107412992);
});

test("a GGUF repo by id:quant and by URL equals the file read from disk with readModelFile()", async () => {
  const q8 = path.join(repos.gguf, "Tiny-Q8_0.gguf");
  const file = new File([fs.readFileSync(q8)], "Tiny-Q8_0.gguf");
  const local = await vramfit.readModelFile(file);
  assert.equal(local.error, undefined);
  for (const id of ["org/Tiny-GGUF:Q8_0", "https://huggingface.co/org/Tiny-GGUF/blob/main/Tiny-Q8_0.gguf"]) {
    const read = await vramfit.readHubModel(id, { endpoint: hub.url });
    assert.equal(read.error, undefined, JSON.stringify(read.error));
    assert.deepEqual({ model: read.model, weights: read.weights }, local, id);
    assert.equal(read.hub.file, "Tiny-Q8_0.gguf");
    assert.deepEqual(read.hub.ggufs.map(g => g.quant), ["Q4_K_M", "Q8_0"]);
  }
  const chosen = await vramfit.readHubModel("org/Tiny-GGUF", { endpoint: hub.url });
  assert.equal(chosen.hub.file, "Tiny-Q4_K_M.gguf");
  assert.ok(chosen.hub.notes.some(n => n.includes("as llama.cpp's -hf chooses")));
  assert.deepEqual(chosen.model, (await cliRequest(["--hf", "org/Tiny-GGUF"])).model);
});

test("a LoRA adapter's repo gives its base model's fields (the CLI's) and vLLM's --enable-lora at a rank that holds it", async () => {
  const read = await vramfit.readHubModel("org/Llama-70B-LoRA", { endpoint: hub.url, token: TOKEN });
  assert.equal(read.error, undefined, JSON.stringify(read.error));
  assert.equal(read.hub.repo, "meta-llama/Llama-3.1-70B-Instruct");
  assert.deepEqual(read.hub.adapter, { repo: "org/Llama-70B-LoRA", sha: hub.sha("org/Llama-70B-LoRA"), rank: 12,
                                       targets: ["q_proj", "k_proj", "v_proj", "o_proj"], weights_file: "adapter_model.safetensors",
                                       weights_size: 131072000 });
  assert.deepEqual(read.vllm, { "enable-lora": true, "max-lora-rank": 16 });
  const fromCli = await cliRequest(["--hf", "org/Llama-70B-LoRA", "--engine", "vllm"], { HF_TOKEN: TOKEN });
  assert.deepEqual(read.model, fromCli.model);
  assert.equal(fromCli.vllm["enable-lora"], true);
  assert.equal(fromCli.vllm["max-lora-rank"], 16);
});

test("a cancel stops the reading; failures are error values naming the repo", async () => {
  const controller = new AbortController();
  const reading = vramfit.readHubModel("meta-llama/Llama-3.1-70B-Instruct", {
    endpoint: hub.url, token: TOKEN, signal: controller.signal,
    onProgress: p => { if (p.files_done >= 3) controller.abort(); },
  });
  const cancelled = await reading;
  assert.equal(cancelled.error.id, "hub.cancelled");
  const cases = [
    ["meta-llama/Llama-3.1-70B-Instruct", {}, "hub.gated", /^hf: meta-llama\/Llama-3\.1-70B-Instruct: config\.json: gated: accept the licence on the model page/],
    ["meta-llama/Llama-3.1-70B-Instruct", { token: "hf_other" }, "hub.gated", /the token given has no access to it yet/],
    ["nobody/nothing", {}, "hub.not_found", /^hf: nobody\/nothing: no such model on http:\/\/127\.0\.0\.1:\d+: check the id$/],
    ["fault/rate-limited", {}, "hub.rate_limited", /retry after 7 s/],
    ["fault/html", {}, "hub.not_json", /is an HTML page/],
    ["fault/no-range", {}, "hub.unreachable", /the server ignored the Range request \(it sent more than the 1,048,576 B asked\)$/],
    ["fault/cut", {}, "hub.unreachable", /^hf: fault\/cut: Tiny-Q4_K_M.gguf: the connection was cut after/],
    ["org/Tiny-GGUF:IQ1_S", {}, "hub.no_quant",
     new RegExp(`it has Q4_K_M \\(${(fs.statSync(path.join(repos.gguf, "Tiny-Q4_K_M.gguf")).size / 1e6).toFixed(2)} MB\\), Q8_0`)],
    ["org/Tiny-GGUF", { endpoint: "http://127.0.0.1:9" }, "hub.unreachable", /^hf: org\/Tiny-GGUF: cannot reach 127\.0\.0\.1:9/],
    ["https://huggingface.co/datasets/org/data", {}, "hub.bad_id", /.+/],
    ["org/Tiny-GGUF", { endpoint: "ftp://mirror" }, "hub.bad_endpoint", /^endpoint: 'ftp:\/\/mirror' is not an http\(s\):\/\/ address/],
  ];
  for (const [id, options, errorId, message] of cases) {
    const read = await vramfit.readHubModel(id, { endpoint: hub.url, ...options });
    assert.ok(read.error, `${id}: ${JSON.stringify(read).slice(0, 200)}`);
    assert.equal(read.error.id, errorId, `${id}: ${read.error.message}`);
    assert.match(read.error.message, message, id);
    assert.ok(!read.error.message.includes(TOKEN) && !read.error.message.includes("hf_other"));
  }
});
