"""The first minute of a GPU window: how fast one training step is, before the campaign spends the rest.

Three numbers, each the median of timed full-batch AdamW steps of the shared one-layer transformer (Nanda et al.'s
shape, p = 113, 30% of the pairs) after a warm-up, written to ``gpu_window.json`` beside this file:

* ``k1_ms`` and ``k16_ms`` — one member, and 16 members vmapped as one program (the seeds and sweeps the book
  batches): how far a step is from its launch floor, and whether 16 seeds cost ≤ 1.5× one;
* ``fp32_ms`` and ``tf32_ms`` — one wide member (d_model 512) with TF32 matmuls off and on (a no-op on a CPU).

Run: ``python benchmarks/gpu_window.py [--device cuda] [--seconds 60]``; it stops timing when its budget is spent.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import torch

from companion.data.modular import modular_arithmetic
from companion.models.transformer import Transformer, TransformerConfig
from companion.train.ensemble import Ensemble

HERE = Path(__file__).resolve().parent


def step_ms(k: int, d_model: int, device: str, deadline: float, steps: int = 20) -> float:
    """Median milliseconds of one full-batch AdamW step of ``k`` vmapped transformers (d_model ``d_model``)."""
    data = modular_arithmetic(113, "add", 0.3, 0).to(device)
    cfg = TransformerConfig(p=113, d_model=d_model, d_mlp=4 * d_model)
    ens = Ensemble([Transformer(cfg, seed=s).to(device) for s in range(k)])
    params = ens.parameters()
    opt = torch.optim.AdamW(params, lr=1e-3, weight_decay=1.0)
    x, y = data.train_x.expand(k, *data.train_x.shape), data.train_y.expand(k, *data.train_y.shape)
    times = []
    for i in range(steps + 3):
        if time.time() > deadline:
            break
        t0 = time.perf_counter()
        logits = ens.forward(x)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        if i >= 3:  # the first steps compile kernels and fill caches
            times.append(1e3 * (time.perf_counter() - t0))
    return statistics.median(times) if times else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--seconds", type=float, default=60.0)
    args = ap.parse_args()
    deadline = time.time() + args.seconds
    out = {"device": torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu",
           "torch": torch.__version__}
    out["k1_ms"] = step_ms(1, 128, args.device, deadline)
    out["k16_ms"] = step_ms(16, 128, args.device, deadline)
    for name, tf32 in (("fp32_ms", False), ("tf32_ms", True)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        out[name] = step_ms(1, 512, args.device, deadline)
    torch.backends.cuda.matmul.allow_tf32 = False
    out["k16_over_k1"] = out["k16_ms"] / out["k1_ms"]
    (HERE / "gpu_window.json").write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
