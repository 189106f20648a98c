#!/usr/bin/env python3
"""Runs Megatron-LM's own memory estimator on reference configurations and writes its figures.

    python3 validation/megatron/theoretical_memory.py MEGATRON_CHECKOUT [COMMIT] > tests/fixtures/megatron/theoretical_memory.json

MEGATRON_CHECKOUT is a Megatron-LM source tree; its megatron/training/theoretical_memory_usage.py
is loaded as it is (its one import from the package, print_rank_0 and is_hybrid_model, is
given here) and called with the argument namespace arguments.py would build for each launch
line below (the derived values as arguments.py derives them: data_parallel_size,
expert_tensor_parallel_size, num_query_groups, the padded vocabulary, the number of
micro-batches). COMMIT names the checkout's commit when it is not a git work tree.
tests/test_megatron.cpp checks vramfit's first-stage figures against these.
"""
import argparse, contextlib, io, json, math, subprocess, sys, types
from pathlib import Path

# Each configuration: a model preset of vramfit (data/models.json) with its shape as Megatron's
# flags, and the parallel layout (the flags' names with dashes as underscores).
MODELS = {
    "llama-3.1-8b": dict(num_layers=32, hidden_size=4096, ffn_hidden_size=14336, num_attention_heads=32, kv_channels=128,
                          num_query_groups=8, vocab=128256, swiglu=True, untie=True),
    "llama-2-7b": dict(num_layers=32, hidden_size=4096, ffn_hidden_size=11008, num_attention_heads=32, kv_channels=128,
                        num_query_groups=32, vocab=32000, swiglu=True, untie=True),
    "llama-3.1-70b": dict(num_layers=80, hidden_size=8192, ffn_hidden_size=28672, num_attention_heads=64, kv_channels=128,
                           num_query_groups=8, vocab=128256, swiglu=True, untie=True),
    "mixtral-8x7b": dict(num_layers=32, hidden_size=4096, ffn_hidden_size=14336, num_attention_heads=32, kv_channels=128,
                          num_query_groups=8, vocab=32000, swiglu=True, untie=True, num_experts=8, moe_router_topk=2),
    "qwen3-30b-a3b": dict(num_layers=48, hidden_size=2048, ffn_hidden_size=6144, num_attention_heads=32, kv_channels=128,
                           num_query_groups=4, vocab=151936, swiglu=True, untie=True, num_experts=128, moe_router_topk=8,
                           moe_ffn_hidden_size=768),
}
CONFIGS = [
    # examples/llama/train_llama3_8b_h100_fp8.sh as it ships: 8 GPUs, TP 1, seq 8192, distributed optimizer.
    dict(name="llama3-8b-example", model="llama-3.1-8b", world_size=8, tp=1, pp=1, mbs=1, gbs=128, seq=8192,
         sp=False, dist_opt=True, recompute=None),
    # The layouts for Llama 2 7B on 8 GPUs.
    dict(name="llama2-7b-tp2-pp2", model="llama-2-7b", world_size=8, tp=2, pp=2, mbs=1, gbs=64, seq=4096,
         sp=True, dist_opt=True, recompute="selective"),
    dict(name="llama2-7b-tp8", model="llama-2-7b", world_size=8, tp=8, pp=1, mbs=2, gbs=32, seq=4096,
         sp=True, dist_opt=False, recompute="selective"),
    dict(name="llama2-7b-tp2-pp4-nosp", model="llama-2-7b", world_size=16, tp=2, pp=4, mbs=1, gbs=16, seq=4096,
         sp=False, dist_opt=True, recompute=None),
    # Llama 3.1 70B on 64 GPUs: TP 8, PP 4, interleaved with 5 layers per virtual stage.
    dict(name="llama3-70b-tp8-pp4-vpp4", model="llama-3.1-70b", world_size=64, tp=8, pp=4, vpp_layers=5, mbs=1, gbs=512,
         seq=8192, sp=True, dist_opt=True, recompute="selective"),
    # Llama 3.1 70B with fewer micro-batches than stages (the estimator's min(1, nmb / pp)).
    dict(name="llama3-70b-tp8-pp8-few-microbatches", model="llama-3.1-70b", world_size=64, tp=8, pp=8, mbs=1, gbs=4,
         seq=4096, sp=True, dist_opt=False, recompute="selective"),
    # examples/mixtral/train_mixtral_8x7b_distributed.sh: TP 1, PP 4, EP 8 on 4 nodes of 8.
    dict(name="mixtral-8x7b-example", model="mixtral-8x7b", world_size=32, tp=1, pp=4, ep=8, mbs=1, gbs=256, seq=4096,
         sp=False, dist_opt=True, recompute=None),
    # Qwen3-30B-A3B: TP 2 with sequence parallelism, EP 8, expert TP 1.
    dict(name="qwen3-30b-a3b-tp2-ep8", model="qwen3-30b-a3b", world_size=16, tp=2, pp=1, ep=8, etp=1, mbs=1, gbs=64,
         seq=4096, sp=True, dist_opt=True, recompute="selective"),
]


