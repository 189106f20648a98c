// Model files: GGUF headers written from llama.cpp's published tensor lists, safetensors headers
// from transformers' state-dict names, read at the models' published counts; every class of bad
// input is an error naming where it is.
#include "helpers.hpp"

#include "io/gguf.hpp"
#include "io/model_file.hpp"
#include "io/safetensors.hpp"
#include "report/engines.hpp"
#include "support/model_file_writers.hpp"
#include "support/published_gguf.hpp"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>

using namespace vramfit;
using namespace vramfit::test;
using vramfit::json;

namespace {

const FormatTables& tables() { return builtin_catalog().formats; }

Report estimate_from(const ModelFileRead& read, const json& base) {
  auto request = request_from_json(base);
  REQUIRE(request);
  Request r = *request;
  auto error = apply_model_file(r, read);
  if (error) FAIL(error->message);
  // The request round-trips through JSON with the stored weights in it.
  auto again = request_from_json(request_to_json(r));
  if (!again) FAIL(again.error().message);
  auto report = estimate(*again, builtin_catalog());
  if (!report) FAIL(report.error().message);
  return std::move(report).value();
}

// A GGUF written from llama.cpp's tensor list for the architecture, read back as a model file.
ModelFileRead published_read(const PublishedKeys& keys, const std::vector<PublishedTensor>& tensors, const std::string& file) {
  const auto bytes = published_gguf(keys, tensors);
  auto gguf = read_gguf(bytes.data(), static_cast<int64_t>(bytes.size()), file);
  if (!gguf) FAIL(gguf.error().message);
  auto read = model_from_gguf(tables(), *gguf, file);
  if (!read) FAIL(read.error().message);
  return std::move(read).value();
}

}  // namespace

TEST_CASE("a GGUF written from llama.cpp's tensor list reads at its published count and types, as the preset", "[gguf][model_files]") {
  // Each file from the model's card, llama.cpp's tensor names and its quantize rules
  // (tests/support/published_gguf.hpp), not from vramfit's enumeration or weight formats.
  struct Case { ModelCard card; const char* ftype; uint32_t file_type; const char* preset; const char* format; };
  const Case cases[] = {
      {llama_3_1_8b_card(), "Q4_K_M", 15, "llama-3.1-8b", "gguf-q4_k_m"},
      {qwen2_5_0_5b_card(), "Q4_K_M", 15, "qwen2.5-0.5b", "gguf-q4_k_m"},  // 896-wide rows: Q5_0 and Q8_0 fallbacks
      {llama_3_2_1b_card(), "Q8_0", 7, "llama-3.2-1b", "gguf-q8_0"},
      {qwen3_8b_card(), "Q8_0", 7, "qwen3-8b", "gguf-q8_0"},                // q/k norms
      {gemma_2_9b_card(), "Q8_0", 7, "gemma-2-9b", "gguf-q8_0"},            // post-norms; sliding layers by llama.cpp's rule
      {mixtral_8x7b_card(), "Q8_0", 7, "mixtral-8x7b", "gguf-q8_0"},        // experts stacked in one tensor, an F32 router
  };
  for (const Case& c : cases) {
    INFO(c.preset << " " << c.ftype);
    const std::vector<PublishedTensor> tensors = published_tensors(c.card, c.ftype);
    uint64_t bytes = 0, rope_freqs = 0;
    for (const PublishedTensor& t : tensors) {
      bytes += t.bytes();
      if (t.name == "rope_freqs.weight") rope_freqs = t.elements();
    }
    const auto file = published_gguf(c.card, tensors, c.file_type);
    auto gguf = read_gguf(file.data(), static_cast<int64_t>(file.size()), std::string(c.preset) + ".gguf");
    REQUIRE(gguf);
    auto read = model_from_gguf(tables(), *gguf, std::string(c.preset) + ".gguf");
    REQUIRE(read);
    // The model's published parameter count (data/models.json, from its Hub card), and the
    // rope frequencies llama.cpp adds to Llama 3.x files.
    CHECK(read->weights.parameters == preset(c.preset).published_parameters + static_cast<int64_t>(rope_freqs));
    int64_t read_bytes = 0;
    for (const StoredWeights::Row& row : read->weights.by_type) read_bytes += row.bytes;
    CHECK(read_bytes == static_cast<int64_t>(bytes));
    // The preset in the same format types every tensor as llama.cpp's quantize did (the preset's
    // list has no rope_freqs), and the file gives the preset's KV cache.
    const json base = {{"context_tokens", 8192}, {"gpu", {{"id", "h100-80"}}}};
    json preset_request = base;
    preset_request["model"] = {{"preset", c.preset}};
    preset_request["weights"] = {{"format", c.format}};
    const Report from_preset = estimate_ok(preset_request);
    const Report from_file = estimate_from(*read, base);
    CHECK(from_preset.memory.weights == static_cast<int64_t>(bytes - rope_freqs * 4));
    CHECK(from_file.memory.kv_cache == from_preset.memory.kv_cache);
  }
}

