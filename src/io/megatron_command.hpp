// A Megatron-LM launch line as people paste it ("torchrun --nproc_per_node 8 --nnodes 2
// pretrain_gpt.py --tensor-model-parallel-size 2 ... --bf16"): the flags vramfit's Megatron
// model reads, under their own names, as the request's "training.megatron" object, and the
// world size torchrun's --nproc_per_node x --nnodes gives. Flags vramfit does not read (the
// model's shape comes from the model field; data, logging and learning-rate flags change no
// memory it models) are skipped; a value it cannot read ("$TP_SIZE") is an error naming the flag.
#pragma once
#include <string>

#include "core/result.hpp"
#include "io/json.hpp"

namespace vramfit {

struct MegatronCommand {
  json megatron = json::object();  // "training.megatron"
  int64_t world_size = 0;          // 0: the line does not say
};

Result<MegatronCommand> read_megatron_command(const std::string& line);

}  // namespace vramfit
