// A GGUF v3 header written byte by byte in llama.cpp's tensor names and ggml type numbers
// (Q8_0 8, Q4_K 12, Q6_K 14, F32 0), for the JavaScript API and page tests. Tensor data is
// not written: `offset` steps 1 MiB per tensor, so a file of the header alone is "cut".
// `type` (a ggml type number), when given, types every layer matrix (a Q8_0 file: 8).
// `split` ({no, count, from, to}) writes one part of a split file as llama.cpp's gguf-split
// does (examples/gguf-split): split.no, split.count and split.tensors.count in every part,
// the model's keys in the first only, tensors from..to-1 (offsets from 0 in each part).
export function ggufBytes({ layers = 2, hidden = 256, tokens = 20000, type = 0, split = null }) {
  const parts = [];
  const u32 = v => { const b = Buffer.alloc(4); b.writeUInt32LE(v); parts.push(b); };
  const u64 = v => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); parts.push(b); };
  const str = s => { u64(Buffer.byteLength(s)); parts.push(Buffer.from(s)); };
  const tensors = [["token_embd.weight", [hidden, 1000], 8], ["output_norm.weight", [hidden], 0]];
  for (let i = 0; i < layers; i++) {
    const t = (k_quant) => type || k_quant;
    for (const n of ["attn_q", "attn_output", "ffn_gate", "ffn_up"]) tensors.push([`blk.${i}.${n}.weight`, [hidden, hidden], t(12)]);
    tensors.push([`blk.${i}.attn_k.weight`, [hidden, 64], t(12)], [`blk.${i}.attn_v.weight`, [hidden, 64], t(14)]);
    tensors.push([`blk.${i}.ffn_down.weight`, [hidden, hidden], t(14)], [`blk.${i}.attn_norm.weight`, [hidden], 0]);
  }
  const written = split ? tensors.slice(split.from, split.to) : tensors;
  const first = !split || split.no === 0;
  u32(0x46554747); u32(3); u64(written.length); u64((first ? 8 : 0) + (split ? 3 : 0));
  const kv = (k, v) => { str(k); u32(4); u32(v); };
  if (first) {
    str("general.architecture"); u32(8); str("llama");
    kv("llama.block_count", layers); kv("llama.embedding_length", hidden); kv("llama.attention.head_count", 4);
    kv("llama.attention.head_count_kv", 1); kv("llama.feed_forward_length", hidden); kv("llama.context_length", 4096);
    str("tokenizer.ggml.tokens"); u32(9); u32(8); u64(tokens);
    for (let i = 0; i < tokens; i++) str("token-" + i);
  }
  if (split) {
    const u16 = v => { const b = Buffer.alloc(2); b.writeUInt16LE(v); parts.push(b); };
    str("split.no"); u32(2); u16(split.no);
    str("split.count"); u32(2); u16(split.count);
    str("split.tensors.count"); u32(5); u32(tensors.length);
  }
  let offset = 0;
  for (const [name, dims, type] of written) {
    str(name); u32(dims.length); dims.forEach(u64); u32(type); u64(offset); offset += 1 << 20;
  }
  return Buffer.concat(parts);
}

// A LoRA adapter GGUF (general.type "adapter", adapter.type "lora") for ggufBytes' model: an F16
// A (hidden x rank) and B (rank x hidden) pair for attn_q of every layer.
export function loraGgufBytes({ layers = 2, hidden = 256, rank = 8 }) {
  const parts = [];
  const u32 = v => { const b = Buffer.alloc(4); b.writeUInt32LE(v); parts.push(b); };
  const u64 = v => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); parts.push(b); };
  const str = s => { u64(Buffer.byteLength(s)); parts.push(Buffer.from(s)); };
  const tensors = [];
  for (let i = 0; i < layers; i++) {
    tensors.push([`blk.${i}.attn_q.weight.lora_a`, [hidden, rank]], [`blk.${i}.attn_q.weight.lora_b`, [rank, hidden]]);
  }
  u32(0x46554747); u32(3); u64(tensors.length); u64(3);
  for (const [k, v] of [["general.architecture", "llama"], ["general.type", "adapter"], ["adapter.type", "lora"]]) {
    str(k); u32(8); str(v);
  }
  let offset = 0;
  for (const [name, dims] of tensors) { str(name); u32(2); dims.forEach(u64); u32(1); u64(offset); offset += dims[0] * dims[1] * 2; }
  return Buffer.concat(parts);
}

// A multimodal projector GGUF (general.architecture "clip") with LLaVA-1.5's vision sizes (336 px,
// 14 px patches, 1024 wide, 4096 MLP, 16 heads) and one F16 tensor of 1024 x 4096.
export function mmprojGgufBytes() {
  const parts = [];
  const u32 = v => { const b = Buffer.alloc(4); b.writeUInt32LE(v); parts.push(b); };
  const u64 = v => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); parts.push(b); };
  const str = s => { u64(Buffer.byteLength(s)); parts.push(Buffer.from(s)); };
  u32(0x46554747); u32(3); u64(1); u64(7);
  str("general.architecture"); u32(8); str("clip");
  str("clip.projector_type"); u32(8); str("mlp");
  for (const [k, v] of [["image_size", 336], ["patch_size", 14], ["embedding_length", 1024], ["feed_forward_length", 4096],
                        ["attention.head_count", 16]]) { str("clip.vision." + k); u32(4); u32(v); }
  str("mm.0.weight"); u32(2); u64(1024); u64(4096); u32(1); u64(0);
  return Buffer.concat(parts);
}