TEST_CASE("vramfit's tensor list of a preset is llama.cpp's, name for name and shape for shape", "[gguf][model_files]") {
  // write_gguf (tests/support) names vramfit's enumerate_tensors in llama.cpp's terms; its
  // tensors must be the published list's (less rope_freqs, which vramfit does not list).
  for (const auto& [card, id] : {std::pair{llama_3_1_8b_card(), "llama-3.1-8b"}, std::pair{qwen3_8b_card(), "qwen3-8b"}}) {
    INFO(id);
    std::map<std::string, std::vector<uint64_t>> published;
    for (const PublishedTensor& t : published_tensors(card, "Q8_0")) {
      if (t.name != "rope_freqs.weight") published[t.name] = t.ne;
    }
    const auto bytes = write_gguf(tables(), preset(id).spec, format("gguf-q8_0"), card.arch);
    auto gguf = read_gguf(bytes.data(), static_cast<int64_t>(bytes.size()), "x.gguf");
    REQUIRE(gguf);
    size_t matrices = 0;
    for (const GgufTensorInfo& t : gguf->tensors) {
      if (t.dims.size() == 1) continue;  // 1-D tensors: write_gguf numbers them (vec0, vec1, ...)
      ++matrices;
      INFO(t.name);
      REQUIRE(published.count(t.name) == 1);
      CHECK(std::vector<uint64_t>(t.dims.begin(), t.dims.end()) == published.at(t.name));
    }
    size_t published_matrices = 0;
    for (const auto& [name, ne] : published) published_matrices += ne.size() > 1 ? 1 : 0;
    CHECK(matrices == published_matrices);
  }
}

TEST_CASE("a Llama 4 GGUF: llama.cpp's widths and chunked layers read as Llama4TextConfig's", "[gguf][model_files]") {
  // Written from llama.cpp's tensor list (tests/support/published_gguf.hpp), not vramfit's.
  const ModelSpec& scout = preset("llama-4-scout").spec;
  const ModelFileRead read = published_read(llama_4_scout_keys(), llama_4_scout_tensors(), "scout.gguf");
  CHECK(read.config.at("intermediate_size_mlp") == 16384);
  CHECK(read.config.at("intermediate_size") == 8192);
  auto spec = read_hf_config(read.config, "scout.gguf", true);
  REQUIRE(spec);
  CHECK(spec->spec.moe_intermediate_size == scout.moe_intermediate_size);
  CHECK(spec->spec.intermediate_size == scout.intermediate_size);
  CHECK(spec->spec.moe_layer_count() == 48);
  CHECK(spec->spec.sliding_window == 8192);
  CHECK(spec->spec.sliding_layer_count() == 36);
  CHECK_FALSE(spec->spec.is_sliding_layer(3));
  // The file holds the text model (the vision tower lives in the mmproj file): the checkpoint's
  // published count less the tower's, and the model its keys describe counts the same.
  const int64_t published_text = 108641793536 - 871932416;
  CHECK(read.weights.parameters == published_text);
  CHECK(count_parameters(spec->spec) == published_text);
}

