// Networks given layer by layer: article 003's MLP and article 000's example with every
// worked number and erratum, shape inference and its errors, and the autograd rule against
// PyTorch's own measurements (tests/fixtures/autograd, made by validation/measure_autograd.py).

#include <algorithm>
#include <fstream>
#include <iterator>

#include "helpers.hpp"

using namespace vramfit;
using namespace vramfit::test;
using vramfit::json;

namespace {

// Article 003's network, as in validation/networks/article-003-mlp.json.
json article_003_network(bool bias) {
  json linear = {{"type", "linear"}};
  auto lin = [&](const char* name, int out) {
    json l = {{"name", name}, {"type", "linear"}, {"out", out}};
    if (!bias) l["bias"] = false;
    return l;
  };
  return {{"name", "article-003-mlp"},
          {"input", {2048}},
          {"dtype", "f32"},
          {"layers",
           {lin("gat", 4096), {{"name", "g"}, {"type", "relu"}}, lin("up", 4096), {{"type", "relu"}},
            {{"type", "add"}, {"from", "g"}}, {{"type", "relu"}}, lin("down", 2048), {{"type", "relu"}},
            {{"type", "add"}, {"from", "input"}}, lin("out", 10), {{"type", "softmax"}}}}};
}

json net_request(const json& network, int64_t batch, const std::string& rule, const std::string& optimizer = "adamw",
                 const std::string& device = "cuda") {
  return {{"mode", "training"}, {"network", network},
          {"training", {{"batch", batch}, {"activation_rule", rule}, {"optimizer", optimizer}, {"device", device},
                        {"margin_fraction", 0.0}}},
          {"gpu", {{"id", "rtx-4090"}}}};
}

Error net_error(const json& network) {
  return estimate_error(net_request(network, 1, "autograd"));
}


}  // namespace

TEST_CASE("article 003: P, G, O and A as the article computes them", "[article003]") {
  const Report r = estimate_ok(net_request(article_003_network(false), 128, "layer_outputs"));
  const NetworkMemory& m = r.network;
  // 2048*4096 + 4096*4096 + 4096*2048 + 2048*10 (weights only).
  CHECK(m.parameters == 33574912);
  CHECK(m.parameter_bytes == 134299648);                    // x 4 B = "128 MB" (MiB)
  CHECK(m.parameter_bytes == 128 * kMiB + 20480 * 4);
  CHECK(m.gradient_bytes == m.parameter_bytes);             // G = P
  CHECK(m.optimizer.moment_bytes == 2 * m.parameter_bytes);  // AdamW: O = 2P = 256 MiB
  CHECK(m.optimizer.step_bytes == 0);                       // Adam's 4 B step per tensor stays on the CPU
  CHECK(m.activation_elements == 2098432);                  // 128 x 16,394
  CHECK(m.activation_bytes == 8393728);                     // x 4 B = 8 MiB
  CHECK(m.activation_bytes / 128 / 4 == 16394);
  // P + G + O + A = 520 MiB, the article's total; the input batch (1 MiB) is listed apart.
  const int64_t article_total = m.parameter_bytes + m.gradient_bytes + m.optimizer.moment_bytes + m.activation_bytes;
  CHECK(article_total == 545592320);
  CHECK(format_bytes(article_total, DisplayUnits::gib, 0) == "520 MiB");
  CHECK(m.input_bytes == 128 * 2048 * 4);
  CHECK(m.total == article_total + m.input_bytes);
  // SGD with momentum keeps one buffer per parameter: O = P.
  const Report sgd = estimate_ok(net_request(article_003_network(false), 128, "layer_outputs", "sgd_momentum"));
  CHECK(sgd.network.optimizer.total() == m.parameter_bytes);
  CHECK(estimate_ok(net_request(article_003_network(false), 128, "layer_outputs", "sgd")).network.optimizer.total() == 0);
}

