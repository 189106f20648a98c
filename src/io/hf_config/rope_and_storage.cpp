#include "config_sections.hpp"

namespace vramfit {

void read_rope_scaling(const json& config, ConfigReader& r, ModelSpec& s, HfConfigRead& out) {
  const char* key = config.contains("rope_scaling") ? "rope_scaling" : "rope_parameters";
  if (!config.contains(key) || !config.at(key).is_object()) return;
  ConfigReader rope{config.at(key), r.origin + ": " + key, std::nullopt};
  const std::string type = rope.text("rope_type", rope.text("type", ""));
  const double factor = rope.config.contains("factor") && rope.config.at("factor").is_number() ? rope.config.at("factor").get<double>() : 0.0;
  const int64_t original = rope.integer("original_max_position_embeddings", s.max_context_tokens);
  if (rope.error) {
    r.take_error(rope);
    return;
  }
  const std::string named = std::string(key) + " " + type;
  // Gemma 3's linear factor is already in its max_position_embeddings (vLLM's
  // _get_and_verify_max_len skips "gemma3" model types for the same reason).
  if (s.architecture.rfind("gemma3", 0) == 0) return;
  if ((type == "linear" || type == "yarn") && factor > 1.0 && factor < 1024.0 && original > 0) {
    const int64_t scaled = static_cast<int64_t>(static_cast<double>(original) * factor);
    if (scaled > s.max_context_tokens) {
      s.scaled_context_tokens = scaled;
      out.assumptions.push_back(named + " x " + json(factor).dump() + " over " + std::to_string(original) +
                                " positions: context up to " + std::to_string(scaled) + " tokens.");
    }
  } else if (type == "dynamic") {
    out.assumptions.push_back(named + ": RoPE is rescaled past max_position_embeddings with no set end; the context "
                              "warning uses max_position_embeddings.");
  } else if (!type.empty() && type != "default" && type != "llama3" && type != "longrope" && type != "su" &&
             type != "mrope") {  // Qwen2-VL's multimodal sections: no scaling
    out.assumptions.push_back(named + " is not one vramfit reads: the context is max_position_embeddings.");
  }
}

void read_stored_format(const json& config, ConfigReader& r, HfConfigRead& out) {
  if (config.contains("quantization_config") && config.at("quantization_config").is_object()) {
    const json& q = config.at("quantization_config");
    ConfigReader qr{q, r.origin, std::nullopt};
    const std::string method = qr.text("quant_method", "");
    const int64_t bits = qr.integer("bits", 4);
    int64_t group = 0;
    if (q.contains("group_size") && q.at("group_size").is_number_integer()) group = q.at("group_size").get<int64_t>();
    if (method == "gptq" || method == "awq") {
      out.stored_format = method == "awq" ? "awq-int4" : (bits == 8 ? "gptq-int8" : "gptq-int4");
      if (method == "awq" && bits != 4) out.assumptions.push_back("AWQ with " + std::to_string(bits) + " bits sized as AWQ int4");
      if (group > 0) out.stored_group_size = group;
      if (group < 0) {
        out.stored_group_size = 1 << 16;
        out.assumptions.push_back("group_size -1 (one group per column) sized as groups of 65,536 rows");
      }
    } else if (method == "bitsandbytes") {
      if (qr.boolean("load_in_8bit", false)) {
        out.stored_format = "bnb-int8";
      } else {
        const bool fp4 = qr.text("bnb_4bit_quant_type", "nf4") == "fp4";
        const bool double_quant = qr.boolean("bnb_4bit_use_double_quant", false);
        out.stored_format = fp4 ? "bnb-fp4" : (double_quant ? "bnb-nf4-dq" : "bnb-nf4");
      }
    } else if (method == "fp8" || method == "fbgemm_fp8") {
      out.stored_format = "fp8";
      if (q.contains("weight_block_size")) {
        out.assumptions.push_back("FP8 with block scales sized with one scale per tensor (the 128x128 block scales add 0.02%)");
      }
    } else if (method == "mxfp4") {
      out.stored_format = "mxfp4-moe";
    } else if (!method.empty()) {
      out.assumptions.push_back("quantization_config.quant_method '" + method + "' is not one vramfit sizes; weights sized by the chosen format");
    }
    r.take_error(qr);
    if (!out.stored_format.empty()) {
      out.stored_format_reason = "quantization_config: " + method;
      return;
    }
  }
  const std::string dtype = r.text("torch_dtype", r.text("dtype", ""));
  if (dtype == "bfloat16") out.stored_format = "bf16";
  else if (dtype == "float16") out.stored_format = "fp16";
  else if (dtype == "float32") out.stored_format = "fp32";
  if (!out.stored_format.empty()) out.stored_format_reason = "torch_dtype: " + dtype;
}

}  // namespace vramfit