TEST_CASE("a Qwen3.5 GGUF: the Gated DeltaNet widths from its ssm keys size llama.cpp's RS and KV buffers", "[gguf][model_files][llamacpp]") {
  // Qwen3.5-0.8B as llama.cpp's log prints it (validation/engines/llamacpp.json, point
  // qwen35-0.8b-q4km-cpu-ctx262144-np4): 24 layers, full attention in every 4th (8 heads, 2 KV
  // heads of 256), ssm d_conv 4, d_inner 2048, d_state 128, n_group 16; its converter writes
  // time_step_rank = 16 value heads. The file (llama.cpp's tensor list) carries only llama.cpp's keys.
  const ModelFileRead read = published_read(qwen35_keys(qwen3_5_0_8b_card()), qwen35_tensors(qwen3_5_0_8b_card()),
                                            "Qwen3.5-0.8B.F32.gguf");
  CHECK(read.config.at("model_type") == "qwen3_5_text");
  CHECK(read.config.at("linear_value_head_dim") == 128);
  const Report r = estimate_from(read, {{"engine", "llama.cpp"}, {"gpu", {{"id", "rtx-4090"}}},
                                          {"llama.cpp", {{"ctx-size", 262144}, {"parallel", 4}, {"n-gpu-layers", 0}}}});
  // The log's "CPU KV buffer size = 3072.00 MiB" (6 layers) and "CPU RS buffer size = 77.06 MiB".
  CHECK(r.engine->llamacpp.host.kv == 3072 * kMiB);
  CHECK(std::abs(static_cast<double>(r.engine->llamacpp.host.rs) / static_cast<double>(kMiB) - 77.06) < 0.006);
  // Without the ssm keys the widths are unknown: Qwen3NextConfig's defaults would be read instead.
  PublishedKeys bare = qwen35_keys(qwen3_5_0_8b_card());
  std::erase_if(bare.keys, [](const auto& key) { return key.first.starts_with("ssm."); });
  CHECK_FALSE(published_read(bare, qwen35_tensors(qwen3_5_0_8b_card()), "bare.gguf").config.contains("linear_value_head_dim"));
}

TEST_CASE("an MTP GGUF: block_count counts the MTP layer, placed and loaded, with no KV or RS in the main context", "[gguf][model_files][llamacpp]") {
  // unsloth's Qwen3.6-27B-MTP GGUF as llama.cpp logs it (validation/engines/llamacpp.json, point
  // qwen36-27b-udq4kxl-mtp-rtx5090-ctx131072-np4): qwen35.block_count 65, nextn_predict_layers 1,
  // full attention every 4th layer; "offloaded 66/66 layers to GPU", "KV buffer size = 4352.00 MiB"
  // (131072 cells, 16 layers, q8_0), "RS buffer size = 598.50 MiB" (48 Gated DeltaNet layers). The
  // file's 65th block is llama.cpp's MTP block (load_block_mtp).
  const ModelFileRead read = published_read(qwen35_keys(qwen3_6_27b_mtp_card()), qwen35_tensors(qwen3_6_27b_mtp_card()),
                                            "Qwen3.6-27B-MTP.F32.gguf");
  CHECK(read.config.at("num_hidden_layers") == 64);
  CHECK(read.config.at("num_nextn_predict_layers") == 1);
  CHECK(read.weights.by_layer.layer.size() == 65);  // blk.64's tensors stay in the weights
  const Report r = estimate_from(read, {{"engine", "llama.cpp"}, {"gpus", {"rtx-5090"}},
                                          {"llama.cpp", {{"ctx-size", 131072}, {"parallel", 4}, {"cache-type-k", "q8_0"},
                                                         {"cache-type-v", "q8_0"}, {"flash-attn", "on"}}}});
  REQUIRE(r.engine);
  const LlamaCppMemory& m = r.engine->llamacpp;
  CHECK(m.offloaded_layers == 66);
  CHECK(m.layer_slots == 66);
  CHECK(m.gpus.at(0).kv == 4352 * kMiB);
  CHECK(std::abs(static_cast<double>(m.gpus.at(0).rs) / static_cast<double>(kMiB) - 598.50) < 0.006);
  // Every block's bytes are on the GPU, the MTP layer's too; token_embd stays on the CPU.
  int64_t on_gpu = read.weights.by_layer.output;
  for (int64_t b : read.weights.by_layer.layer) on_gpu += b;
  for (int64_t b : read.weights.by_layer.layer_experts) on_gpu += b;
  CHECK(m.gpus.at(0).model == on_gpu);
  CHECK(m.host.model == read.weights.by_layer.input);
}