TEST_CASE("article 003 errata: 2048 not 2024, 4 B not 2, 16,394 not 16,349, biases", "[article003][erratum]") {
  // The formula line writes 2024 * 4096; the network with a 2024-wide input does not give the
  // article's own 33,574,912 parameters, the 2048-wide one does.
  json misprint = article_003_network(false);
  misprint["input"] = {2024};
  misprint["layers"][8] = {{"type", "relu"}};  // the residual from the input needs 2048 wide
  CHECK(estimate_ok(net_request(misprint, 128, "layer_outputs")).network.parameters == 33476608);  // 2024x4096 + 4096x4096 + 4096x2048 + 2048x10
  const Report r = estimate_ok(net_request(article_003_network(false), 128, "layer_outputs"));
  CHECK(r.network.parameters == 33574912);
  CHECK(r.network.layers[0].parameters == 2048 * 4096);
  // "size 2 for float32": float32 is 4 B, as the article's 134,299,648 B assumes; 2 B is float16.
  CHECK(element_bytes(ElementType::f32) == 4);
  json half = article_003_network(false);
  half["dtype"] = "f16";
  const Report h = estimate_ok(net_request(half, 128, "layer_outputs"));
  CHECK(h.network.parameter_bytes == 67149824);
  CHECK(h.network.activation_bytes == 2098432 * 2);  // the walk-through's "float16" would halve A
  // 16,394 elements per sample, not 16,349.
  CHECK(r.network.activation_elements / 128 == 16394);
  // PyTorch's default Linear has biases: 33,585,162 parameters.
  CHECK(estimate_ok(net_request(article_003_network(true), 128, "layer_outputs")).network.parameters == 33585162);
}

TEST_CASE("article 003 under the autograd rule: about 9 MiB including the 1 MiB input", "[article003]") {
  const Report r = estimate_ok(net_request(article_003_network(false), 128, "autograd"));
  // x (2048) + relu outputs saved by relu and the next linear once (4096 x 3, 2048)
  // + the second add's output (2048, saved by `out`) + softmax output (10) = 18,442 per sample.
  CHECK(r.network.activation_bytes == int64_t(128) * 18442 * 4);
  CHECK(r.network.activation_bytes == 9442304);
  CHECK(format_bytes(r.network.activation_bytes, DisplayUnits::gib, 1) == "9.0 MiB");
  CHECK(r.network.input_bytes == 0);  // the input is among the saved tensors
}

TEST_CASE("article 000: 100 M float32 parameters are 400 MB; gradients and Adam make it 4x", "[article000]") {
  json net = {{"input", {10000}}, {"layers", {{{"type", "linear"}, {"out", 10000}, {"bias", false}}}}};
  const Report r = estimate_ok(net_request(net, 1, "layer_outputs", "adam"));
  CHECK(r.network.parameters == 100000000);
  CHECK(r.network.parameter_bytes == 400000000);
  CHECK(format_bytes(r.network.parameter_bytes, DisplayUnits::gb, 0) == "400 MB");
  CHECK(r.network.gradient_bytes + r.network.optimizer.moment_bytes == 3 * r.network.parameter_bytes);
  // Input data: 224 x 224 x 3 images in float32, times the batch.
  json images = {{"input", {3, 224, 224}}, {"layers", {{{"type", "flatten"}}, {{"type", "linear"}, {"out", 10}}}}};
  const Report i = estimate_ok(net_request(images, 32, "layer_outputs"));
  CHECK(i.network.input_bytes == int64_t(32) * 224 * 224 * 3 * 4);
  CHECK(find_item(i.breakdown, "input") != nullptr);
  // The safety margin, 10-30% of the total.
  json req = net_request(net, 1, "layer_outputs", "adam");
  req["training"]["margin_fraction"] = 0.3;
  const Report m = estimate_ok(req);
  CHECK(m.network.margin == static_cast<int64_t>(static_cast<double>(m.network.subtotal) * 0.3));
  req["training"]["margin_fraction"] = 0.31;
  CHECK(estimate_error(req).field == "training.margin_fraction");
}

