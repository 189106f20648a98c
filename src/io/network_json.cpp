#include "network_json.hpp"

#include "request_json.hpp"
#include "request_json_fields.hpp"

namespace vramfit {

using request_fields::Fields;

// "network": {"name", "input", "input_dtype", "dtype", "layers": [{"type": ..., ...}]}
std::optional<Error> network_from_json_at(const json& j, const std::string& path, Network& net) {
  Fields f{j, path + ".", std::nullopt};
  f.only({"name", "about", "input", "input_dtype", "dtype", "layers"});
  net.name = f.text("name", "");
  const std::string dtype = f.text("dtype", "f32");
  if (!f.error && (!parse_element_type(dtype, net.dtype) || net.dtype == ElementType::i64)) {
    f.fail("request.bad_value", path + ".dtype", "must be f32, f64, bf16 or f16 (got '" + dtype + "')");
  }
  const std::string input_dtype = f.text("input_dtype", dtype);
  if (!f.error && !parse_element_type(input_dtype, net.input_dtype)) {
    f.fail("request.bad_value", path + ".input_dtype", "must be f32, f64, bf16, f16 or i64 (got '" + input_dtype + "')");
  }
  if (f.error) return f.error;
  if (!j.contains("input") || !j.at("input").is_array()) {
    return make_error("request.wrong_type", path + ".input", path + ".input: must be an array of dimensions, e.g. [2048]");
  }
  for (const json& d : j.at("input")) {
    if (!d.is_number_integer())
      return make_error("request.wrong_type", path + ".input", path + ".input: dimensions must be integers");
    net.input.push_back(d.get<int64_t>());
  }
  if (!j.contains("layers") || !j.at("layers").is_array()) {
    return make_error("request.wrong_type", path + ".layers", path + ".layers: must be an array of layers");
  }
  if (j.at("layers").size() > static_cast<size_t>(kMaxNetworkLayers)) {
    return make_error("request.out_of_range", path + ".layers", path + ".layers: more than 4096 layers");
  }
  for (size_t i = 0; i < j.at("layers").size(); ++i) {
    const json& lj = j.at("layers")[i];
    const std::string lp = path + ".layers[" + std::to_string(i) + "]";
    if (!lj.is_object()) return make_error("request.wrong_type", lp, lp + ": must be an object");
    Fields lf{lj, lp + ".", std::nullopt};
    Layer L;
    const std::string type = lf.text("type", "");
    if (!lf.error && !parse_layer_type(type, L.type)) {
      lf.fail("request.bad_value", lp + ".type",
              "'" + type +
                  "' is not a layer type (linear, conv2d, batchnorm2d, layernorm, embedding, relu, gelu, "
                  "silu, sigmoid, tanh, softmax, dropout, maxpool2d, avgpool2d, flatten, add, self_attention)");
    }
    if (lf.error) return lf.error;
    switch (L.type) {
      case LayerType::linear: lf.only({"type", "name", "in", "out", "bias"}); break;
      case LayerType::conv2d: lf.only({"type", "name", "out", "kernel", "stride", "padding", "bias"}); break;
      case LayerType::embedding: lf.only({"type", "name", "vocab", "dim"}); break;
      case LayerType::dropout: lf.only({"type", "name", "p"}); break;
      case LayerType::maxpool2d:
      case LayerType::avgpool2d: lf.only({"type", "name", "kernel", "stride"}); break;
      case LayerType::add: lf.only({"type", "name", "from"}); break;
      case LayerType::self_attention: lf.only({"type", "name", "heads"}); break;
      default: lf.only({"type", "name"}); break;
    }
    L.name = lf.text("name", "");
    if (!lf.error && L.name == "input") lf.fail("request.bad_value", lp + ".name", "\"input\" names the network input");
    const int64_t big = int64_t(1) << 24;
    L.in = lf.integer("in", 0, 1, big);
    L.out = lf.integer("out", 0, 1, big);
    L.bias = lf.boolean("bias", true);
    L.kernel = lf.integer("kernel", 0, 1, 4096);
    L.stride = lf.integer("stride", 0, 1, 4096);
    L.padding = lf.integer("padding", 0, 0, 4096);
    L.vocab = lf.integer("vocab", 0, 1, big);
    L.dim = lf.integer("dim", 0, 1, int64_t(1) << 20);
    L.p = lf.number("p", 0.1, 0.0, 0.999);
    L.from = lf.text("from", "");
    L.heads = lf.integer("heads", 0, 1, 65536);
    auto need = [&](const char* key) {
      if (!lf.has(key)) lf.fail("request.missing_field", lp + "." + key, std::string("is required for ") + layer_type_id(L.type));
    };
    if (L.type == LayerType::linear || L.type == LayerType::conv2d) need("out");
    if (L.type == LayerType::conv2d || L.type == LayerType::maxpool2d || L.type == LayerType::avgpool2d) need("kernel");
    if (L.type == LayerType::embedding) {
      need("vocab");
      need("dim");
    }
    if (L.type == LayerType::add) need("from");
    if (L.type == LayerType::self_attention) need("heads");
    if (lf.error) return lf.error;
    net.layers.push_back(L);
  }
  return std::nullopt;
}

namespace {

json network_json(const Network& net) {
  json layers = json::array();
  for (const Layer& L : net.layers) {
    json l = {{"type", layer_type_id(L.type)}};
    if (!L.name.empty()) l["name"] = L.name;
    switch (L.type) {
      case LayerType::linear:
        if (L.in) l["in"] = L.in;
        l["out"] = L.out;
        if (!L.bias) l["bias"] = false;
        break;
      case LayerType::conv2d:
        l["out"] = L.out;
        l["kernel"] = L.kernel;
        if (L.stride) l["stride"] = L.stride;
        if (L.padding) l["padding"] = L.padding;
        if (!L.bias) l["bias"] = false;
        break;
      case LayerType::embedding:
        l["vocab"] = L.vocab;
        l["dim"] = L.dim;
        break;
      case LayerType::dropout: l["p"] = L.p; break;
      case LayerType::maxpool2d:
      case LayerType::avgpool2d:
        l["kernel"] = L.kernel;
        if (L.stride) l["stride"] = L.stride;
        break;
      case LayerType::add: l["from"] = L.from; break;
      case LayerType::self_attention: l["heads"] = L.heads; break;
      default: break;
    }
    layers.push_back(l);
  }
  json j = {{"input", net.input}, {"dtype", element_type_id(net.dtype)}, {"layers", layers}};
  if (!net.name.empty()) j["name"] = net.name;
  if (net.input_dtype != net.dtype) j["input_dtype"] = element_type_id(net.input_dtype);
  return j;
}

}  // namespace

Result<Network> network_from_json(const json& j, const std::string& path) {
  if (!j.is_object()) return make_error("request.wrong_type", path, path + ": must be an object");
  Network net;
  if (auto e = network_from_json_at(j, path, net)) return *e;
  return net;
}

json network_to_json(const Network& network) { return network_json(network); }

}  // namespace vramfit