TEST_CASE("a Mamba GGUF: the mixer's widths from its ssm keys, feed_forward_length 0 as the converter writes it", "[gguf][model_files][llamacpp]") {
  // The file from llama.cpp's tensor list and conversion/mamba.py's keys; the config.json is the
  // checkpoint's own (tests/fixtures/configs).
  std::ifstream in(std::string(VRAMFIT_FIXTURES_DIR) + "/configs/mamba-130m-hf.json");
  auto config = read_hf_config(json::parse(in), "mamba-130m-hf");
  REQUIRE(config);
  const ModelSpec& s = config->spec;
  const ModelFileRead read = published_read(mamba_130m_keys(), mamba_130m_tensors(), "mamba-130m.F32.gguf");
  CHECK(read.config.at("intermediate_size") == s.ssm_inner);
  CHECK(read.weights.parameters == 129135360);  // the checkpoint's count (model.safetensors)
  const json request = {{"engine", "llama.cpp"}, {"gpu", {{"id", "rtx-4090"}}}, {"llama.cpp", {{"ctx-size", 4096}, {"parallel", 2}}}};
  const Report from_file = estimate_from(read, request);
  json from_config = request;
  from_config["model"] = {{"config", write_hf_config(s)}};
  from_config["weights"] = {{"format", "gguf-q8_0"}};
  const Report expected = estimate_ok(from_config);
  CHECK(from_file.engine->llamacpp.gpus.front().rs == expected.engine->llamacpp.gpus.front().rs);
  CHECK(from_file.engine->llamacpp.gpus.front().rs > 0);
}

TEST_CASE("GGUF: a prefix too short asks for more; the full header reads", "[gguf]") {
  const auto bytes = llama_3_2_1b_gguf("Q4_K_M", 5000);
  auto partial = read_gguf(bytes.data(), 4096, "x.gguf", static_cast<int64_t>(bytes.size()));
  REQUIRE_FALSE(partial);
  CHECK(partial.error().id == "gguf.truncated");
  CHECK(partial.error().message.find("x.gguf") == 0);
  CHECK(partial.error().message.find("byte offset") != std::string::npos);
  auto full = read_gguf(bytes.data(), static_cast<int64_t>(bytes.size()), "x.gguf");
  REQUIRE(full);
  CHECK(full->tensors.size() == published_tensors(llama_3_2_1b_card(), "Q4_K_M").size());
  CHECK(full->find("tokenizer.ggml.tokens")->array_length == 5000);
  // Every prefix fails cleanly (no crash, no read past the end).
  for (int64_t n = 0; n < static_cast<int64_t>(bytes.size()); n += 97) {
    auto r = read_gguf(bytes.data(), n, "x.gguf");
    REQUIRE_FALSE(r);
    CHECK(r.error().id == "gguf.truncated");
  }
}

