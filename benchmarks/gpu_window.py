"""The first minute of a GPU window: how fast one training step is, before the campaign spends the rest.

Three numbers, each the median of timed full-batch AdamW steps of the shared one-layer transformer (Nanda et al.'s
shape, p = 113, 30% of the pairs) after a warm-up, written to ``gpu_window.json`` beside this file:

* ``k1_ms`` and ``k16_ms`` — one member, and 16 members vmapped as one program (the seeds and sweeps the book
  batches): how far a step is from its launch floor, and whether 16 seeds cost ≤ 1.5× one;
* ``fp32_ms`` and ``tf32_ms`` — one wide member (d_model 512) in :func:`companion.train.precision.scope`'s
  ``float32`` and ``tf32`` (TF32 matmuls off and on; a no-op on a CPU).

* ``graph_k1_ms``, ``graph_k16_ms`` and ``eager_k1_ms``, ``eager_k16_ms`` — the library's own loop
  (:func:`companion.train.fit.fit` with the device-resident optimizer) with its step replayed from a CUDA graph and
  without (``COMPANION_CUDA_GRAPHS``), and ``graph_max_diff``: the largest difference between the parameters the
  two reach from one initialisation in 100 steps (0 when the replay runs the eager kernels), and
  ``eager_max_diff``: the same between two eager runs (what the device's own nondeterminism gives; the
  2026-11-28 window measured 0.19 for the first and did not measure this).
* ``eager_k1_ops`` — the operator calls of that K = 1 step (:func:`reference_ops`), which
  ``companion.pipeline.gpu_cost`` divides ``eager_k1_ms`` and ``graph_k1_ms`` by to model other experiments'
  steps on the GPU from a CPU dry run's counts (``--count-only`` adds it to a record made before it was counted;
  ``eager_k1_ops_counted_on`` says where it was counted: the eager step dispatches the same operators on either).

Run: ``python benchmarks/gpu_window.py [--device cuda] [--seconds 60]``; it stops timing when its budget is spent.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import torch

from companion.data.modular import modular_arithmetic
from companion.models.transformer import Transformer, TransformerConfig
from companion.train import precision
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


def fit_run(k: int, device: str, graphs: bool, steps: int) -> tuple[float, list[torch.Tensor]]:
    """(ms per step, final parameters) of ``steps`` full-batch steps of ``k`` vmapped transformers through the
    library's loop, the step captured in a CUDA graph or not."""
    from companion.train.ensemble import ensemble_loss
    from companion.train.fit import fit
    from companion.train.optim import BatchedOptimizer

    os.environ["COMPANION_CUDA_GRAPHS"] = "1" if graphs else "0"
    data = modular_arithmetic(113, "add", 0.3, 0).to(device)
    cfg = TransformerConfig(p=113, d_model=128, d_mlp=512)
    ens = Ensemble([Transformer(cfg, seed=s).to(device) for s in range(k)])
    params = ens.parameters()
    opt = BatchedOptimizer(params, "adamw", 1e-3, 1.0)
    x, y = data.train_x.expand(k, *data.train_x.shape), data.train_y.expand(k, *data.train_y.shape)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    fit(params, opt, steps, evals={0}, record=lambda t: False, loss=lambda t: ensemble_loss(ens.forward(x), y),
        warmup=10, static=True)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    return 1e3 * (time.perf_counter() - t0) / steps, [p.detach().clone() for p in params]


def reference_ops(device: str) -> int:
    """Operator calls of one eager step of :func:`fit_run` at K = 1 (the step ``eager_k1_ms`` times), counted as
    the difference of a 3- and a 2-step run: what ``companion.pipeline.gpu_cost`` divides the measured time by."""
    from companion.store.opcount import Counter

    counts = []
    for steps in (2, 3):
        with Counter() as c:
            fit_run(1, device, False, steps)
        counts.append(c.count.ops)
    return counts[1] - counts[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--count-only", action="store_true",
                    help="only add the reference step's operator count (eager_k1_ops) to the existing record")
    args = ap.parse_args()
    if args.count_only:
        record = json.loads((HERE / "gpu_window.json").read_text())
        record["eager_k1_ops"] = reference_ops(args.device)
        record["eager_k1_ops_counted_on"] = args.device
        (HERE / "gpu_window.json").write_text(json.dumps(record, indent=1))
        print(json.dumps(record, indent=1))
        return
    deadline = time.time() + args.seconds
    out = {"device": torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu",
           "torch": torch.__version__}
    out["k1_ms"] = step_ms(1, 128, args.device, deadline)
    out["k16_ms"] = step_ms(16, 128, args.device, deadline)
    for name, p in (("fp32_ms", "float32"), ("tf32_ms", "tf32")):
        with precision.scope(p, args.device):  # the library's settings (never the legacy allow_tf32 flags)
            out[name] = step_ms(1, 512, args.device, deadline)
    out["k16_over_k1"] = out["k16_ms"] / out["k1_ms"]
    for k in (1, 16):
        for graphs in (False, True):
            if time.time() < deadline:
                ms, final = fit_run(k, args.device, graphs, 300)
                out[f"{'graph' if graphs else 'eager'}_k{k}_ms"] = ms
    out["eager_k1_ops"], out["eager_k1_ops_counted_on"] = reference_ops(args.device), args.device
    if time.time() < deadline:
        _, eager = fit_run(4, args.device, False, 100)
        _, replayed = fit_run(4, args.device, True, 100)
        out["graph_max_diff"] = max(float((a - b).abs().max()) for a, b in zip(eager, replayed))
        _, again = fit_run(4, args.device, False, 100)
        out["eager_max_diff"] = max(float((a - b).abs().max()) for a, b in zip(eager, again))
    (HERE / "gpu_window.json").write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
