// vramfit's GGUF reader against an independently written one: the npm package @huggingface/gguf
// (huggingface.js) parses each GGUF fixture, from the file and over HTTP ranges from the local
// Hub of tests/hub, and its tensors (names, ggml types, shapes) and metadata must give what
// vramfit's reader reports: tensors, elements and bytes per ggml type, parameters, the keys read.
// The C++ tests' own GGUF files (the published-list writer, the hand-written Llama 3.2 1B, the
// LoRA and mmproj writers) are written by the native suite's hidden [.gguf-dump] case and parsed
// here too: every tensor's name, ggml type, shape and data offset as vramfit's reader gave them.
// Bytes per type come from ggml's own block sizes (ggml.c type_traits), written out here, not
// from vramfit's tables. The quantization names the Hub reading gives its GGUF files equal
// huggingface.js's parseGGUFQuantLabel.
//   node --test tests/js/    (after the web build)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gguf, GGMLQuantizationType, parseGGUFQuantLabel } from "@huggingface/gguf";
import { ggufBytes, loraGgufBytes, mmprojGgufBytes } from "../support/gguf_bytes.mjs";
import { startHub } from "../hub/hub_server.mjs";
import { writeFixtureRepos } from "../hub/fixture_repos.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const require = createRequire(import.meta.url);
const createVramfit = require(path.join(root, "build/web/vramfit_estimator.js"));
const { wrap } = require(path.join(root, "web/vramfit-api.js"));
const vramfit = wrap(await createVramfit({ wasmBinary: fs.readFileSync(path.join(root, "build/web/vramfit_estimator.wasm")) }));

// ggml.c type_traits: [elements per block, bytes per block].
const BLOCKS = { F32: [1, 4], F16: [1, 2], Q8_0: [32, 34], Q4_K: [256, 144], Q6_K: [256, 210] };
let dir, hub;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "vramfit-gguf-oracle-"));
  writeFixtureRepos(path.join(dir, "repos"));
  hub = await startHub({ root: path.join(dir, "repos"), token: "unused" });
});