TEST_CASE("GGUF: each class of bad input has its message", "[gguf][errors]") {
  auto header = [](uint32_t version, uint64_t tensors, uint64_t kvs) {
    GgufWriter w;
    w.put<uint32_t>(0x46554747u);
    w.put<uint32_t>(version);
    w.put<uint64_t>(tensors);
    w.put<uint64_t>(kvs);
    return w;
  };
  auto error_of = [](const GgufWriter& w) {
    auto r = read_gguf(w.bytes.data(), static_cast<int64_t>(w.bytes.size()), "bad.gguf");
    REQUIRE_FALSE(r);
    return r.error();
  };
  GgufWriter magic;
  magic.put<uint32_t>(0x12345678u);
  magic.put<uint32_t>(3);
  CHECK(error_of(magic).id == "gguf.bad_magic");
  CHECK(error_of(header(1, 0, 0)).id == "gguf.bad_version");
  CHECK(error_of(header(4, 0, 0)).message.find("GGUF version 4 is not supported") != std::string::npos);
  CHECK(error_of(header(3, uint64_t(1) << 40, 0)).id == "gguf.too_many");
  CHECK(error_of(header(3, 0, uint64_t(1) << 40)).id == "gguf.too_many");

  GgufWriter long_string = header(3, 0, 1);
  long_string.put<uint64_t>(1000000);  // key length beyond the file
  long_string.put<uint32_t>(0);
  CHECK(error_of(long_string).id == "gguf.too_long");
  GgufWriter past_end = header(3, 0, 1);
  past_end.put<uint64_t>(5000);  // within the key limit but past the end
  CHECK(error_of(past_end).id == "gguf.truncated");

  GgufWriter bad_type = header(3, 0, 1);
  bad_type.put_string("k");
  bad_type.put<uint32_t>(77);
  CHECK(error_of(bad_type).id == "gguf.bad_type");

  GgufWriter bad_bool = header(3, 0, 1);
  bad_bool.put_string("k");
  bad_bool.put<uint32_t>(7);
  bad_bool.put<uint8_t>(2);
  CHECK(error_of(bad_bool).id == "gguf.bad_value");

  GgufWriter huge_array = header(3, 0, 1);
  huge_array.put_string("k");
  huge_array.put<uint32_t>(9);
  huge_array.put<uint32_t>(4);
  huge_array.put<uint64_t>(uint64_t(1) << 60);
  CHECK(error_of(huge_array).id == "gguf.too_long");

  auto tensor = [&](uint32_t n_dims, std::vector<uint64_t> dims, uint32_t type) {
    GgufWriter w = header(3, 1, 0);
    w.put_string("blk.0.attn_q.weight");
    w.put<uint32_t>(n_dims);
    for (uint64_t d : dims) w.put<uint64_t>(d);
    w.put<uint32_t>(type);
    w.put<uint64_t>(0);
    for (int i = 0; i < 8; ++i) w.put<uint32_t>(0);  // padding so counts pass the size check
    return w;
  };
  CHECK(error_of(tensor(0, {}, 0)).id == "gguf.bad_dims");
  CHECK(error_of(tensor(5, {1, 1, 1, 1, 1}, 0)).id == "gguf.bad_dims");
  CHECK(error_of(tensor(2, {uint64_t(1) << 40, uint64_t(1) << 40}, 0)).message.find("overflow") != std::string::npos);
  CHECK(error_of(tensor(2, {0, 5}, 0)).id == "gguf.bad_dims");

  // An unknown ggml type is caught when the tensors are sized.
  GgufWriter unknown = tensor(2, {4096, 4096}, 999);
  auto gguf = read_gguf(unknown.bytes.data(), static_cast<int64_t>(unknown.bytes.size()), "bad.gguf");
  REQUIRE(gguf);
  gguf.value().metadata["general.architecture"].kind = GgufValue::Kind::string;
  gguf.value().metadata["general.architecture"].string = "llama";
  auto model = model_from_gguf(tables(), *gguf, "bad.gguf");
  REQUIRE_FALSE(model);
  CHECK(model.error().id == "gguf.unknown_type");
  CHECK(model.error().message == "bad.gguf: tensor blk.0.attn_q.weight has unknown ggml type 999");
  // A Q4_K row that is not a whole number of blocks.
  GgufWriter ragged = tensor(2, {100, 4}, 12);
  auto ragged_file = read_gguf(ragged.bytes.data(), static_cast<int64_t>(ragged.bytes.size()), "bad.gguf");
  REQUIRE(ragged_file);
  ragged_file.value().metadata["general.architecture"] = gguf->metadata.at("general.architecture");
  CHECK(model_from_gguf(tables(), *ragged_file, "bad.gguf").error().id == "gguf.bad_dims");
  // No architecture.
  GgufWriter empty = header(3, 0, 0);
  auto empty_file = read_gguf(empty.bytes.data(), static_cast<int64_t>(empty.bytes.size()), "e.gguf");
  REQUIRE(empty_file);
  CHECK(model_from_gguf(tables(), *empty_file, "e.gguf").error().field == "general.architecture");
}

