// The JavaScript API (core-only wasm module) under Node.js: the same JSON as the native CLI,
// and model files read from their header bytes as the page reads a dropped file.
//   node --test tests/js/    (after the native and web builds)
import { ggufBytes, loraGgufBytes, mmprojGgufBytes } from "../support/gguf_bytes.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { File as BufferFile } from "node:buffer";

// Node 20 has a global File; Debian 12's Node 18 has it only in node:buffer.
const File = globalThis.File ?? BufferFile;

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const require = createRequire(import.meta.url);
const createVramfit = require(path.join(root, "build/web/vramfit_estimator.js"));
const { wrap } = require(path.join(root, "web/vramfit-api.js"));
// Emscripten 3.1.6 would fetch() the .wasm by path under Node 20: hand it the bytes.
const vramfit = wrap(await createVramfit({ wasmBinary: fs.readFileSync(path.join(root, "build/web/vramfit_estimator.wasm")) }));
const cli = (...args) => execFileSync(path.join(root, "build/native/vramfit"), args, { encoding: "utf8" });

test("estimate() returns exactly what the native CLI prints, for every golden request", () => {
  const dir = path.join(root, "tests/golden");
  const files = fs.readdirSync(dir).filter(f => f.endsWith(".json") && !f.includes("_fail"));
  assert.ok(files.length >= 7);
  for (const file of files) {
    const native = JSON.parse(cli("infer", "--request", path.join(dir, file), "--json"));
    assert.deepEqual(vramfit.estimate(native.request), native, file);
    // Text through the JS API, normalised by JSON.parse like the native side (which prints
    // 0.0 where JavaScript writes 0).
    assert.equal(JSON.stringify(JSON.parse(vramfit.estimateJson(JSON.stringify(native.request)))), JSON.stringify(native), file);
  }
});

test("errors are values with the field named", () => {
  const reply = vramfit.estimate({ context_tokens: 0 });
  assert.equal(reply.error.id, "request.out_of_range");
  assert.equal(reply.error.field, "context_tokens");
  assert.equal(vramfit.estimateJson("{oops").includes("request.bad_json"), true);
});