def load_estimator(checkout):
    source = Path(checkout) / "megatron" / "training" / "theoretical_memory_usage.py"
    text = source.read_text().replace("from .utils import is_hybrid_model, print_rank_0",
                                      "from _megatron_utils import is_hybrid_model, print_rank_0")
    sys.modules["_megatron_utils"] = types.SimpleNamespace(is_hybrid_model=lambda args: False,
                                                           print_rank_0=lambda *a, **k: None)
    module = types.ModuleType("theoretical_memory_usage")
    exec(compile(text, str(source), "exec"), module.__dict__)
    return module


def namespace(config):
    m = MODELS[config["model"]]
    tp, pp = config["tp"], config["pp"]
    multiple = 128 * tp  # --make-vocab-size-divisible-by 128 (the default) x TP
    a = argparse.Namespace(
        num_layers=m["num_layers"], hidden_size=m["hidden_size"], ffn_hidden_size=m["ffn_hidden_size"],
        num_attention_heads=m["num_attention_heads"], kv_channels=m["kv_channels"],
        group_query_attention=m["num_query_groups"] != m["num_attention_heads"], num_query_groups=m["num_query_groups"],
        swiglu=m["swiglu"], normalization="RMSNorm", untie_embeddings_and_output_weights=m["untie"],
        padded_vocab_size=math.ceil(m["vocab"] / multiple) * multiple, add_bias_linear=False,
        num_experts=m.get("num_experts"), moe_router_topk=m.get("moe_router_topk", 2),
        moe_ffn_hidden_size=m.get("moe_ffn_hidden_size", m["ffn_hidden_size"]) if m.get("num_experts") else None,
        moe_layer_freq=1, moe_shared_expert_intermediate_size=None, moe_latent_size=None, mtp_num_layers=None,
        multi_latent_attention=False,
        world_size=config["world_size"], tensor_model_parallel_size=tp, pipeline_model_parallel_size=pp,
        context_parallel_size=1, expert_model_parallel_size=config.get("ep", 1),
        expert_tensor_parallel_size=config.get("etp", tp),
        virtual_pipeline_model_parallel_size=(m["num_layers"] // pp // config["vpp_layers"]) if "vpp_layers" in config else None,
        sequence_parallel=config["sp"], use_distributed_optimizer=config["dist_opt"],
        recompute_granularity=config["recompute"], micro_batch_size=config["mbs"], seq_length=config["seq"])
    a.data_parallel_size = a.world_size // (tp * pp * a.context_parallel_size)  # arguments.py
    num_microbatches = config["gbs"] // (config["mbs"] * a.data_parallel_size)
    return a, num_microbatches


def main():
    checkout = sys.argv[1]
    estimator = load_estimator(checkout)
    commit = sys.argv[2] if len(sys.argv) > 2 else subprocess.run(
        ["git", "-C", checkout, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    out = {"source": "megatron/training/theoretical_memory_usage.py, report_theoretical_memory", "megatron_commit": commit,
           "configurations": []}
    for config in CONFIGS:
        args, nmb = namespace(config)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            weight_opt, activation, total = estimator.report_theoretical_memory(args, num_microbatches=nmb)
        out["configurations"].append(dict(config, num_microbatches=nmb, padded_vocab_size=args.padded_vocab_size,
                                          weight_and_optimizer_mb=weight_opt, activation_mb=activation, total_mb=total,
                                          printed=printed.getvalue().strip()))
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