TEST_CASE("a safetensors header in transformers' names reads at the published count, as the preset", "[safetensors][model_files]") {
  for (const char* id : {"qwen2.5-0.5b", "llama-3.2-1b", "qwen3-0.6b"}) {
    INFO(id);
    const ModelSpec& spec = preset(id).spec;
    const auto bytes = write_safetensors(hf_dense_tensors(spec), "BF16", 2);
    auto file = read_safetensors(bytes.data(), static_cast<int64_t>(bytes.size()), "model.safetensors");
    REQUIRE(file);
    // transformers' state-dict names (hf_dense_tensors) at the model's published count (data/models.json).
    const int64_t published = preset(id).published_parameters;
    CHECK(file->data_bytes == 2 * published);
    const json config = write_hf_config(spec);
    auto read = model_from_safetensors({*file}, &config, {"model.safetensors"});
    REQUIRE(read);
    CHECK(read->weights.parameters == published);
    const json base = {{"gpu", {{"id", "rtx-4090"}}}};
    json preset_request = base;
    preset_request["model"] = {{"preset", id}};
    preset_request["weights"] = {{"format", "bf16"}};
    const Report from_preset = estimate_ok(preset_request);
    const Report from_file = estimate_from(*read, base);
    CHECK(from_file.memory.total == from_preset.memory.total);
  }
}