after(async () => {
  await hub.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// Tensors, elements and bytes per ggml type from huggingface.js's tensor infos.
function byTypeFrom(tensorInfos) {
  const types = {};
  for (const t of tensorInfos) {
    const name = GGMLQuantizationType[t.dtype];
    const [perBlock, blockBytes] = BLOCKS[name];
    const elements = t.shape.reduce((a, b) => a * Number(b), 1);
    const row = Number(t.shape[0]);
    assert.equal(row % perBlock, 0, `${t.name}: rows of ${row} in blocks of ${perBlock}`);
    const entry = (types[name.toLowerCase()] ??= { tensors: 0, elements: 0, bytes: 0 });
    entry.tensors += 1;
    entry.elements += elements;
    entry.bytes += (elements / perBlock) * blockBytes;
  }
  return types;
}

function byTypeOf(read) {
  return Object.fromEntries(read.weights.stored.by_type.map(t => [t.type, { tensors: t.tensors, elements: t.elements, bytes: t.bytes }]));
}

const fixtures = [
  ["the JS API tests' GGUF", { tokens: 2000 }],
  ["every matrix Q8_0", { layers: 3, hidden: 512, tokens: 500, type: 8 }],
  ["a 2 MB tokenizer", { layers: 4, hidden: 256, tokens: 100000 }],
];

test("each GGUF fixture: huggingface.js's tensors and keys give what vramfit reads", async () => {
  for (const [label, options] of fixtures) {
    const header = ggufBytes(options);
    const file = path.join(dir, `${label.replaceAll(" ", "-")}.gguf`);
    const tensors = 2 + 8 * (options.layers ?? 2);  // ggufBytes: 8 per layer
    fs.writeFileSync(file, header);
    fs.truncateSync(file, header.length + 32 + tensors * (1 << 20));
    const oracle = await gguf(file, { allowLocalFile: true });
    assert.equal(oracle.tensorInfos.length, tensors, label);
    const read = await vramfit.readModelFile(new File([fs.readFileSync(file)], path.basename(file)));
    assert.equal(read.error, undefined, `${label}: ${JSON.stringify(read.error)}`);
    const expected = byTypeFrom(oracle.tensorInfos);
    assert.deepEqual(byTypeOf(read), expected, label);
    assert.equal(read.weights.stored.parameters, Object.values(expected).reduce((s, t) => s + t.elements, 0), label);
    for (const key of ["llama.block_count", "llama.embedding_length", "llama.attention.head_count", "llama.context_length"]) {
      assert.ok(read.weights.stored.read.includes(`${key} = ${oracle.metadata[key]}`), `${label}: ${key}`);
    }
    assert.equal(read.model.config.num_hidden_layers, Number(oracle.metadata["llama.block_count"]), label);
    assert.equal(read.model.config.hidden_size, Number(oracle.metadata["llama.embedding_length"]), label);
    const embedding = oracle.tensorInfos.find(t => t.name === "token_embd.weight");
    assert.equal(read.model.config.vocab_size, Number(embedding.shape[1]), label);
  }
});

test("over HTTP: huggingface.js reads the local Hub's files by ranges, and vramfit's Hub reading agrees", async () => {
  for (const id of ["org/Tiny-GGUF:Q4_K_M", "org/Tiny-GGUF:Q8_0"]) {
    const read = await vramfit.readHubModel(id, { endpoint: hub.url });
    assert.equal(read.error, undefined, JSON.stringify(read.error));
    const oracle = await gguf(`${hub.url}/org/Tiny-GGUF/resolve/main/${read.hub.file}`);
    assert.deepEqual(byTypeOf(read), byTypeFrom(oracle.tensorInfos), id);
    for (const g of read.hub.ggufs) assert.equal(g.quant, parseGGUFQuantLabel(g.file), g.file);
  }
  // A split file: the parts' tensors together are what vramfit counts.
  const split = await vramfit.readHubModel("org/Tiny-GGUF-split", { endpoint: hub.url });
  assert.equal(split.error, undefined, JSON.stringify(split.error));
  const parts = [];
  for (const part of ["Tiny-Q4_K_M-00001-of-00002.gguf", "Tiny-Q4_K_M-00002-of-00002.gguf"]) {
    parts.push(...(await gguf(`${hub.url}/org/Tiny-GGUF-split/resolve/main/${part}`)).tensorInfos);
  }
  assert.equal(parts.length, 34);
  assert.deepEqual(byTypeOf(split), byTypeFrom(parts));
});

test("every GGUF file the C++ tests write: huggingface.js reads the tensors vramfit's reader read", async () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "vramfit-gguf-dump-"));
  try {
    execFileSync(path.join(root, "build/native/tests/vramfit_tests"), ["[.gguf-dump]"],
                 { env: { ...process.env, VRAMFIT_GGUF_DUMP: folder }, stdio: "pipe" });
    const manifest = JSON.parse(fs.readFileSync(path.join(folder, "manifest.json"), "utf8"));
    assert.ok(manifest.length >= 10, `${manifest.length} files`);
    for (const written of manifest) {
      const file = path.join(folder, written.file);
      const oracle = await gguf(file, { allowLocalFile: true });
      assert.equal(Number(oracle.metadata.version), written.version, written.file);
      assert.equal(Number(oracle.metadata.kv_count), written.keys, `${written.file}: metadata keys`);
      assert.equal(oracle.tensorInfos.length, written.tensors.length, `${written.file}: tensors`);
      oracle.tensorInfos.forEach((t, i) => {
        const mine = written.tensors[i];
        const where = `${written.file}: tensor ${i}`;
        assert.equal(t.name, mine.name, where);
        assert.equal(t.dtype, mine.type, `${where} (${t.name}): ggml type`);
        assert.deepEqual(t.shape.map(Number), mine.shape, `${where} (${t.name}): shape`);
        assert.equal(Number(t.offset), mine.offset, `${where} (${t.name}): data offset`);
      });
    }
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
});

test("the page tests' LoRA adapter and projector GGUFs: huggingface.js's tensors give vramfit's bytes", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vramfit-gguf-adapters-"));
  try {
    const f16 = t => t.shape.reduce((a, b) => a * Number(b), 1) * 2;  // ggml F16: 2 B an element
    const loraFile = path.join(dir, "tiny-lora.gguf"), mmprojFile = path.join(dir, "mmproj-f16.gguf");
    fs.writeFileSync(loraFile, loraGgufBytes({ layers: 3, hidden: 256, rank: 8 }));
    fs.writeFileSync(mmprojFile, mmprojGgufBytes());
    const lora = await gguf(loraFile, { allowLocalFile: true });
    assert.equal(lora.metadata["general.type"], "adapter");
    const byLayer = [0, 0, 0];
    for (const t of lora.tensorInfos) {
      assert.equal(GGMLQuantizationType[t.dtype], "F16", t.name);
      byLayer[Number(/^blk\.(\d+)\./.exec(t.name)[1])] += f16(t);
    }
    const readLora = await vramfit.readModelFile(new File([fs.readFileSync(loraFile)], "tiny-lora.gguf"));
    assert.equal(readLora.error, undefined, JSON.stringify(readLora.error));
    assert.deepEqual(readLora["llama.cpp"].lora[0].layers, byLayer);
    const mmproj = await gguf(mmprojFile, { allowLocalFile: true });
    assert.equal(mmproj.metadata["general.architecture"], "clip");
    const readMmproj = await vramfit.readModelFile(new File([fs.readFileSync(mmprojFile)], "mmproj-f16.gguf"));
    assert.equal(readMmproj.error, undefined, JSON.stringify(readMmproj.error));
    assert.equal(readMmproj["llama.cpp"].mmproj.weight_bytes, mmproj.tensorInfos.reduce((sum, t) => sum + f16(t), 0));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
