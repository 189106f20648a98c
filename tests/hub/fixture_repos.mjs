// The repositories the local Hub serves (hub_server.mjs), written to a folder as the Hub stores
// them: real config.json files (tests/fixtures/configs), safetensors and GGUF headers at the
// start of files as large as the real ones (sparse: the tensor data reads as zeros and takes no
// disk), LFS-sized files, a gated repository, a renamed one and the fault repositories.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ggufBytes, mmprojGgufBytes } from "../support/gguf_bytes.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const configs = path.join(here, "..", "fixtures", "configs");

// A safetensors file's first bytes: the 8-byte header length and the JSON header, tensors laid
// out in order; returns the header and the file's full size.
export function safetensorsHeader(tensors, dtype = "BF16", elementBytes = 2) {
  const header = { __metadata__: { format: "pt" } };
  let offset = 0;
  for (const [name, shape] of tensors) {
    const bytes = shape.reduce((a, b) => a * b, 1) * elementBytes;
    header[name] = { dtype, shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  const bytes = Buffer.concat([length, json]);
  return { bytes, size: bytes.length + offset };
}

// Llama's tensors as transformers names them (modeling_llama.py), from a config.json.
export function llamaTensors(config) {
  const h = config.hidden_size, heads = config.num_attention_heads, kv = config.num_key_value_heads;
  const d = config.head_dim || h / heads, ffn = config.intermediate_size, vocab = config.vocab_size;
  const out = [["model.embed_tokens.weight", [vocab, h]]];
  for (let i = 0; i < config.num_hidden_layers; i++) {
    const l = `model.layers.${i}.`;
    out.push([l + "input_layernorm.weight", [h]], [l + "mlp.down_proj.weight", [h, ffn]], [l + "mlp.gate_proj.weight", [ffn, h]],
             [l + "mlp.up_proj.weight", [ffn, h]], [l + "post_attention_layernorm.weight", [h]],
             [l + "self_attn.k_proj.weight", [kv * d, h]], [l + "self_attn.o_proj.weight", [h, heads * d]],
             [l + "self_attn.q_proj.weight", [heads * d, h]], [l + "self_attn.v_proj.weight", [kv * d, h]]);
  }
  out.push(["model.norm.weight", [h]]);
  if (!config.tie_word_embeddings) out.push(["lm_head.weight", [vocab, h]]);
  return out;
}

function writeSparse(file, bytes, size) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, bytes);
  fs.truncateSync(file, size);
}

function writeText(file, text) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

// Shards of about `shardBytes` each, named as transformers' save_pretrained names them, with
// model.safetensors.index.json.
function writeShardedSafetensors(dir, tensors, shardBytes) {
  const groups = [[]];
  let bytes = 0;
  for (const t of tensors) {
    const size = t[1].reduce((a, b) => a * b, 1) * 2;
    if (bytes + size > shardBytes && groups[groups.length - 1].length) { groups.push([]); bytes = 0; }
    groups[groups.length - 1].push(t);
    bytes += size;
  }
  const n = String(groups.length).padStart(5, "0");
  const weightMap = {};
  let total = 0;
  const shards = groups.map((group, i) => {
    const name = `model-${String(i + 1).padStart(5, "0")}-of-${n}.safetensors`;
    const { bytes: header, size } = safetensorsHeader(group);
    writeSparse(path.join(dir, name), header, size);
    for (const [t] of group) weightMap[t] = name;
    total += size - header.length;
    return name;
  });
  writeText(path.join(dir, "model.safetensors.index.json"),
            JSON.stringify({ metadata: { total_size: total }, weight_map: weightMap }, null, 2));
  return shards;
}

function writeGguf(file, options) {
  const header = ggufBytes(options);
  const tensors = options.split ? options.split.to - options.split.from : 2 + 8 * options.layers;
  writeSparse(file, header, header.length + 32 + tensors * (1 << 20));
}