TEST_CASE("safetensors without config.json: architecture from names, assumptions listed", "[safetensors][model_files]") {
  // Qwen3 carries q_norm, which gives head_dim; the Llama one assumes 128, which is right for 8B.
  for (const char* id : {"qwen3-0.6b", "llama-3.1-8b"}) {
    INFO(id);
    const ModelSpec& spec = preset(id).spec;
    const auto tensors = hf_dense_tensors(spec);
    // Two shards, as large checkpoints come.
    const size_t half = tensors.size() / 2;
    const auto a = write_safetensors({tensors.begin(), tensors.begin() + static_cast<long>(half)}, "BF16", 2);
    const auto b = write_safetensors({tensors.begin() + static_cast<long>(half), tensors.end()}, "BF16", 2);
    auto fa = read_safetensors(a.data(), static_cast<int64_t>(a.size()), "model-00001-of-00002.safetensors");
    auto fb = read_safetensors(b.data(), static_cast<int64_t>(b.size()), "model-00002-of-00002.safetensors");
    REQUIRE(fa);
    REQUIRE(fb);
    auto read = model_from_safetensors({*fa, *fb}, nullptr, {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"});
    REQUIRE(read);
    CHECK_FALSE(read->assumed.empty());
    CHECK(read->weights.parameters == preset(id).published_parameters);
    json preset_request = {{"model", {{"preset", id}}}, {"weights", {{"format", "bf16"}}}, {"gpu", {{"id", "h100-80"}}}};
    const Report from_preset = estimate_ok(preset_request);
    const Report from_file = estimate_from(*read, {{"gpu", {{"id", "h100-80"}}}});
    CHECK(from_file.memory.weights == from_preset.memory.weights);
    CHECK(from_file.memory.kv_cache == from_preset.memory.kv_cache);
  }
}

TEST_CASE("a model in many shards is named by its first and last file", "[safetensors][model_files]") {
  CHECK(shards_name({"model.safetensors"}) == "model.safetensors");
  CHECK(shards_name({"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}) ==
        "model-00001-of-00002.safetensors, model-00002-of-00002.safetensors");
  std::vector<std::string> shards;
  for (int i = 1; i <= 31; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "model-%05d-of-00031.safetensors", i);
    shards.push_back(name);
  }
  CHECK(shards_name(shards) == "model-00001-of-00031.safetensors, ..., model-00031-of-00031.safetensors");
}

TEST_CASE("safetensors: each class of bad input has its message", "[safetensors][errors]") {
  auto with_header = [](const std::string& text) {
    std::vector<uint8_t> bytes(8);
    const uint64_t n = text.size();
    std::memcpy(bytes.data(), &n, 8);
    bytes.insert(bytes.end(), text.begin(), text.end());
    return bytes;
  };
  auto error_of = [](const std::vector<uint8_t>& bytes, int64_t file_size = 0) {
    auto r = read_safetensors(bytes.data(), static_cast<int64_t>(bytes.size()), "m.safetensors", file_size);
    REQUIRE_FALSE(r);
    return r.error();
  };
  CHECK(error_of({1, 2, 3}).id == "safetensors.truncated");
  std::vector<uint8_t> huge(8, 0xff);
  CHECK(error_of(huge).id == "safetensors.too_long");
  auto cut = with_header(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})");
  cut.resize(cut.size() - 5);
  CHECK(error_of(cut).id == "safetensors.truncated");
  CHECK(error_of(with_header("{not json")).id == "safetensors.bad_json");
  CHECK(error_of(with_header("[1,2]")).id == "safetensors.bad_json");
  CHECK(error_of(with_header(R"({"w": {"dtype": "F32"}})")).id == "safetensors.bad_entry");
  const Error dtype = error_of(with_header(R"({"w": {"dtype": "Q4", "shape": [2], "data_offsets": [0, 8]}})"));
  CHECK(dtype.id == "safetensors.bad_dtype");
  CHECK(dtype.field == "w.dtype");
  CHECK(error_of(with_header(R"({"w": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})")).id == "safetensors.bad_shape");
  CHECK(error_of(with_header(R"({"w": {"dtype": "F32", "shape": [4294967296, 4294967296, 4294967296], "data_offsets": [0, 8]}})")).id == "safetensors.bad_shape");
  CHECK(error_of(with_header(R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 9]}})")).id == "safetensors.bad_offsets");
  CHECK(error_of(with_header(R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]}})")).id == "safetensors.bad_offsets");
  CHECK(error_of(with_header(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})")).message.find("overlap") != std::string::npos);
  const auto ok = with_header(R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})");
  CHECK(error_of(ok, static_cast<int64_t>(ok.size()) + 4).id == "safetensors.bad_offsets");  // data past the file end
  CHECK(read_safetensors(ok.data(), static_cast<int64_t>(ok.size()), "m.safetensors", static_cast<int64_t>(ok.size()) + 8));
}

TEST_CASE("model.safetensors.index.json with config.json", "[safetensors][model_files]") {
  const ModelSpec& spec = preset("llama-3.1-8b").spec;
  const std::string text = R"({"metadata": {"total_size": 16060522496},
    "weight_map": {"lm_head.weight": "model-00004-of-00004.safetensors", "model.embed_tokens.weight": "model-00001-of-00004.safetensors"}})";
  auto index = read_safetensors_index(text, "model.safetensors.index.json");
  REQUIRE(index);
  CHECK(index->shards.size() == 2);
  auto read = model_from_safetensors_index(*index, write_hf_config(spec), "model.safetensors.index.json");
  REQUIRE(read);
  CHECK(read->weights.parameters == 8030261248);
  const Report from_file = estimate_from(*read, {{"gpu", {{"id", "rtx-4090"}}}});
  const Report from_preset = estimate_ok({{"model", {{"preset", "llama-3.1-8b"}}}, {"gpu", {{"id", "rtx-4090"}}}});
  CHECK(from_file.memory.total == from_preset.memory.total);

  CHECK(read_safetensors_index("{}", "i.json").error().field == "metadata.total_size");
  CHECK(read_safetensors_index(R"({"metadata": {"total_size": -1}, "weight_map": {}})", "i.json").error().id == "safetensors.bad_index");
  CHECK(read_safetensors_index(R"({"metadata": {"total_size": 5}, "weight_map": []})", "i.json").error().field == "weight_map");
  CHECK(read_safetensors_index(R"({"metadata": {"total_size": 5}, "weight_map": {"a": 3}})", "i.json").error().field == "weight_map.a");
}

