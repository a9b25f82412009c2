"""What an experiment will cost on a GPU, modelled before a GPU is at hand from what a CPU dry run counted.

A dry run on the CPU counts, for every loop it probes, the FLOPs and operator calls of one plain and one evaluation
iteration (:mod:`companion.store.opcount`). A step of the book's small networks on a GPU is bound either by the
host, which dispatches its operators one by one, or by the arithmetic, so the model of one iteration is

    eager     max(ops · t_host,   flops / R)
    captured  max(ops · t_graph,  flops / R)      (the step replayed from a CUDA graph, :mod:`companion.train.graph`)
    limit     max(ops · t_kernel, flops / R_peak) (the hardware: kernels back to back at the chip's peak)

with ``t_host`` and ``t_graph`` the last GPU window's measured eager and replayed step of the one-layer transformer
(``benchmarks/gpu_window.json``: ``eager_k1_ms``, ``graph_k1_ms``) divided by that same step's operator count
(``eager_k1_ops``, counted by ``benchmarks/gpu_window.py``); ``R`` the fastest sustained rate a window measured
and ``R_peak`` the chip's FP32 peak (:data:`RATES`). An experiment's cost is the sum over its loops (nested
experiments included) plus its host work outside them as the CPU timed it. It is a
model: ``benchmarks/gpu_engine.md`` sets it against the windows' measured steps per model family.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

#: the GPU the rates are for, and where each number comes from
RATES = {
    "device": "NVIDIA H100 80GB HBM3",
    # ResNet-18 at 224² with cuDNN's TF32 convolutions: 40.5 TFLOP an epoch as torch's FLOP counter counts it, in
    # 1.52 s (the 2026-11-28 window's dry run: 507 min for 20 000 epochs)
    "sustained_flops": 26.6e12,
    "peak_flops": 67e12,  # FP32 without tensor cores, the H100 SXM datasheet
    # the kernels of one transformer step, ≈ 0.6 ms for ≈ 570 operators (the profile of the 2026-11-22 window)
    "kernel_s": 0.6e-3 / 570,
}

#: the micro-benchmark a GPU window writes (``benchmarks/gpu_window.py``)
WINDOW_FILE = Path(__file__).resolve().parents[3] / "benchmarks" / "gpu_window.json"


@dataclass(frozen=True)
class Calibration:
    """Seconds per operator call on the GPU (eager and replayed) and the rates, from one window's benchmark."""

    host_s: float
    graph_s: float
    kernel_s: float
    sustained_flops: float
    peak_flops: float
    source: str


def calibration(window: Path = WINDOW_FILE) -> Calibration | None:
    """The model's constants from a window's ``gpu_window.json`` (None when there is none, or it lacks the loop's
    eager and replayed step or that step's operator count, ``eager_k1_ops``)."""
    try:
        w = json.loads(Path(window).read_text())
        eager, replayed = float(w["eager_k1_ms"]) / 1e3, float(w["graph_k1_ms"]) / 1e3
        n = int(w["eager_k1_ops"])
    except (OSError, KeyError, ValueError):
        return None
    return Calibration(eager / n, replayed / n, RATES["kernel_s"], RATES["sustained_flops"], RATES["peak_flops"],
                       f"{w.get('device', '?')}, torch {w.get('torch', '?')}: {1e3 * eager:.2f} ms eager and "
                       f"{1e3 * replayed:.2f} ms replayed for a step of {n} operator calls")


def _iteration(flops: int, ops: int, cal: Calibration) -> dict:
    return {"eager": max(ops * cal.host_s, flops / cal.sustained_flops),
            "captured": max(ops * cal.graph_s, flops / cal.sustained_flops),
            "limit": max(ops * cal.kernel_s, flops / cal.peak_flops)}


def loop_seconds(loop: dict, cal: Calibration) -> dict | None:
    """A probed loop's modelled seconds on the GPU: ``eager``, ``captured``, ``limit`` (None if nothing was
    counted in it: a probe on a GPU counts nothing)."""
    if "step_ops" not in loop:
        return None
    step = _iteration(loop["step_flops"], loop["step_ops"], cal)
    ev = _iteration(loop["eval_flops"], loop["eval_ops"], cal)
    n_plain = loop["n_steps"] - loop["n_evals"]
    return {k: n_plain * step[k] + loop["n_evals"] * ev[k] for k in step}


def experiment_seconds(row: dict, cal: Calibration) -> dict | None:
    """A dry run's row (its loops, its nested experiments' loops, its host work outside loops) on the GPU: the
    modelled ``eager``, ``captured`` and ``limit`` seconds, and ``flops`` in all. None where a loop was probed but
    not counted."""
    loops = list(row.get("loops", [])) + [lp for n in row.get("nested_loops", []) for lp in n]
    per = [loop_seconds(lp, cal) for lp in loops]
    if any(p is None for p in per):
        return None
    out = {k: row.get("overhead", 0.0) + sum(p[k] for p in per) for k in ("eager", "captured", "limit")}
    out["flops"] = sum((lp["n_steps"] - lp["n_evals"]) * lp["step_flops"] + lp["n_evals"] * lp["eval_flops"]
                       for lp in loops)
    return out


def format_flops(f: float) -> str:
    if not math.isfinite(f) or f <= 0:
        return "0"
    for unit, scale in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6)):
        if f >= scale:
            return f"{f / scale:.1f} {unit}"
    return f"{f:.0f} "
