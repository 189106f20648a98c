#include "report/engines.hpp"

#include "report/engine_common.hpp"

namespace vramfit {

const EngineParts* engine_parts(Engine engine) {
  switch (engine) {
    case Engine::llamacpp: return &kLlamaCppParts;
    case Engine::vllm: return &kVllmParts;
    case Engine::transformers: return &kTransformersParts;
    default: return nullptr;
  }
}

}  // namespace vramfit
