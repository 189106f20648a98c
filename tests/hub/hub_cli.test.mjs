// The CLI reads models by their Hub id from a local Hub-shaped server (hub_server.mjs, loopback
// only) serving fixture repositories (fixture_repos.mjs): the reports equal those of the same
// files read from disk byte for byte, ranges cost kilobytes, the token goes only where it should,
// a second answer comes from the cache, and every failure is a message naming the repo.
// Run: node --test tests/hub/ (after the native build; VRAMFIT_CLI names another binary).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startHub } from "./hub_server.mjs";
import { writeFixtureRepos } from "./fixture_repos.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = process.env.VRAMFIT_CLI || path.join(here, "..", "..", "build", "native", "vramfit");
const TOKEN = "hf_fixtureTOKEN0123456789abcdefXYZ";
let root, cache, hub, repos;

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "vramfit-hub-"));
  cache = path.join(root, "cache");
  repos = writeFixtureRepos(path.join(root, "repos"));
  hub = await startHub({ root: path.join(root, "repos"), token: TOKEN });
});

after(async () => {
  await hub.close();
  fs.rmSync(root, { recursive: true, force: true });
});

// The CLI, asynchronously (the server runs in this process), in a clean environment: no token,
// the local endpoint, a cache of this run's own.
function run(args, env = {}) {
  const clean = { PATH: process.env.PATH, HOME: root, VRAMFIT_HUB_CACHE: cache, HF_ENDPOINT: hub.url, ...env };
  return new Promise(resolve => {
    execFile(cli, args, { encoding: "utf8", maxBuffer: 1 << 26, env: clean }, (error, stdout, stderr) => {
      resolve({ status: error ? error.code : 0, stdout, stderr });
    });
  });
}

function requestsDuring(from) {
  return hub.log.slice(from);
}

function bytesOf(entries) {
  return entries.reduce((sum, e) => sum + e.bytes, 0);
}

function filesUnder(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap(e =>
    e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]);
}

const llamaId = "meta-llama/Llama-3.1-70B-Instruct";

test("a sharded 70B safetensors model by id: the same report as its files on disk, for kilobytes", async () => {
  const from = hub.log.length;
  const fromHub = await run(["infer", "--hf", llamaId, "-g", "h100-80", "--json"], { HF_TOKEN: TOKEN });
  assert.equal(fromHub.status, 0, fromHub.stderr);
  const shards = repos.llamaShards.map(s => path.join(repos.llamaDir, s));
  const local = await run(["infer", "--config", path.join(repos.llamaDir, "config.json"), "--safetensors", ...shards,
                           "-g", "h100-80", "--json"]);
  assert.equal(local.status, 0, local.stderr);
  assert.equal(fromHub.stdout, local.stdout);
  const report = JSON.parse(fromHub.stdout);
  assert.equal(report.breakdown.items[0].bytes, 141107412992);  // 70,553,706,496 BF16 parameters
  // The file list, config.json, the index and two ranges per shard (its 8-byte length, then
  // its header), each shard's ranges through the storage host; 141 GB of shards cost kilobytes.
  const requests = requestsDuring(from);
  const sent = bytesOf(requests);
  assert.ok(sent < 2_000_000, `${sent} B sent`);
  const ranges = requests.filter(e => e.cdn);
  assert.equal(ranges.length, 2 * shards.length);
  assert.ok(ranges.every(e => /^bytes=\d+-\d+$/.test(e.range) && e.status === 206));
  assert.ok(ranges.every(e => e.bytes <= 64 * 1024), "no range over 64 KiB");
  // Kept-alive connections: one to the endpoint and one to the storage host, not one per request.
  assert.equal(new Set(requests.map(e => `${e.cdn}:${e.connection}`)).size, 2);
  // What the CLI says it fetched is what the server sent (a redirect has no body).
  const said = new RegExp(`hf: ${llamaId}@([0-9a-f]{12}): read ${shards.length + 2} file\\(s\\) .*, ([\\d,]+) B fetched in (\\d+) request`).exec(fromHub.stderr);
  assert.ok(said, fromHub.stderr);
  assert.equal(said[1], hub.sha(llamaId).slice(0, 12));
  assert.equal(Number(said[2].replaceAll(",", "")), sent);
  assert.equal(Number(said[3]), requests.filter(e => !e.cdn).length);
  // The token: to the endpoint only, as a bearer header; never to the storage host, in a URL,
  // the output or the cache.
  assert.ok(requests.filter(e => !e.cdn).every(e => e.authorization === `Bearer ${TOKEN}`));
  assert.ok(ranges.every(e => e.authorization === ""));
  assert.ok(requests.every(e => !e.path.includes(TOKEN)));
  assert.ok(!fromHub.stdout.includes(TOKEN) && !fromHub.stderr.includes(TOKEN));
  for (const file of filesUnder(cache)) assert.ok(!fs.readFileSync(file, "latin1").includes(TOKEN), file);
});