TEST_CASE("stored weights in a request are validated", "[request][errors]") {
  const json bad_type = {{"weights", {{"format", "as_stored"}, {"stored", {{"by_type", {{{"type", "q9_z"}, {"elements", 1}, {"tensors", 1}, {"bytes", 1}}}}}}}}};
  CHECK(estimate_error(bad_type).field == "weights.stored.by_type[0].type");
  CHECK(estimate_error({{"weights", {{"format", "as_stored"}}}}).field == "weights.stored");
  const json negative = {{"weights", {{"format", "as_stored"}, {"stored", {{"by_type", {{{"type", "bf16"}, {"bytes", -5}}}}}}}}};
  CHECK(estimate_error(negative).field == "weights.stored.by_type[0].bytes");
}

TEST_CASE("inputs the fuzzers found stay in range", "[gguf][safetensors][errors]") {
  // Found by fuzz_gguf and fuzz_safetensors_index: huge dimensions or sizes overflowed the
  // byte arithmetic. Dimensions are now bounded and byte sums saturate at 2^62 B.
  auto read_all = [](const std::string& name) {
    std::ifstream in(std::string(VRAMFIT_FIXTURES_DIR) + "/fuzz_regressions/" + name, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
  };
  const auto gguf_bytes = read_all("gguf-overflow.gguf");
  REQUIRE_FALSE(gguf_bytes.empty());
  // The header reads; its head count (2^29) is refused by name when it becomes a model.
  auto gguf = read_gguf(gguf_bytes.data(), static_cast<int64_t>(gguf_bytes.size()), "f.gguf");
  REQUIRE(gguf);
  auto model = model_from_gguf(tables(), *gguf, "f.gguf");
  REQUIRE(model);
  Request request;
  const auto refused = apply_model_file(request, *model);
  REQUIRE(refused);
  CHECK(refused->field == "num_attention_heads");
  CHECK(refused->message.find("above the limit") != std::string::npos);
  // A total_size past 2^63 is refused by name.
  const auto index_bytes = read_all("index-overflow.json");
  REQUIRE_FALSE(index_bytes.empty());
  auto index = read_safetensors_index(std::string(index_bytes.begin(), index_bytes.end()), "i.json");
  REQUIRE_FALSE(index);
  CHECK(index.error().field == "metadata.total_size");
}

TEST_CASE("absurd dimensions are rejected by name; huge workloads saturate, never overflow", "[config][errors]") {
  json config = write_hf_config(preset("llama-3.2-1b").spec);
  config["hidden_size"] = int64_t(1) << 30;
  auto read = read_hf_config(config, "config.json");
  REQUIRE_FALSE(read);
  CHECK(read.error().field == "hidden_size");
  CHECK(read.error().message.find("limit") != std::string::npos);
  // The largest context and sequence counts a request allows, on the biggest preset.
  const Report r = estimate_ok({{"model", {{"preset", "llama-3.1-405b"}}}, {"context_tokens", int64_t(1) << 24},
                                {"concurrent_sequences", 65536}, {"overhead", {{"flash_attention", false}}}});
  CHECK(r.memory.kv_cache == int64_t(126) * 4096 * (int64_t(1) << 40));  // exact: 567 PB
  CHECK_FALSE(r.fit.fits);
  // Dimensions at their limits: the cache passes 2^62 B and saturates there.
  const json huge = {{"model_type", "parameters_only"}, {"parameters", 1000000000}, {"num_hidden_layers", 4096},
                     {"num_attention_heads", 16384}, {"num_key_value_heads", 16384}, {"head_dim", 16384}};
  const Report s = estimate_ok({{"model", {{"config", huge}}}, {"context_tokens", int64_t(1) << 24},
                                {"concurrent_sequences", 65536}});
  CHECK(s.memory.kv_cache == kByteCeiling);
  CHECK(s.memory.total >= kByteCeiling);
  CHECK_FALSE(s.fit.fits);
}