export function writeFixtureRepos(root) {
  const repo = (...p) => path.join(root, ...p);
  // Llama 3.1 70B Instruct: its config.json, bf16 shards of ~4.7 GB (31 here; 141 GB in all), gated.
  const llama = JSON.parse(fs.readFileSync(path.join(configs, "llama-3.1-70b-instruct.json"), "utf8"));
  const llamaDir = repo("meta-llama", "Llama-3.1-70B-Instruct");
  fs.copyFileSync(path.join(configs, "llama-3.1-70b-instruct.json"), (fs.mkdirSync(llamaDir, { recursive: true }), path.join(llamaDir, "config.json")));
  writeText(path.join(llamaDir, "generation_config.json"), JSON.stringify({ bos_token_id: 128000, do_sample: true, temperature: 0.6 }));
  writeText(path.join(llamaDir, "README.md"), "# Llama 3.1 70B Instruct (a test fixture: headers only)\n");
  writeText(path.join(llamaDir, "LICENSE"), "LLAMA 3.1 COMMUNITY LICENSE AGREEMENT (fixture)\n");
  writeText(path.join(llamaDir, "tokenizer.json"), JSON.stringify({ version: "1.0", model: { type: "BPE" } }));
  writeText(path.join(llamaDir, ".gated"), "manual\n");
  const llamaShards = writeShardedSafetensors(llamaDir, llamaTensors(llama), 4.7e9);

  // A GGUF repository with two quantizations and a projector, as unsloth's and bartowski's come;
  // 100,000 tokens make the header longer than the first 1 MiB read.
  const gguf = repo("org", "Tiny-GGUF");
  writeGguf(path.join(gguf, "Tiny-Q4_K_M.gguf"), { layers: 4, hidden: 256, tokens: 100000 });
  writeGguf(path.join(gguf, "Tiny-Q8_0.gguf"), { layers: 4, hidden: 256, tokens: 100000, type: 8 });
  const mmproj = mmprojGgufBytes();
  writeSparse(path.join(gguf, "mmproj-Tiny-F16.gguf"), mmproj, mmproj.length + 1024 * 4096 * 2 + 32);
  writeText(path.join(gguf, "README.md"), "# Tiny GGUF\n");

  // The same Q4_K_M model split in two, as llama.cpp's gguf-split writes it.
  const split = repo("org", "Tiny-GGUF-split");
  for (const [no, from, to] of [[0, 0, 20], [1, 20, 34]]) {
    writeGguf(path.join(split, `Tiny-Q4_K_M-0000${no + 1}-of-00002.gguf`),
              { layers: 4, hidden: 256, tokens: 100000, split: { no, count: 2, from, to } });
  }

  // A legacy one-part id with only pytorch_model.bin (GPT-2's config.json).
  const gpt2 = repo("gpt2");
  fs.mkdirSync(gpt2, { recursive: true });
  fs.copyFileSync(path.join(configs, "gpt2.json"), path.join(gpt2, "config.json"));
  writeSparse(path.join(gpt2, "pytorch_model.bin"), Buffer.from("PK"), 548118077);

  // A model with remote code (auto_map) and a single model.safetensors.
  const internlm = repo("internlm", "internlm2_5-7b-chat");
  fs.mkdirSync(internlm, { recursive: true });
  fs.copyFileSync(path.join(configs, "internlm2_5-7b-chat.json"), path.join(internlm, "config.json"));

  // An architecture vramfit does not know, config.json alone (refused, as a local config.json is).
  writeText(repo("org", "Mystery-LM", "config.json"),
            JSON.stringify({ architectures: ["MysteryForCausalLM"], model_type: "mystery_lm", hidden_size: 4096,
                             num_hidden_layers: 32, num_attention_heads: 32, vocab_size: 32000 }));
  writeText(repo("org", "Mystery-LM", "pytorch_model.bin"), "PK");

  // A renamed repository: the old id answers 307 to the new one.
  writeText(repo("org", "Old-Name", ".moved"), "org/Tiny-GGUF\n");

  // A LoRA adapter of the gated 70B, as PEFT's save_pretrained writes it (adapter_config.json,
  // adapter_model.safetensors; no config.json): rank 12 on the attention projections.
  const lora = repo("org", "Llama-70B-LoRA");
  writeText(path.join(lora, "adapter_config.json"),
            JSON.stringify({ peft_type: "LORA", task_type: "CAUSAL_LM", base_model_name_or_path: "meta-llama/Llama-3.1-70B-Instruct",
                             r: 12, lora_alpha: 24, lora_dropout: 0.05, target_modules: ["q_proj", "k_proj", "v_proj", "o_proj"] }, null, 2));
  writeSparse(path.join(lora, "adapter_model.safetensors"), safetensorsHeader([]).bytes, 131072000);
  writeText(path.join(lora, "README.md"), "# A LoRA adapter (fixture)\n");
  // Not a LoRA (prefix tuning), and a LoRA whose base is a local path.
  writeText(repo("org", "Prefix-Adapter", "adapter_config.json"),
            JSON.stringify({ peft_type: "PREFIX_TUNING", base_model_name_or_path: "gpt2", num_virtual_tokens: 20 }));
  writeText(repo("org", "Local-Base-LoRA", "adapter_config.json"),
            JSON.stringify({ peft_type: "LORA", base_model_name_or_path: "/home/me/llama", r: 8, target_modules: "all-linear" }));

  for (const fault of ["rate-limited", "html", "cut", "slow", "loop", "no-range"]) {
    writeGguf(repo("fault", fault, "Tiny-Q4_K_M.gguf"), { layers: 4, hidden: 256, tokens: 100000 });
  }
  return { llamaDir, llamaShards, gguf, gpt2, internlm };
}