TEST_CASE("Adam's step tensors are GPU memory only when the optimizer is fused or capturable", "[network]") {
  // torch.optim.Adam(W)._init_group makes `step` a CPU scalar tensor unless fused or capturable.
  const json cuda = net_request(article_003_network(false), 8, "autograd", "adamw", "cuda");
  const Report on_gpu = estimate_ok(cuda);
  CHECK(on_gpu.network.optimizer.step_bytes == 0);
  CHECK(on_gpu.network.optimizer.formula.find("4 fp32 step tensors stay on the CPU") != std::string::npos);
  json fused = cuda;
  fused["training"]["fused_optimizer"] = true;
  CHECK(estimate_ok(fused).network.optimizer.step_bytes == 4 * 4);
  CHECK(estimate_ok(net_request(article_003_network(false), 8, "autograd", "adamw", "cpu")).network.optimizer.step_bytes == 4 * 4);
  // A transformer on GPUs: the same rule.
  const json lora = {{"mode", "training"}, {"model", {{"preset", "llama-3.2-1b"}}}, {"training", {{"method", "lora"}}}};
  CHECK(estimate_ok(lora).training.optimizer_full.step_bytes == 0);
  json lora_fused = lora;
  lora_fused["training"]["fused_optimizer"] = true;
  CHECK(estimate_ok(lora_fused).training.optimizer_full.step_bytes == 4 * estimate_ok(lora).training.optimizer_full.tensors);
}

TEST_CASE("the autograd rule matches every PyTorch fixture byte for byte", "[autograd]") {
  const auto files = files_in(std::string(VRAMFIT_FIXTURES_DIR) + "/autograd", ".json");
  REQUIRE(files.size() >= 10);
  for (const std::string& file : files) {
    std::ifstream in(file);
    const json fixture = json::parse(std::string(std::istreambuf_iterator<char>(in), {}));
    const json& measured = fixture.at("measured");
    INFO(file << " (PyTorch " << fixture.at("pytorch").get<std::string>() << ")");
    for (auto it = measured.at("optimizer_state_bytes").begin(); it != measured.at("optimizer_state_bytes").end(); ++it) {
      const Report r = estimate_ok(net_request(fixture.at("network"), fixture.at("batch").get<int64_t>(), "autograd",
                                               it.key(), fixture.at("device").get<std::string>()));
      INFO("optimizer " << it.key());
      CHECK(r.network.parameters == measured.at("parameters").get<int64_t>());
      CHECK(r.network.parameter_bytes == measured.at("parameter_bytes").get<int64_t>());
      CHECK(r.network.buffer_bytes == measured.at("buffer_bytes").get<int64_t>());
      CHECK(r.network.gradient_bytes == measured.at("gradient_bytes").get<int64_t>());
      CHECK(r.network.optimizer.total() == it.value().get<int64_t>());
      CHECK(r.network.activation_bytes == measured.at("saved_for_backward_bytes").get<int64_t>());  // exact: 0 B off
    }
  }
}

TEST_CASE("CUDA and CPU differ where PyTorch's kernels differ", "[network]") {
  json mlp = {{"input", {256}}, {"dtype", "bf16"},
              {"layers", {{{"type", "linear"}, {"out", 512}}, {{"type", "dropout"}, {"p", 0.1}}, {{"type", "layernorm"}},
                          {{"type", "linear"}, {"out", 10}}}}};
  const Report cpu = estimate_ok(net_request(mlp, 4, "autograd", "adamw", "cpu"));
  const Report cuda = estimate_ok(net_request(mlp, 4, "autograd", "adamw", "cuda"));
  // x (256) + dropout mask + LN input (= dropout output) + LN output (last linear input) + 2 stats per row.
  const int64_t common = 4 * 256 * 2 + 4 * 512 * 2 + 4 * 512 * 2;
  CHECK(cpu.network.activation_bytes == common + 4 * 512 * 2 + 2 * 4 * 2);   // float noise, bf16 stats
  CHECK(cuda.network.activation_bytes == common + 4 * 512 * 1 + 2 * 4 * 4);  // bool mask, fp32 stats
  // p = 0 returns the input itself: nothing saved, no new tensor.
  mlp["layers"][1]["p"] = 0.0;
  CHECK(estimate_ok(net_request(mlp, 4, "autograd", "adamw", "cpu")).network.activation_bytes ==
        4 * 256 * 2 + 4 * 512 * 2 + 4 * 512 * 2 + 2 * 4 * 2);
}