test("a second answer reads only the file list, --offline reads nothing, and both answer the same", async () => {
  const first = await run(["infer", "--hf", llamaId, "-g", "h100-80", "--json"], { HF_TOKEN: TOKEN });
  assert.equal(first.status, 0, first.stderr);
  let from = hub.log.length;
  const again = await run(["infer", "--hf", llamaId, "-g", "h100-80", "--json"], { HF_TOKEN: TOKEN });
  assert.equal(again.stdout, first.stdout);
  assert.deepEqual(requestsDuring(from).map(e => e.path.split("?")[0]), [`/api/models/${llamaId}/revision/main`]);
  from = hub.log.length;
  const offline = await run(["infer", "--hf", llamaId, "--offline", "-g", "h100-80", "--json"]);
  assert.equal(offline.status, 0, offline.stderr);
  assert.equal(offline.stdout, first.stdout);
  assert.match(offline.stderr, /all from the cache/);
  assert.equal(requestsDuring(from).length, 0);
  const envOffline = await run(["infer", "--hf", llamaId, "-g", "h100-80", "--json"], { HF_HUB_OFFLINE: "1" });
  assert.equal(envOffline.stdout, first.stdout);
  // A model never read is not in the cache: offline says so.
  const never = await run(["infer", "--hf", "org/Tiny-GGUF:Q8_0", "--offline", "-g", "h100-80"], { VRAMFIT_HUB_CACHE: path.join(root, "empty") });
  assert.equal(never.status, 2);
  assert.match(never.stderr, /hf: org\/Tiny-GGUF: offline \(--offline or HF_HUB_OFFLINE\), and the cache has no file list/);
});

test("a gated model: without a token, with another, and with huggingface_hub's token file", async () => {
  // (A cache that holds the headers answers without a token, as huggingface_hub's does: a cache of its own.)
  const fresh = { VRAMFIT_HUB_CACHE: path.join(root, "cache-gated") };
  const none = await run(["infer", "--hf", llamaId, "-g", "h100-80"], fresh);
  assert.equal(none.status, 2);
  assert.match(none.stderr, new RegExp(`hf: ${llamaId}: config.json: gated: accept the licence on the model page \\(${hub.url}/${llamaId}\\), then give a read token \\(HF_TOKEN\\)`));
  assert.equal(none.stdout, "");
  const wrong = await run(["infer", "--hf", llamaId, "-g", "h100-80"], { ...fresh, HF_TOKEN: "hf_someoneElse" });
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /gated: .*the token given has no access to it yet/);
  assert.ok(!wrong.stderr.includes("hf_someoneElse"));
  // `hf auth login` writes $HF_HOME/token; HF_TOKEN_PATH names another file.
  const home = path.join(root, "hf-home");
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(home, "token"), TOKEN + "\n");
  const fromFile = await run(["infer", "--hf", llamaId, "-g", "h100-80", "--json"], { HF_HOME: home, VRAMFIT_HUB_CACHE: path.join(root, "cache-token-file") });
  assert.equal(fromFile.status, 0, fromFile.stderr);
  const tokenPath = path.join(root, "other-token");
  fs.writeFileSync(tokenPath, TOKEN);
  const fromPath = await run(["infer", "--hf", llamaId, "-g", "h100-80", "--json"], { HF_TOKEN_PATH: tokenPath, VRAMFIT_HUB_CACHE: path.join(root, "cache-token-path") });
  assert.equal(fromPath.status, 0, fromPath.stderr);
  assert.equal(fromPath.stdout, fromFile.stdout);
});