test("a Mac's answer names its unified-memory limit, as the CLI's JSON does; llama.cpp's buffers are Metal's", () => {
  const request = { v: 1, model: { preset: "llama-3.1-8b" }, weights: { format: "gguf-q4_k_m" }, engine: "llama.cpp",
                    gpus: ["apple-m1-16"], "llama.cpp": { "ctx-size": 8192 } };
  const reply = vramfit.estimate(request);
  assert.match(reply.fit.gpu.unified_memory, /^The GPU may use 10\.67 GiB of this Mac's 16\.00 GiB of unified memory/);
  assert.equal(reply.engine.gpus[0].device, "MTL0");
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vramfit-mac-")), "mac.json");
  fs.writeFileSync(file, JSON.stringify(request));
  assert.deepEqual(reply, JSON.parse(cli("infer", "--request", file, "--json")));
  assert.equal(vramfit.estimate({ ...request, gpus: ["rtx-4090"] }).fit.gpu.unified_memory, undefined);
});

test("llama.cpp's build and program: readCommand names the program; estimate() answers each build as the CLI does", () => {
  const command = vramfit.readCommand("llama-bench -c 8192 -np 4");
  assert.equal(command.fields["llama.cpp"].tool, "llama-bench");
  const request = { v: 1, model: { preset: "qwen3-4b" }, weights: { format: "gguf-q4_k_m" }, engine: "llama.cpp",
                    gpu: { id: "rtx-4090" }, "llama.cpp": { "ctx-size": 8192, parallel: 4 } };
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vramfit-build-")), "build.json");
  const computeOf = reply => reply.engine.gpus[0].compute_bytes;
  // Before b9460 the prompt graph holds 512 tokens' logits and their hidden state.
  const old = { ...request, "llama.cpp": { ...request["llama.cpp"], build: 9459 } };
  assert.equal(computeOf(vramfit.estimate(old)), 512 * 4 * (151936 + 2560));
  fs.writeFileSync(file, JSON.stringify(old));
  assert.deepEqual(vramfit.estimate(old), JSON.parse(cli("infer", "--request", file, "--json")));
  assert.ok(computeOf(vramfit.estimate(request)) < 100 * 1024 * 1024, "the newest llama-server: one output per sequence");
  assert.equal(computeOf(vramfit.estimate({ ...request, "llama.cpp": { ...request["llama.cpp"], tool: "llama-bench" } })),
               512 * 4 * (151936 + 2560), "llama-bench keeps n_batch outputs");
  const bad = vramfit.estimate({ ...request, "llama.cpp": { tool: "ollama" } });
  assert.equal(bad.error.field, "llama.cpp.tool");
});

test("catalog() lists models, GPUs and formats", () => {
  const catalog = vramfit.catalog();
  assert.ok(catalog.models.length >= 25);
  assert.ok(catalog.gpus.length >= 30);
  assert.ok(catalog.formats.some(f => f.id === "gguf-q4_k_m"));
});


test("readModelFile() grows the slice over a long GGUF header and matches the CLI", async () => {
  const bytes = ggufBytes({ tokens: 60000 });  // ~1.1 MB of header: more than the first 1 MiB slice
  assert.ok(bytes.length > 1 << 20);
  const file = new File([bytes, Buffer.alloc(4096)], "tiny.gguf");
  const read = await vramfit.readModelFile(file);
  assert.equal(read.error, undefined, JSON.stringify(read.error));
  assert.equal(read.weights.format, "as_stored");
  assert.equal(read.model.config.num_hidden_layers, 2);
  const request = { ...read, context_tokens: 4096, gpu: { id: "rtx-4090" } };
  const report = vramfit.estimate(request);
  assert.equal(report.error, undefined);

  const tmp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vramfit-")), "tiny.gguf");
  fs.writeFileSync(tmp, Buffer.concat([bytes, Buffer.alloc(4096)]));
  const native = JSON.parse(cli("infer", "--gguf", tmp, "-c", "4096", "-g", "rtx-4090", "--json"));
  assert.equal(report.breakdown.total_bytes, native.breakdown.total_bytes);
  assert.deepEqual(report.request.weights, native.request.weights);
});

test("a draft model (llama.cpp's -md): readCommand names its file; estimate() with its header's fields matches the CLI", async () => {
  const command = vramfit.readCommand("llama-server -m tiny.gguf -md tiny-draft.gguf -ngld 99 -ctkd q8_0 -c 8192");
  assert.equal(command.draft_file, "tiny-draft.gguf");
  assert.equal(command.fields["llama.cpp"]["cache-type-k-draft"], "q8_0");
  assert.ok(command.notes.some(n => n.startsWith("tiny-draft.gguf: the draft model (-md)")));
  const bytes = Buffer.concat([ggufBytes({ tokens: 2000 }), Buffer.alloc(4096)]);
  const read = await vramfit.readModelFile(new File([bytes], "tiny.gguf"));
  assert.equal(read.error, undefined, JSON.stringify(read.error));
  const report = vramfit.estimate({ ...read, ...command.fields, gpu: { id: "rtx-4090" },
                                    draft: { model: read.model, weights: read.weights } });
  assert.equal(report.error, undefined, JSON.stringify(report.error));
  assert.equal(report.engine.draft.name, "tiny.gguf");
  const tmp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vramfit-")), "tiny.gguf");
  fs.writeFileSync(tmp, bytes);
  const native = JSON.parse(cli("infer", "--json", "-g", "rtx-4090", "--cmd", `llama-server -m ${tmp} -md ${tmp} -ngld 99 -ctkd q8_0 -c 8192`));
  assert.deepEqual(report.engine.draft, native.engine.draft, "the draft's buffers and lines, as the CLI's");
  assert.equal(report.engine.gpus[0].use_bytes, native.engine.gpus[0].use_bytes);
  assert.ok(report.engine.gpus[0].draft_bytes > 0);
});

test("a LoRA adapter (llama.cpp's --lora): readModelFile gives its pairs; estimate() places them as the CLI does", async () => {
  const model = Buffer.concat([ggufBytes({ tokens: 2000 }), Buffer.alloc(4096)]);
  const adapter = loraGgufBytes({ layers: 2, hidden: 256, rank: 8 });
  const readModel = await vramfit.readModelFile(new File([model], "tiny.gguf"));
  const readLora = await vramfit.readModelFile(new File([adapter], "tiny-lora.gguf"));
  assert.equal(readLora.error, undefined, JSON.stringify(readLora.error));
  const lora = readLora["llama.cpp"].lora[0];
  assert.equal(lora.rank, 8);
  assert.deepEqual(lora.layers, [8192, 8192], "(256 x 8 + 8 x 256) x 2 B per layer");
  const report = vramfit.estimate({ ...readModel, engine: "llama.cpp", ...readLora, gpu: { id: "rtx-4090" } });
  assert.equal(report.error, undefined, JSON.stringify(report.error));
  assert.equal(report.engine.gpus[0].lora_bytes, 16384);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vramfit-"));
  fs.writeFileSync(path.join(dir, "tiny.gguf"), model);
  fs.writeFileSync(path.join(dir, "tiny-lora.gguf"), adapter);
  const native = JSON.parse(cli("infer", "--json", "-g", "rtx-4090", "--cmd",
                                `llama-server -m ${path.join(dir, "tiny.gguf")} --lora ${path.join(dir, "tiny-lora.gguf")}`));
  assert.deepEqual(report.engine.log_lines, native.engine.log_lines);
  assert.ok(report.engine.log_lines.some(l => /^llama_adapter_lora_init_impl: CUDA0 LoRA buffer size = +0\.02 MiB$/.test(l)));
  // A multimodal projector (--mmproj) reads the same way, into "llama.cpp": {"mmproj": ...}.
  const readMmproj = await vramfit.readModelFile(new File([mmprojGgufBytes()], "mmproj-f16.gguf"));
  assert.equal(readMmproj.error, undefined, JSON.stringify(readMmproj.error));
  assert.equal(readMmproj["llama.cpp"].mmproj.weight_bytes, 1024 * 4096 * 2);
  const withMmproj = vramfit.estimate({ ...readModel, engine: "llama.cpp", ...readMmproj, gpu: { id: "rtx-4090" } });
  assert.equal(withMmproj.engine.gpus[0].mmproj_bytes, 1024 * 4096 * 2 + 576 * 4 * (5 * 1024 + 2 * 4096));
});

test("llama.cpp keeps a hybrid's recurrent states in RS buffers: the public Qwen3.5 0.8B log's KV, RS and output lines, as the CLI prints them", () => {
  const points = JSON.parse(fs.readFileSync(path.join(root, "validation/engines/llamacpp.json"), "utf8")).points;
  const point = points.find((p) => p.id === "qwen35-0.8b-q4km-cpu-ctx262144-np4");
  const report = vramfit.estimate(point.request);
  assert.equal(report.error, undefined, JSON.stringify(report.error));
  assert.equal(report.engine.host.kv_bytes, 3072 * 1024 * 1024);
  assert.equal(report.engine.host.rs_bytes, 18 * 4 * (3 * 6144 + 16 * 128 * 128) * 4);
  for (const line of ["llama_kv_cache: CPU KV buffer size =  3072.00 MiB", "llama_memory_recurrent: CPU RS buffer size =    77.06 MiB"]) {
    assert.ok(report.engine.log_lines.includes(line), line);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vramfit-"));
  fs.writeFileSync(path.join(dir, "config.json"), JSON.stringify(point.request.model.config));
  const native = JSON.parse(cli("infer", "--json", "-g", "rtx-4090", "--config", path.join(dir, "config.json"), "-w", "gguf-q4_k_m",
                                "--engine", "llama.cpp", "-c", "262144", "-np", "4", "-ngl", "0"));
  assert.deepEqual(report.engine.log_lines, native.engine.log_lines);
});

test("readModelFile() reports bad files as errors", async () => {
  const garbage = await vramfit.readModelFile(new File([Buffer.from("not a gguf at all")], "x.gguf"));
  assert.equal(garbage.error.id, "gguf.bad_magic");
  const cut = await vramfit.readModelFile(new File([ggufBytes({}).subarray(0, 300)], "cut.gguf"));
  assert.equal(cut.error.id, "gguf.truncated");
  const other = await vramfit.readModelFile(new File([Buffer.from("x")], "notes.txt"));
  assert.equal(other.error.id, "file.unknown_kind");
  const header = Buffer.from(JSON.stringify({ w: { dtype: "F32", shape: [2], data_offsets: [0, 9] } }));
  const len = Buffer.alloc(8); len.writeBigUInt64LE(BigInt(header.length));
  const st = await vramfit.readModelFile(new File([len, header, Buffer.alloc(9)], "m.safetensors"));
  assert.equal(st.error.id, "safetensors.bad_offsets");
});

test("readModelFile() takes a config.json and its quantization_config", async () => {
  const text = fs.readFileSync(path.join(root, "tests/fixtures/configs/mistral-7b-instruct-gptq.json"));
  const read = await vramfit.readModelFile(new File([text], "config.json"));
  assert.equal(read.weights.format, "gptq-int4");
  assert.equal(read.weights.group_size, 32);
  const report = vramfit.estimate({ model: read.model, weights: read.weights });
  assert.equal(report.error, undefined);
  assert.equal(report.model.parameters, 7248023552);
});

test("readCommand(): a pasted llama-server or vllm serve line as request fields, then estimate()", () => {
  const vllm = vramfit.readCommand("vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 2 --max-model-len 32k --port 8000");
  assert.equal(vllm.fields.engine, "vllm");
  assert.equal(vllm.fields.vllm["tensor-parallel-size"], 2);
  assert.equal(vllm.fields.vllm["max-model-len"], 32000, "32k is vLLM's 32,000");
  assert.deepEqual(vllm.fields.model, { preset: "llama-3.1-8b" });
  assert.ok(vllm.notes.some(n => n.includes("--port 8000 does not change memory")));
  const report = vramfit.estimate({ ...vllm.fields, gpu: { id: "h100-80" } });
  assert.equal(report.engine.name, "vllm");
  assert.equal(report.engine.ranks.length, 2);
  const native = JSON.parse(cli("infer", "--json", "-g", "h100-80", "--cmd",
                                "vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 2 --max-model-len 32k --port 8000"));
  assert.equal(report.engine.kv_tokens, native.engine.kv_tokens, "the same answer as the CLI's --cmd");
  // LoRA slots (--enable-lora): counted in vLLM's "Model loading took", the same as the CLI.
  const lora = vramfit.readCommand("vllm serve meta-llama/Llama-3.1-8B-Instruct --enable-lora --max-loras 4 --max-lora-rank 64");
  const withLora = vramfit.estimate({ ...lora.fields, gpu: { id: "h100-80" } });
  assert.equal(withLora.engine.ranks[0].lora_bytes, 1342177280);
  const nativeLora = JSON.parse(cli("infer", "--json", "-g", "h100-80", "--cmd",
                                    "vllm serve meta-llama/Llama-3.1-8B-Instruct --enable-lora --max-loras 4 --max-lora-rank 64"));
  assert.equal(withLora.engine.ranks[0].weights_bytes, nativeLora.engine.ranks[0].weights_bytes);
  const llama = vramfit.readCommand("llama-server -m model.gguf -c 16384 -ngl 20 -fa on -ctk q8_0");
  assert.equal(llama.fields.engine, "llama.cpp");
  assert.equal(llama.fields["llama.cpp"]["n-gpu-layers"], 20);
  assert.equal(llama.model_file, "model.gguf");
  const unknown = vramfit.readCommand("llama-server --no-such-flag 3");
  assert.equal(unknown.error.field, "command.--no-such-flag", "the field names the flag");
  assert.match(unknown.error.message, /--no-such-flag/);
});

test("configs of GPT-2, GPT-BigCode, GPT-J, phi, BERT, Mamba, RWKV, T5, BART, GPT-Neo, Whisper and the vision and audio models give their counts; an unknown model_type is an error naming it", async () => {
  const counts = { "gpt2.json": 124439808, "starcoder.json": 15517456384, "gpt-j-6b.json": 6050882784, "phi-2.json": 2779683840,
                   "bert-large-uncased.json": 335141888, "mamba-130m-hf.json": 129135360, "rwkv-4-169m-pile.json": 169342464,
                   "t5-small.json": 60506624, "bart-large.json": 406291456, "gpt-neo-1.3B.json": 1315575808,
                   "jamba-v0.1.json": 51570323328, "qwen3-next-80b-a3b-instruct.json": 79674391296,
                   "llama-4-scout-17b-16e-instruct.json": 108641793536, "llama-4-maverick-17b-128e-instruct.json": 401583781376,
                   // Qwen3.6-35B-A3B: the Hub's 35,951,822,704 less its MTP layer (844,640,768), counted apart.
                   "qwen3.6-35b-a3b.json": 35951822704 - 844640768 };
  for (const [file, parameters] of Object.entries(counts)) {
    const config = JSON.parse(fs.readFileSync(path.join(root, "tests/fixtures/configs", file), "utf8"));
    const report = vramfit.estimate({ model: { config } });
    assert.equal(report.error, undefined, file);
    assert.equal(report.model.parameters, parameters, file);
    // The same through the page's file path (readModelFile), as the page reads a dropped config.
    const read = await vramfit.readModelFile(new File([JSON.stringify(config)], "config.json"));
    assert.equal(vramfit.estimate({ model: read.model }).model.parameters, parameters, file + " (readModelFile)");
  }
  // Llama 4: 12 full-attention layers hold the context, the 36 chunked ones one 8,192-token chunk.
  const scoutConfig = JSON.parse(fs.readFileSync(path.join(root, "tests/fixtures/configs/llama-4-scout-17b-16e-instruct.json"), "utf8"));
  const scout = vramfit.estimate({ model: { config: scoutConfig }, context_tokens: 65536, kv_cache: { dtype: "fp16" } });
  assert.equal(vramfit.estimate({ model: { preset: "llama-4-scout" } }).model.parameters, 108641793536);
  const scoutKv = scout.breakdown.items.find((i) => i.id === "kv_cache");
  assert.equal(scoutKv.bytes, 2 * 8 * 128 * 2 * (12 * 65536 + 36 * 8192));
  assert.ok(scout.breakdown.assumptions.some((a) => a.startsWith("attention_chunk_size 8192: the 36 chunked-attention layers")),
            "the chunking is said");
  const bert = vramfit.estimate({ model: { config: JSON.parse(fs.readFileSync(path.join(root, "tests/fixtures/configs/bert-large-uncased.json"), "utf8")) } });
  assert.equal(bert.model.kv_bytes_per_token, 0);  // an encoder caches nothing
  // Mamba: no KV cache, a fixed state per sequence (24 layers x (3 + 16) x 1,536 x 4 B), the same at any context.
  const mambaConfig = JSON.parse(fs.readFileSync(path.join(root, "tests/fixtures/configs/mamba-130m-hf.json"), "utf8"));
  for (const context_tokens of [1024, 65536]) {
    const mamba = vramfit.estimate({ model: { config: mambaConfig }, context_tokens, concurrent_sequences: 2 });
    assert.equal(mamba.model.kv_bytes_per_token, 0);
    assert.equal(mamba.model.state_bytes_per_sequence, 24 * 19 * 1536 * 4);
    assert.equal(mamba.breakdown.items.find((i) => i.id === "kv_cache").bytes, 2 * 24 * 19 * 1536 * 4);
  }
  // Multimodal: the vision tower and projector are counted; the encoder's pass over one image
  // (Gemma 3: 64 x 64 patches; without flash attention its fp32 scores) is in the compute buffer.
  const gemma = vramfit.estimate({ model: { preset: "gemma-3-4b-it" }, overhead: { flash_attention: false } });
  assert.equal(gemma.model.parameters, 4300079472);
  const find = (items, id) => items.flatMap((i) => [i, ...(i.children ? find(i.children, id) : [])]).filter((i) => i.id === id);
  const vision = find(gemma.breakdown.items, "overhead.compute.vision")[0];
  assert.equal(vision.bytes, 4096 * 2 * (5 * 1152 + 2 * 4304) + 4096 * 4096 * 16 * 4);
  for (const [preset, parameters] of [["qwen2.5-vl-7b", 8292166656], ["llava-1.5-7b", 7063427072], ["llama-3.2-11b-vision", 10670220835],
                                   ["qwen2-audio-7b", 8397094912], ["whisper-large-v3", 1543490560]]) {
    assert.equal(vramfit.estimate({ model: { preset } }).model.parameters, parameters, preset);
  }
  // Llama 3.2 Vision, LLaVA-NeXT (CLIP; SigLIP in Granite Vision), Pixtral (under llava and Mistral 3) and Idefics3 from their configs, dropped as the page
  // drops them; Llama 3.2 Vision's 8 cross-attention layers hold one image's 4 x 1,601 tokens.
  const towers = { "llama-3.2-11b-vision-instruct.json": 10670220835, "llava-v1.6-mistral-7b-hf.json": 7566747648,
                   "pixtral-12b.json": 12682739712, "idefics3-8b-llama3.json": 8462086384,
                   "whisper-large-v3.json": 1543490560, "qwen2-audio-7b-instruct.json": 8397094912,
                   "mistral-small-3.1-24b-instruct-2503.json": 24011361280, "smolvlm-256m-instruct.json": 256484928,
                   "granite-vision-3.3-2b.json": 2975396928 };
  for (const [file, parameters] of Object.entries(towers)) {
    const read = await vramfit.readModelFile(new File([fs.readFileSync(path.join(root, "tests/fixtures/configs", file))], "config.json"));
    const report = vramfit.estimate({ model: read.model, context_tokens: 8192 });
    assert.equal(report.model.parameters, parameters, file);
  }
  // Qwen2-Audio: the audio encoder's pass over one 30 s clip (1,500 positions of Whisper-large-v3's
  // encoder) is in the compute buffer, named as audio.
  const qwenAudio = vramfit.estimate({ model: { config: JSON.parse(fs.readFileSync(path.join(root, "tests/fixtures/configs/qwen2-audio-7b-instruct.json"), "utf8")) },
                                     context_tokens: 4096 });
  const audio = find(qwenAudio.breakdown.items, "overhead.compute.vision")[0];
  assert.equal(audio.label, "Audio encoder");
  assert.equal(audio.bytes, 1500 * 2 * (5 * 1280 + 2 * 5120));
  assert.match(audio.formula, /^1,500 positions x 2 B/);
  const mllama = vramfit.estimate({ model: { preset: "llama-3.2-11b-vision" }, context_tokens: 8192 });
  assert.equal(find(mllama.breakdown.items, "kv_cache.cross")[0].bytes, 8 * 4 * 1601 * 2 * 8 * 128 * 2);
  assert.equal(find(mllama.breakdown.items, "kv_cache.full")[0].bytes, 32 * 8192 * 2 * 8 * 128 * 2);
  const refused = vramfit.estimate({ model: { preset: "llama-3.2-11b-vision" }, engine: "vllm" });
  assert.match(refused.error.message, /cross-attention to the image's tiles/);
  const mpt = vramfit.estimate({ model: { config: { model_type: "mpt", d_model: 4096, n_layers: 32, n_heads: 32, vocab_size: 50432 } } });
  assert.equal(mpt.error.id, "config.unknown_architecture");
  assert.equal(mpt.error.field, "model.config.model_type");
  assert.match(mpt.error.message, /n_heads, n_layers/);
});

test("training frameworks' requests: estimate() answers Megatron-LM, DeepSpeed, torchtune and LLaMA-Factory as `vramfit train --request` does", () => {
  const megatron = {
    mode: "training", model: { preset: "llama-2-7b" }, gpu: { id: "h100-80" }, gpu_count: 8,
    training: {
      framework: "megatron",
      megatron: {
        "tensor-model-parallel-size": 2, "pipeline-model-parallel-size": 2, "sequence-parallel": true,
        "use-distributed-optimizer": true, "recompute-granularity": "selective", "micro-batch-size": 1,
        "global-batch-size": 64, "seq-length": 4096,
      },
    },
  };
  // A ds_config with "auto" values, as the Trainer's examples write it, over two nodes of 4 GPUs.
  const deepspeed = {
    mode: "training", model: { preset: "llama-2-13b" }, gpu: { id: "a100-80" }, gpu_count: 8,
    training: {
      micro_batch: 2, sequence_length: 2048, recipe: "mixed_bf16", framework: "deepspeed",
      deepspeed: {
        config: { bf16: { enabled: "auto" }, train_micro_batch_size_per_gpu: "auto",
                  zero_optimization: { stage: 3, offload_optimizer: { device: "cpu" }, reduce_bucket_size: "auto" } },
        nodes: 2, version: "0.14.2",
      },
    },
  };
  const torchtune = {
    mode: "training", model: { preset: "llama-3.1-8b" }, gpu: { id: "rtx-4090" },
    training: { framework: "torchtune", torchtune: { command: "tune run lora_finetune_single_device --config llama3_1/8B_qlora_single_device " +
                                                     "model._component_=torchtune.models.llama3_1.qlora_llama3_1_8b batch_size=2" } },
  };
  // LLaMA-Factory's LoRA config of a public run (Qwen2.5-0.5B-Instruct, lora_target: all).
  const llamafactory = {
    mode: "training", model: { preset: "qwen2.5-0.5b" }, gpu: { id: "rtx-4090" },
    training: { framework: "llamafactory", llamafactory: { config: { stage: "sft", finetuning_type: "lora", lora_target: "all",
                                                                     cutoff_len: 1024, per_device_train_batch_size: 1, bf16: true } } },
  };
  const native = {};
  for (const [name, request] of Object.entries({ megatron, deepspeed, torchtune, llamafactory })) {
    const file = path.join(os.tmpdir(), `vramfit-${name}-${process.pid}.json`);
    fs.writeFileSync(file, JSON.stringify(request));
    native[name] = JSON.parse(cli("train", "--request", file, "--json"));
    fs.unlinkSync(file);
    assert.deepEqual(vramfit.estimate(request), native[name], name);
    // The answer's request, run again, gives the same answer.
    assert.deepEqual(vramfit.estimate(native[name].request), native[name], name);
  }
  // Megatron's estimator printed this for the first stage (tests/fixtures/megatron).
  const figures = JSON.parse(fs.readFileSync(path.join(root, "tests/fixtures/megatron/theoretical_memory.json"), "utf8"));
  const expected = figures.configurations.find(c => c.name === "llama2-7b-tp2-pp2");
  assert.equal(native.megatron.megatron.ranks[0].printed, expected.printed);
  assert.deepEqual(native.megatron.megatron.ranks.map(r => r.stage), ["first", "last"]);
  assert.equal(native.deepspeed.deepspeed.nodes, 2);
  assert.equal(native.deepspeed.deepspeed.gpus_per_node, 4);
  assert.equal(native.deepspeed.deepspeed.offload_optimizer, "cpu");
  assert.equal(native.deepspeed.deepspeed.version, "0.14.2");
  assert.equal(native.torchtune.torchtune.recipe, "lora_finetune_single_device");
  assert.equal(native.llamafactory.llamafactory.printed, "trainable params: 4,399,104 || all params: 498,431,872 || trainable%: 0.8826");
  // Their mistakes name the request's field.
  const sharded = vramfit.estimate({ ...deepspeed, training: { ...deepspeed.training, sharding: "zero2" } });
  assert.equal(sharded.error.field, "training.sharding");
  const stage = vramfit.estimate({ ...deepspeed, training: { ...deepspeed.training,
    deepspeed: { config: { zero_optimization: { stage: 4 } } } } });
  assert.equal(stage.error.field, "training.deepspeed.config.zero_optimization.stage");
  const nodes = vramfit.estimate({ ...deepspeed, training: { ...deepspeed.training, deepspeed: { ...deepspeed.training.deepspeed, nodes: 3 } } });
  assert.equal(nodes.error.field, "training.deepspeed.nodes");
  const recipe = vramfit.estimate({ ...torchtune, training: { framework: "torchtune", torchtune: { command: "tune run nonsense_recipe" } } });
  assert.equal(recipe.error.field, "training.torchtune.command");
  const module = vramfit.estimate({ ...llamafactory, training: { framework: "llamafactory",
    llamafactory: { config: { ...llamafactory.training.llamafactory.config, lora_target: "attn" } } } });
  assert.equal(module.error.field, "training.llamafactory.config.lora_target");
});