TEST_CASE("shapes are inferred layer by layer, torchinfo style", "[network]") {
  json cnn = {{"input", {3, 32, 32}},
              {"layers", {{{"type", "conv2d"}, {"out", 16}, {"kernel", 3}, {"padding", 1}},
                          {{"type", "batchnorm2d"}},
                          {{"type", "relu"}},
                          {{"type", "maxpool2d"}, {"kernel", 2}},
                          {{"type", "conv2d"}, {"out", 32}, {"kernel", 3}, {"stride", 2}, {"padding", 1}, {"bias", false}},
                          {{"type", "avgpool2d"}, {"kernel", 2}},
                          {{"type", "flatten"}},
                          {{"type", "linear"}, {"out", 10}}}}};
  const Report r = estimate_ok(net_request(cnn, 8, "autograd"));
  const auto& rows = r.network.layers;
  REQUIRE(rows.size() == 8);
  CHECK(rows[0].output_shape == std::vector<int64_t>{8, 16, 32, 32});
  CHECK(rows[0].parameters == 16 * 3 * 3 * 3 + 16);
  CHECK(rows[1].parameters == 32);
  CHECK(rows[3].output_shape == std::vector<int64_t>{8, 16, 16, 16});
  CHECK(rows[4].output_shape == std::vector<int64_t>{8, 32, 8, 8});
  CHECK(rows[4].parameters == 32 * 16 * 9);
  CHECK(rows[5].output_shape == std::vector<int64_t>{8, 32, 4, 4});
  CHECK(rows[6].output_shape == std::vector<int64_t>{8, 512});
  CHECK(rows[7].parameters == 5130);
  CHECK(r.network.buffer_bytes == 2 * 16 * 4 + 8);
  // Maxpool keeps its input (the relu output, already kept by relu) + int64 indices.
  CHECK(rows[3].activation_bytes == 8 * 16 * 16 * 16 * 8);
  CHECK(rows[6].activation_bytes == 0);  // flatten is a view

  json attention = {{"input", {64, 128}}, {"layers", {{{"type", "self_attention"}, {"heads", 4}}}}};
  const Report a = estimate_ok(net_request(attention, 2, "autograd"));
  CHECK(a.network.parameters == 4 * (128 * 128 + 128));
  // x + q, k, v, context copies + probabilities (heads x s x s); on CUDA the divisor is a CPU scalar.
  CHECK(a.network.activation_bytes == 2 * 64 * 128 * 4 * 5 + 2 * 4 * 64 * 64 * 4);
}

