"""Benchmark: three seeds of the grokking chapter's cpu run as one batched program
(``companion.train.train_batched``) against one seed alone (``companion.train.train``).

The claims framework asks for ≥ 3 seeds per claim from a trained run; batching must keep that
affordable: at cpu sizes, 3 seeds should cost at most 1.5× one seed. Both arms run the cpu
profile's config (p = 47, 40% of pairs, d_model 128) with the same number of steps and the same
evaluation schedule, on one thread, twice each (the faster time is kept).

Run: ``python benchmarks/grokking_seeds.py [STEPS]`` (default 1000 steps: the ratio, not the
total, is the point). Writes ``benchmarks/grokking_seeds.json``.
"""

import json
import platform
import sys
import time
from dataclasses import replace
from pathlib import Path

import torch

from companion.experiments import grokking as ex
from companion.train import train, train_batched, weight_norm

torch.set_num_threads(1)
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
cfg = ex.config("cpu")
cfg = replace(cfg, train=replace(cfg.train, steps=steps, n_evals=max(10, cfg.train.n_evals * steps // cfg.train.steps)))


def one() -> float:
    data, model = ex._setup(cfg, "cpu")
    t0 = time.perf_counter()
    train(model, data, cfg.train, measures={"weight_norm": weight_norm})
    return time.perf_counter() - t0


def three() -> float:
    setups = [ex._setup(c, "cpu") for c in ex.seed_configs(cfg, 3)]
    t0 = time.perf_counter()
    train_batched([m for _, m in setups], [d for d, _ in setups], cfg.train,
                  measures=[{"weight_norm": weight_norm} for _ in setups])
    return time.perf_counter() - t0


t1 = min(one() for _ in range(2))
t3 = min(three() for _ in range(2))
result = {"what": "grokking cpu config, 1 seed (train) vs 3 seeds batched (train_batched)", "steps": steps,
          "n_evals": cfg.train.n_evals, "one_seed_s": round(t1, 2), "three_seeds_batched_s": round(t3, 2),
          "ratio": round(t3 / t1, 3), "target": "≤ 1.5", "threads": 1, "torch": torch.__version__,
          "cpu": platform.processor() or platform.machine(), "date": time.strftime("%Y-%m-%d")}
print(json.dumps(result, indent=1))
Path(__file__).with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
