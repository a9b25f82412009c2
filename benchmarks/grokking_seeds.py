"""Benchmark: three seeds of the grokking chapter's cpu run as one batched program
(``companion.train.train_batched``) against one seed alone (``companion.train.train``).

The claims framework asks for ≥ 3 seeds per claim from a trained run; batching must keep that
affordable: at cpu sizes, 3 seeds should cost at most 1.5× one seed. Both arms run the cpu
profile's config (``ex.config("cpu")``, whatever its table size and width are today; the json records
the one measured) with the same number of steps and the same evaluation schedule, twice each (the
faster time is kept); on the CPU with one thread.

Run: ``python benchmarks/grokking_seeds.py [STEPS] [DEVICE]`` (default 1000 steps on ``cpu``: the
ratio, not the total, is the point). Writes ``benchmarks/grokking_seeds.json`` (``cpu``) or
``benchmarks/grokking_seeds_<device>.json``.

On a 2-core CPU this run is compute-bound (about 27 ms a step for one seed), so three seeds cost
about three times one whatever the batching; the 1.5× target is met only where one seed leaves
the device mostly idle, as on a GPU: ``python benchmarks/grokking_seeds.py 1000 cuda``.
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

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
device = sys.argv[2] if len(sys.argv) > 2 else "cpu"
if device not in ("cpu", "cuda"):
    sys.exit(f"unknown device {device!r}; valid devices: cpu, cuda")
if device == "cpu":
    torch.set_num_threads(1)


def sync() -> None:
    if device == "cuda":
        torch.cuda.synchronize()
cfg = ex.config("cpu")
cfg = replace(cfg, train=replace(cfg.train, steps=steps, n_evals=max(10, cfg.train.n_evals * steps // cfg.train.steps)))


def one() -> float:
    data, model = ex._setup(cfg, device)
    sync()
    t0 = time.perf_counter()
    train(model, data, cfg.train, measures={"weight_norm": weight_norm})
    sync()
    return time.perf_counter() - t0


def three() -> float:
    setups = [ex._setup(c, device) for c in ex.seed_configs(cfg, 3)]
    sync()
    t0 = time.perf_counter()
    train_batched([m for _, m in setups], [d for d, _ in setups], cfg.train,
                  measures=[{"weight_norm": weight_norm} for _ in setups])
    sync()
    return time.perf_counter() - t0


t1 = min(one() for _ in range(2))
t3 = min(three() for _ in range(2))
result = {"what": "grokking cpu config, 1 seed (train) vs 3 seeds batched (train_batched)",
          "config": f"p = {cfg.p}, {cfg.train_frac:.0%} of the pairs ({cfg.split} split), d_model {cfg.model.d_model}",
          "steps": steps,
          "n_evals": cfg.train.n_evals, "one_seed_s": round(t1, 2), "three_seeds_batched_s": round(t3, 2),
          "ratio": round(t3 / t1, 3), "target": "≤ 1.5", "device": device, "torch": torch.__version__,
          "threads": torch.get_num_threads() if device == "cpu" else None,
          "cpu": platform.processor() or platform.machine(), "date": time.strftime("%Y-%m-%d")}
if device == "cuda":
    result["gpu"] = torch.cuda.get_device_name()
print(json.dumps(result, indent=1))
name = "grokking_seeds" if device == "cpu" else f"grokking_seeds_{device}"
Path(__file__).with_name(name + ".json").write_text(json.dumps(result, indent=1) + "\n")
