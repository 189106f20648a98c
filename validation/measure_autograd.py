#!/usr/bin/python3
"""Measures, with PyTorch on the CPU, what training the networks in validation/networks/
really keeps in memory, and writes one JSON fixture per (network, batch, dtype) to
tests/fixtures/autograd/. The Catch2 tests compare vramfit's numbers to these fixtures, so
the tests never need PyTorch.

Measured per case:
  * parameter, buffer and gradient bytes after one backward pass;
  * optimizer-state bytes after one step of SGD, SGD with momentum, Adam and AdamW
    (every tensor in optimizer.state, each storage once);
  * the bytes autograd saves for backward during the forward pass, from
    torch.autograd.graph.saved_tensors_hooks: every saved tensor's storage counted once,
    parameters and buffers left out (they are model state, not activations).

Regenerate (Debian: apt-get install python3-torch):
  /usr/bin/python3 validation/measure_autograd.py
The network JSON is the same file vramfit reads (`vramfit net FILE`), so the model built here
is the model vramfit estimates; build_model() below is the reference meaning of each layer.
"""
import json
import math
import os
import sys

import torch
from torch import nn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NETWORKS = os.path.join(ROOT, "validation", "networks")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "autograd")

DTYPES = {"f32": torch.float32, "f64": torch.float64, "bf16": torch.bfloat16, "f16": torch.float16}

# (network file, batch, dtype)
CASES = [
    ("article-003-mlp", 128, "f32"),
    ("article-003-mlp", 8, "bf16"),
    ("article-003-mlp-bias", 128, "f32"),
    ("article-003-mlp-bias", 3, "f64"),
    ("cnn-bn-pool", 8, "f32"),
    ("cnn-bn-pool", 1, "f32"),
    ("transformer-block", 4, "f32"),
    ("transformer-block", 2, "bf16"),
    ("mlp-activations", 16, "f32"),
    ("mlp-activations", 5, "bf16"),
    ("mlp-activations", 2, "f64"),
    ("embedding-classifier", 4, "f32"),
    ("embedding-classifier", 7, "bf16"),
]