TEST_CASE("shape errors name the layer and both shapes", "[network]") {
  json net = article_003_network(false);
  net["layers"][2]["in"] = 2048;
  Error e = net_error(net);
  CHECK(e.field == "network.layers[2]");
  CHECK(e.message == "layers[2] (linear 'up'): in = 2048 does not match the incoming shape [4096]");

  net = article_003_network(false);
  net["layers"][4]["from"] = "input";
  e = net_error(net);
  CHECK(e.message == "layers[4] (add): shape [2048] of 'input' does not match the incoming shape [4096]");

  net = article_003_network(false);
  net["layers"][4]["from"] = "nothing";
  CHECK(net_error(net).message.find("names no earlier layer") != std::string::npos);

  json conv = {{"input", {100}}, {"layers", {{{"type", "conv2d"}, {"out", 4}, {"kernel", 3}}}}};
  CHECK(net_error(conv).message == "layers[0] (conv2d): needs a [channels, height, width] input, got [100]");
  json big_kernel = {{"input", {3, 4, 4}}, {"layers", {{{"type", "maxpool2d"}, {"kernel", 5}}}}};
  CHECK(net_error(big_kernel).message == "layers[0] (maxpool2d): kernel 5 does not fit the input [3, 4, 4]");
  json heads = {{"input", {16, 100}}, {"layers", {{{"type", "self_attention"}, {"heads", 3}}}}};
  CHECK(net_error(heads).message == "layers[0] (self_attention): heads (3) must divide the features of [16, 100]");
  json tokens = {{"input", {16}}, {"input_dtype", "i64"}, {"layers", {{{"type", "linear"}, {"out", 3}}}}};
  CHECK(net_error(tokens).field == "network.input_dtype");
  json twice = {{"input", {4}}, {"layers", {{{"type", "relu"}, {"name", "a"}}, {{"type", "relu"}, {"name", "a"}}}}};
  CHECK(net_error(twice).message == "layers[1] (relu 'a'): the name 'a' is used twice");
}

TEST_CASE("network JSON errors name the field", "[network]") {
  auto field_of = [](const json& network) { return net_error(network).field; };
  CHECK(field_of({{"input", {4}}, {"layers", {{{"type", "lstm"}}}}}) == "network.layers[0].type");
  CHECK(field_of({{"input", {4}}, {"layers", {{{"type", "linear"}}}}}) == "network.layers[0].out");
  CHECK(field_of({{"input", {4}}, {"layers", {{{"type", "linear"}, {"out", 0}}}}}) == "network.layers[0].out");
  CHECK(field_of({{"input", {4}}, {"layers", {{{"type", "relu"}, {"out", 3}}}}}) == "network.layers[0].out");
  CHECK(field_of({{"input", {4}}, {"layers", {{{"type", "dropout"}, {"p", 1.0}}}}}) == "network.layers[0].p");
  CHECK(field_of({{"input", "4"}, {"layers", json::array()}}) == "network.input");
  CHECK(field_of({{"input", {0}}, {"layers", {{{"type", "relu"}}}}}) == "network.input");
  CHECK(field_of({{"input", {4}}, {"layers", json::array()}}) == "network.layers");
  CHECK(field_of({{"input", {4}}, {"dtype", "i64"}, {"layers", {{{"type", "relu"}}}}}) == "network.dtype");
  json req = net_request(article_003_network(false), 1, "autograd");
  req["training"]["activation_rule"] = "outputs";
  CHECK(estimate_error(req).field == "training.activation_rule");
  req = net_request(article_003_network(false), 0, "autograd");
  CHECK(estimate_error(req).field == "training.batch");
  req = net_request(article_003_network(false), 1, "autograd");
  req["training"]["micro_batch"] = 2;  // a transformer field
  CHECK(estimate_error(req).field == "training.micro_batch");
}

TEST_CASE("optimizers other than torch.optim's, on a layer list, by hand", "[network]") {
  json net = {{"input", {100}}, {"layers", {{{"type", "linear"}, {"out", 50}}}}};  // weight 50x100, bias 50
  auto optimizer_bytes = [&](const char* optimizer) {
    return estimate_ok(net_request(net, 1, "autograd", optimizer)).network.optimizer.total();
  };
  // 8-bit Adam: the 5,000-element weight is quantized (2 x 1 B + 2 x 3 blocks x 4 B),
  // the 50-element bias is below 4,096 elements and keeps 32-bit states.
  CHECK(optimizer_bytes("adam_8bit") == 2 * 5000 + 2 * 3 * 4 + 2 * 50 * 4);
  // Adafactor: rows + columns for the weight, full for the bias, fp32.
  CHECK(optimizer_bytes("adafactor") == (50 + 100 + 50) * 4);
  CHECK(optimizer_bytes("lion") == 5050 * 4);
  CHECK(optimizer_bytes("adam") == 2 * 5050 * 4);  // its 2 step tensors stay on the CPU
}