test("a GGUF repo: llama.cpp's -hf choice, :quant, a blob URL and a pasted llama-server -hf, each as the file on disk", async () => {
  const q4 = path.join(repos.gguf, "Tiny-Q4_K_M.gguf"), q8 = path.join(repos.gguf, "Tiny-Q8_0.gguf");
  const localQ4 = await run(["infer", "--gguf", q4, "-g", "rtx-4090", "--json"]);
  const localQ8 = await run(["infer", "--gguf", q8, "-g", "rtx-4090", "--json"]);
  assert.equal(localQ4.status, 0, localQ4.stderr);
  assert.notEqual(localQ4.stdout, localQ8.stdout);
  const from = hub.log.length;
  const chosen = await run(["infer", "--hf", "org/Tiny-GGUF", "-g", "rtx-4090", "--json"]);
  assert.equal(chosen.status, 0, chosen.stderr);
  assert.equal(chosen.stdout, localQ4.stdout);
  assert.match(chosen.stderr, /no quantization given: Q4_K_M, as llama.cpp's -hf chooses .* Q8_0/);
  assert.match(chosen.stderr, /multimodal projector \(mmproj-Tiny-F16.gguf\)/);
  // The header is over 1 MiB (100,000 tokens): the first MiB, then up to 4 MiB, never the file.
  const ranges = requestsDuring(from).filter(e => e.cdn);
  assert.deepEqual(ranges.map(e => e.range), ["bytes=0-1048575", "bytes=1048576-4194303"]);
  for (const id of ["org/Tiny-GGUF:Q8_0", "org/Tiny-GGUF:q8_0", "https://huggingface.co/org/Tiny-GGUF/blob/main/Tiny-Q8_0.gguf",
                    "hf.co/org/Tiny-GGUF/resolve/main/Tiny-Q8_0.gguf?download=true"]) {
    const r = await run(["infer", "--hf", id, "-g", "rtx-4090", "--json"]);
    assert.equal(r.status, 0, `${id}: ${r.stderr}`);
    assert.equal(r.stdout, localQ8.stdout, id);
  }
  const pasted = await run(["infer", "-g", "rtx-4090", "--cmd", "llama-server -hf org/Tiny-GGUF:Q8_0 -c 8192 -ngl 99"]);
  const pastedLocal = await run(["infer", "-g", "rtx-4090", "--cmd", `llama-server -m ${q8} -c 8192 -ngl 99`]);
  assert.equal(pasted.status, 0, pasted.stderr);
  assert.equal(pasted.stdout, pastedLocal.stdout);
  const hff = await run(["infer", "-g", "rtx-4090", "--cmd", "llama-cli --hf-repo org/Tiny-GGUF --hf-file Tiny-Q8_0.gguf -c 8192"]);
  const hffLocal = await run(["infer", "-g", "rtx-4090", "--cmd", `llama-cli -m ${q8} -c 8192`]);
  assert.equal(hff.status, 0, hff.stderr);
  assert.equal(hff.stdout, hffLocal.stdout);
  // A split GGUF: the parts' tensors together, the report the single file's (its name aside).
  const split = await run(["infer", "--hf", "org/Tiny-GGUF-split", "-g", "rtx-4090", "--json"]);
  assert.equal(split.status, 0, split.stderr);
  assert.match(split.stderr, /a split GGUF: the tensors of its 2 parts together/);
  assert.equal(split.stdout.replaceAll("Tiny-Q4_K_M-00001-of-00002.gguf", "Tiny-Q4_K_M.gguf"), localQ4.stdout);
  const part2 = await run(["infer", "--hf", "https://huggingface.co/org/Tiny-GGUF-split/blob/main/Tiny-Q4_K_M-00002-of-00002.gguf", "-g", "rtx-4090"]);
  assert.match(part2.stderr, /a projector or a later part of a split GGUF: name the model's \(first\) GGUF/);
  // A renamed repository answers 307 to its new id, as the Hub does.
  const renamed = await run(["infer", "--hf", "org/Old-Name", "-g", "rtx-4090", "--json"]);
  assert.equal(renamed.status, 0, renamed.stderr);
  assert.equal(renamed.stdout, localQ4.stdout);
  const missing = await run(["infer", "--hf", "org/Tiny-GGUF:IQ2_XXS", "-g", "rtx-4090"]);
  assert.equal(missing.status, 2);
  const mb = file => (fs.statSync(file).size / 1e6).toFixed(2);  // vramfit's GB/MB: powers of 1,000
  assert.ok(missing.stderr.includes(`hf: org/Tiny-GGUF: no GGUF file of quantization IQ2_XXS; it has Q4_K_M (${mb(q4)} MB), Q8_0 (${mb(q8)} MB)`),
            missing.stderr);
});

test("config-only repos, pytorch_model.bin, remote code, vllm serve and train by id", async () => {
  const gpt2 = await run(["infer", "--hf", "gpt2", "-g", "h100-80", "--json"]);
  const gpt2Local = await run(["infer", "--config", path.join(repos.gpt2, "config.json"), "-g", "h100-80", "--json"]);
  assert.equal(gpt2.status, 0, gpt2.stderr);
  assert.equal(gpt2.stdout, gpt2Local.stdout);
  assert.match(gpt2.stderr, /only pytorch_model.bin \(no header to read\)/);
  const custom = await run(["infer", "--hf", "internlm/internlm2_5-7b-chat", "-g", "h100-80", "--json"]);
  const customLocal = await run(["infer", "--config", path.join(repos.internlm, "config.json"), "-g", "h100-80", "--json"]);
  assert.equal(custom.status, 0, custom.stderr);
  assert.equal(custom.stdout, customLocal.stdout);
  assert.match(custom.stderr, /custom architecture: config.json's auto_map names remote code \(.*\); vramfit reads its config keys as model_type internlm2 and runs no code/);
  const served = await run(["infer", "-g", "h100-80", "--cmd", "vllm serve gpt2 --max-model-len 1024"]);
  const servedLocal = await run(["infer", "-g", "h100-80", "--cmd", `vllm serve ${repos.gpt2} --max-model-len 1024`]);
  assert.equal(served.status, 0, served.stderr);
  assert.equal(served.stdout, servedLocal.stdout);
  const train = await run(["train", "--hf", "gpt2", "-g", "h100-80", "--json"]);
  const trainLocal = await run(["train", "--config", path.join(repos.gpt2, "config.json"), "-g", "h100-80", "--json"]);
  assert.equal(train.status, 0, train.stderr);
  assert.equal(train.stdout, trainLocal.stdout);
});

test("a LoRA adapter's repo: adapter_config.json, then its base model; vLLM answers with --enable-lora at a rank that holds it", async () => {
  const from = hub.log.length;
  const fromHub = await run(["infer", "--hf", "org/Llama-70B-LoRA", "--engine", "vllm", "-g", "h100-80", "--gpu-count", "2", "--json"],
                            { HF_TOKEN: TOKEN, VRAMFIT_HUB_CACHE: path.join(root, "cache-lora") });
  assert.equal(fromHub.status, 0, fromHub.stderr);
  // The same as the base model's files on disk with vLLM's flags given by hand (r 12 -> rank 16,
  // vllm/config/lora.py MaxLoRARanks).
  const requestFile = path.join(root, "lora-request.json");
  fs.writeFileSync(requestFile, JSON.stringify({ engine: "vllm", vllm: { "enable-lora": true, "max-lora-rank": 16 } }));
  const shards = repos.llamaShards.map(s => path.join(repos.llamaDir, s));
  const local = await run(["infer", "--request", requestFile, "--config", path.join(repos.llamaDir, "config.json"),
                           "--safetensors", ...shards, "-g", "h100-80", "--gpu-count", "2", "--json"]);
  assert.equal(local.status, 0, local.stderr);
  assert.equal(fromHub.stdout, local.stdout);
  assert.match(fromHub.stderr, /^note: a LoRA adapter \(rank 12 on q_proj, k_proj, v_proj, o_proj, adapter_model.safetensors 131\.07 MB\) of meta-llama\/Llama-3\.1-70B-Instruct, read from there; vLLM serves it with --enable-lora --max-lora-rank 16 \(set\)/m);
  const paths = requestsDuring(from).filter(e => !e.cdn).map(e => e.path.split("?")[0]);
  assert.deepEqual(paths.slice(0, 4), ["/api/models/org/Llama-70B-LoRA/revision/main", `/org/Llama-70B-LoRA/resolve/${hub.sha("org/Llama-70B-LoRA")}/adapter_config.json`,
                                       `/api/models/${llamaId}/revision/main`, `/${llamaId}/resolve/${hub.sha(llamaId)}/config.json`]);
  // A second answer from the cache, offline: both repositories' files were kept apart.
  const offline = await run(["infer", "--hf", "org/Llama-70B-LoRA", "--offline", "--engine", "vllm", "-g", "h100-80", "--gpu-count", "2", "--json"],
                            { VRAMFIT_HUB_CACHE: path.join(root, "cache-lora") });
  assert.equal(offline.status, 0, offline.stderr);
  assert.equal(offline.stdout, fromHub.stdout);
});

test("every failure is a message naming the repo and the file, and nothing is printed as a report", async () => {
  const cases = [
    [["--hf", "nobody/nothing"], /^error: hf: nobody\/nothing: no such model on http:\/\/127\.0\.0\.1:\d+: check the id$/m],
    [["--hf", "org/Tiny-GGUF@v9"], /^error: hf: org\/Tiny-GGUF@v9: revision v9 not found$/m],
    [["--hf", "fault/rate-limited"], /^error: hf: fault\/rate-limited: rate-limited by the Hub \(429\): retry after 7 s; a token raises the limit$/m],
    [["--hf", "fault/html"], /^error: hf: fault\/html: the file list \(.*\) is an HTML page, not the Hub's model API: is the endpoint a Hub\?$/m],
    [["--hf", "fault/cut"], /^error: hf: fault\/cut: Tiny-Q4_K_M.gguf: the connection was cut after 524,288 B$/m],
    [["--hf", "fault/loop"], /^error: hf: fault\/loop: Tiny-Q4_K_M.gguf: a redirect loop \(more than 10 redirects\)$/m],
    [["--hf", "fault/no-range"], /^error: hf: fault\/no-range: Tiny-Q4_K_M.gguf: the server ignored the Range request \(it sent more than the 1,048,576 B asked\)$/m],
    [["--hf", "org/Tiny-GGUF", "--hf-endpoint", "http://127.0.0.1:9"], /^error: hf: org\/Tiny-GGUF: cannot reach 127\.0\.0\.1:9 \(.*\): offline\? --offline answers from the cache$/m],
    [["--hf", "org/Tiny-GGUF", "--hf-endpoint", "ftp://mirror"], /^error: --hf-endpoint: endpoint: 'ftp:\/\/mirror' is not an http\(s\):\/\/ address/m],
    [["--hf", "https://huggingface.co/datasets/org/data"], /^error: --hf: /m],
    [["--hf", "org/Mystery-LM"], /^error: model.config: model_type 'mystery_lm' is not one vramfit knows/m],
    [["--hf", "org/Tiny-GGUF:Q8_0", "-m", "llama-3.1-8b"], /^error: --model excludes --hf$/m],
    [["--hf", "org/Prefix-Adapter"], /^error: hf: org\/Prefix-Adapter: adapter_config.json: a PREFIX_TUNING adapter; vramfit reads LoRA adapters \(peft_type LORA\)$/m],
    [["--hf", "org/Local-Base-LoRA"], /^error: hf: org\/Local-Base-LoRA: adapter_config.json: base_model_name_or_path '\/home\/me\/llama' is not a Hub id: read the base model by its id, then its adapter$/m],
    [["--hf", "org/Tiny-GGUF:Q8_0", "--gguf", path.join(repos.gguf, "Tiny-Q8_0.gguf")], /^error: --hf excludes --gguf$/m],
  ];
  for (const [args, message] of cases) {
    const r = await run(["infer", ...args, "-g", "rtx-4090"]);
    assert.equal(r.status, 2, `${args}: ${r.stdout}`);
    assert.match(r.stderr, message, args.join(" "));
    assert.equal(r.stdout, "", args.join(" "));
  }
  // A stalled answer: HF_HUB_DOWNLOAD_TIMEOUT seconds without a byte.
  const slow = await run(["infer", "--hf", "fault/slow", "-g", "rtx-4090"], { HF_HUB_DOWNLOAD_TIMEOUT: "1" });
  assert.equal(slow.status, 2);
  assert.match(slow.stderr, /^error: hf: fault\/slow: Tiny-Q4_K_M.gguf: timed out: nothing came for 1 s \(HF_HUB_DOWNLOAD_TIMEOUT\)$/m);
  const badTimeout = await run(["infer", "--hf", "org/Tiny-GGUF", "-g", "rtx-4090"], { HF_HUB_DOWNLOAD_TIMEOUT: "soon" });
  assert.match(badTimeout.stderr, /HF_HUB_DOWNLOAD_TIMEOUT: 'soon' is not a whole number of seconds/);
  const badEndpoint = await run(["infer", "--hf", "org/Tiny-GGUF", "-g", "rtx-4090"], { HF_ENDPOINT: "mirror.example" });
  assert.match(badEndpoint.stderr, /^error: HF_ENDPOINT: 'mirror.example' is not an http\(s\):\/\/ address/m);
});