class SelfAttention(nn.Module):
    """vramfit's "self_attention" layer: exactly this code (no mask, no dropout)."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.o = nn.Linear(dim, dim)

    def forward(self, x):
        b, s, e = x.shape
        h, d = self.heads, e // self.heads
        q = self.q(x).view(b, s, h, d).transpose(1, 2)
        k = self.k(x).view(b, s, h, d).transpose(1, 2)
        v = self.v(x).view(b, s, h, d).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d)
        probs = torch.softmax(scores, dim=-1)
        ctx = torch.matmul(probs, v).transpose(1, 2).reshape(b, s, e)
        return self.o(ctx)


class Net(nn.Module):
    def __init__(self, spec):
        super().__init__()
        self.spec = spec
        self.mods = nn.ModuleList()
        shape = list(spec["input"])
        for layer in spec["layers"]:
            t = layer["type"]
            if t == "linear":
                m = nn.Linear(shape[-1], layer["out"], bias=layer.get("bias", True))
                shape = shape[:-1] + [layer["out"]]
            elif t == "conv2d":
                k, st, p = layer["kernel"], layer.get("stride", 1), layer.get("padding", 0)
                m = nn.Conv2d(shape[0], layer["out"], k, stride=st, padding=p, bias=layer.get("bias", True))
                shape = [layer["out"], (shape[1] + 2 * p - k) // st + 1, (shape[2] + 2 * p - k) // st + 1]
            elif t == "batchnorm2d":
                m = nn.BatchNorm2d(shape[0])
            elif t == "layernorm":
                m = nn.LayerNorm(shape[-1])
            elif t == "embedding":
                m = nn.Embedding(layer["vocab"], layer["dim"])
                shape = shape + [layer["dim"]]
            elif t in ("maxpool2d", "avgpool2d"):
                k = layer["kernel"]
                st = layer.get("stride", k)
                m = (nn.MaxPool2d if t == "maxpool2d" else nn.AvgPool2d)(k, stride=st)
                shape = [shape[0], (shape[1] - k) // st + 1, (shape[2] - k) // st + 1]
            elif t == "flatten":
                m = nn.Flatten()
                shape = [math.prod(shape)]
            elif t == "self_attention":
                m = SelfAttention(shape[-1], layer["heads"])
            else:
                m = {"relu": nn.ReLU(), "gelu": nn.GELU(), "silu": nn.SiLU(), "sigmoid": nn.Sigmoid(),
                     "tanh": nn.Tanh(), "softmax": nn.Softmax(dim=-1), "add": nn.Identity(),
                     "dropout": nn.Dropout(layer.get("p", 0.1))}[t]
            self.mods.append(m)

    def forward(self, x):
        named = {"input": x}
        for layer, m in zip(self.spec["layers"], self.mods):
            x = x + named[layer["from"]] if layer["type"] == "add" else m(x)
            if "name" in layer:
                named[layer["name"]] = x
        return x


def storage_key(t):
    s = t.storage()
    return (s.data_ptr(), s.nbytes())


def tensor_bytes(tensors):
    seen = {}
    for t in tensors:
        seen[storage_key(t)] = storage_key(t)[1]
    return sum(seen.values())


def make_input(spec, batch, dtype):
    torch.manual_seed(1)
    shape = [batch] + list(spec["input"])
    if spec.get("input_dtype") == "i64":
        vocab = next(l["vocab"] for l in spec["layers"] if l["type"] == "embedding")
        return torch.randint(0, vocab, shape, dtype=torch.int64)
    return torch.randn(shape, dtype=torch.float32).to(dtype)


def make_model(spec, dtype):
    torch.manual_seed(0)
    return Net(spec).to(dtype).train()


def measure(spec, batch, dtype_name):
    dtype = DTYPES[dtype_name]
    model = make_model(spec, dtype)
    x = make_input(spec, batch, dtype)
    state = {storage_key(t) for t in list(model.parameters()) + list(model.buffers())}
    saved = []

    def pack(t):
        if storage_key(t) not in state:
            saved.append(t)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = model(x)
    detail = {}
    for t in saved:
        key = storage_key(t)
        detail.setdefault(key, {"bytes": key[1], "dtype": str(t.dtype).replace("torch.", ""),
                                "shape": list(t.shape)})
    y.float().sum().backward()
    params = list(model.parameters())
    result = {
        "parameters": sum(p.numel() for p in params),
        "parameter_tensors": len(params),
        "parameter_bytes": tensor_bytes(params),
        "buffer_bytes": tensor_bytes(list(model.buffers())),
        "gradient_bytes": tensor_bytes([p.grad for p in params]),
        "saved_for_backward_bytes": sum(d["bytes"] for d in detail.values()),
        "saved_for_backward": sorted(detail.values(), key=lambda d: -d["bytes"]),
        "optimizer_state_bytes": {},
    }
    optimizers = {
        "sgd": lambda p: torch.optim.SGD(p, lr=1e-3),
        "sgd_momentum": lambda p: torch.optim.SGD(p, lr=1e-3, momentum=0.9),
        "adam": lambda p: torch.optim.Adam(p, lr=1e-3),
        "adamw": lambda p: torch.optim.AdamW(p, lr=1e-3),
    }
    for name, make in optimizers.items():
        m = make_model(spec, dtype)
        opt = make(m.parameters())
        m(make_input(spec, batch, dtype)).float().sum().backward()
        opt.step()
        states = [v for st in opt.state.values() for v in st.values() if torch.is_tensor(v)]
        result["optimizer_state_bytes"][name] = tensor_bytes(states)
    return result


def main():
    os.makedirs(FIXTURES, exist_ok=True)
    for name, batch, dtype in CASES:
        with open(os.path.join(NETWORKS, name + ".json")) as f:
            spec = json.load(f)
        measured = measure(spec, batch, dtype)
        network = dict(spec)
        network["dtype"] = dtype
        fixture = {
            "about": "Measured by validation/measure_autograd.py; do not edit by hand.",
            "pytorch": torch.__version__,
            "device": "cpu",
            "batch": batch,
            "network": network,
            "measured": measured,
        }
        out = os.path.join(FIXTURES, f"{name}-b{batch}-{dtype}.json")
        with open(out, "w") as f:
            json.dump(fixture, f, indent=1)
            f.write("\n")
        print(f"{os.path.basename(out)}: params {measured['parameters']}, saved {measured['saved_for_backward_bytes']} B")


if __name__ == "__main__":
    sys.exit(main())
