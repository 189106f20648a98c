// The workload carries across engines and modes both ways (issue 33): a user who set 16k tokens
// for 4 sequences and then picks llama.cpp, vLLM, Transformers or training finds the same
// workload in that engine's own flags, with the engine's own meaning (llama.cpp's -c holds the
// cells of all -np sequences), and finds it again on the way back.
#include "core/workload.hpp"
#include "io/request_json.hpp"
#include "helpers.hpp"

using namespace vramfit;

namespace {

Request picked(Request r, Engine engine) {
  const Workload w = workload_of(r);
  r.engine = engine;
  carry_workload(r, w);
  return r;
}

}  // namespace

TEST_CASE("the workload set in vramfit's own model carries into each engine's flags and back", "[request]") {
  Request r;
  r.settings.context_tokens = 16384;
  r.settings.concurrent_sequences = 4;

  const Request llama = picked(r, Engine::llamacpp);
  CHECK(llama.llamacpp.ctx_size == 65536);  // -c: 4 sequences x 16,384 cells
  CHECK(llama.llamacpp.parallel == 4);      // -np 4
  const Request vllm = picked(llama, Engine::vllm);
  CHECK(vllm.vllm.max_model_len == 16384);
  CHECK(vllm.vllm.max_num_seqs == 4);
  const Request hf = picked(vllm, Engine::transformers);
  CHECK(hf.transformers.batch_size == 4);
  CHECK(hf.transformers.input_length + hf.transformers.max_new_tokens == 16384);
  CHECK(hf.transformers.max_new_tokens == Request{}.transformers.max_new_tokens);  // the new tokens as they were
  const Request back = picked(hf, Engine::generic);
  CHECK(back.settings.context_tokens == 16384);
  CHECK(back.settings.concurrent_sequences == 4);

  // The JSON the page keeps in its link says the same after the pick.
  const json j = request_to_json(llama);
  CHECK(j.at("llama.cpp").at("ctx-size") == 65536);
  CHECK(j.at("llama.cpp").at("parallel") == 4);
}

TEST_CASE("one sequence leaves vLLM's own --max-num-seqs default; a context shorter than max_new_tokens splits it", "[request]") {
  Request r;
  r.settings.context_tokens = 32768;
  r.settings.concurrent_sequences = 1;
  const Request vllm = picked(r, Engine::vllm);
  CHECK(vllm.vllm.max_model_len == 32768);
  CHECK(vllm.vllm.max_num_seqs == 0);  // vLLM's scheduler default, not a cap of 1
  CHECK(picked(vllm, Engine::generic).settings.concurrent_sequences == 1);

  r.settings.context_tokens = 256;
  const Request hf = picked(r, Engine::transformers);
  CHECK(hf.transformers.max_new_tokens == 128);
  CHECK(hf.transformers.input_length == 128);
}

TEST_CASE("llama.cpp's -c 0 (the model's trained context) leaves the other engine's context as it was", "[request]") {
  Request r;
  r.engine = Engine::llamacpp;
  r.llamacpp.ctx_size = 0;
  r.llamacpp.parallel = 2;
  r.vllm.max_model_len = 4096;
  const Request vllm = picked(r, Engine::vllm);
  CHECK(vllm.vllm.max_model_len == 4096);
  CHECK(vllm.vllm.max_num_seqs == 2);
}

TEST_CASE("the workload carries into training (sequence length, micro-batch) and a layer list (batch), and back", "[request]") {
  Request r;
  r.settings.context_tokens = 4096;
  r.settings.concurrent_sequences = 2;
  Workload w = workload_of(r);
  r.mode = Mode::training;
  carry_workload(r, w);
  CHECK(r.training.sequence_length == 4096);
  CHECK(r.training.micro_batch == 2);
  r.training.sequence_length = 8192;
  w = workload_of(r);
  r.has_network = true;
  carry_workload(r, w);
  CHECK(r.network_settings.batch == 2);
  w = workload_of(r);
  r.mode = Mode::inference;
  r.has_network = false;
  carry_workload(r, w);
  CHECK(r.settings.context_tokens == 4096);  // a layer list has no sequence length: the context stays
  CHECK(r.settings.concurrent_sequences == 2);
}

TEST_CASE("under llama.cpp a checkpoint format becomes the GGUF of its precision, which llama.cpp then answers", "[request]") {
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{{"bf16", "gguf-bf16"},
                                                                                 {"fp16", "gguf-f16"},
                                                                                 {"fp32", "gguf-f16"},
                                                                                 {"fp8", "gguf-q8_0"},
                                                                                 {"bnb-int8", "gguf-q8_0"},
                                                                                 {"awq-int4", "gguf-q4_k_m"},
                                                                                 {"gptq-int4", "gguf-q4_k_m"},
                                                                                 {"bnb-nf4", "gguf-q4_k_m"},
                                                                                 {"mxfp4-moe", "gguf-mxfp4_moe"}}) {
    INFO(from);
    Request r;
    r.weight_format = from;
    CHECK(gguf_weights_for_llamacpp(r).empty());  // vramfit's own model takes any format
    r.engine = Engine::llamacpp;
    CHECK(gguf_weights_for_llamacpp(r) == from);
    CHECK(r.weight_format == to);
    CHECK(gguf_weights_for_llamacpp(r).empty());  // a GGUF format stays
  }
  // The request llama.cpp refused ("llama.cpp loads GGUF files") is answered once it is GGUF.
  Request r;
  r.engine = Engine::llamacpp;
  CHECK_FALSE(estimate(r, builtin_catalog()));
  gguf_weights_for_llamacpp(r);
  CHECK(estimate(r, builtin_catalog()));
  // A file's own layout is left as it is.
  Request stored;
  stored.engine = Engine::llamacpp;
  stored.has_stored_weights = true;
  stored.weight_format = "as_stored";
  CHECK(gguf_weights_for_llamacpp(stored).empty());
}
