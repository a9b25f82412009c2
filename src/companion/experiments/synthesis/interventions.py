"""The synthesis chapter's interventions and controls beyond the four clocks:

* :func:`lazy_fit` — transfer against laziness: kernel regression with a GrokTransfer target's
  initial tangent kernel K₀ (the lazy model of Kumar et al. §3) on the target's own split. If the
  transferred embedding removes grokking by aligning K₀ with the task (Kumar et al.), the lazy
  model already reaches the accuracy the target reaches; if the target still learns features
  (Xu et al. Thm 3.2: "not in a kernel regime but a feature learning regime"), it falls short.
  The scratch target's K₀ is the control: both papers expect it misaligned.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch

from companion.experiments.synthesis.configs import PAPER, Setting
from companion.experiments.synthesis.experiments import setting
from companion.experiments.synthesis.settings import build
from companion.measures.kernels import fnn_ntk, kernel_regression
from companion.profiles import select
from companion.settings import unstated
from companion.store.cache import experiment


@dataclass(frozen=True)
class LazyFit:
    """Kernel regression with the initial pNTK of ``target``'s seeds (none of it is in the papers)."""

    target: Setting  # an FNN setting (fnn_scratch or fnn_transfer): its seeds' initial modules and split
    ridge: float = unstated(1e-6)  # λ over the mean diagonal of K₀: the ridgeless limit, kept solvable
    n_test: int = unstated(0)  # test points used (0: all of them)


#: the lazy fit of each FNN target (its own profile's setting); cpu and smoke read the first test points
#: only (the split is shuffled: 2000 give the accuracy to about ±0.01)
LAZY = {"paper": LazyFit(PAPER["fnn_transfer"]), "cpu": LazyFit(PAPER["fnn_transfer"], n_test=2000),
        "smoke": LazyFit(PAPER["fnn_transfer"], n_test=500)}
#: the targets whose K₀ is read: the transferred one (the test) and the scratch one (the control)
LAZY_TARGETS = ("fnn_transfer", "fnn_scratch")


def lazy_fits(profile: str, device: str, seed: int = 0) -> dict[str, dict]:
    """:func:`lazy_fit` of each of :data:`LAZY_TARGETS` at ``profile``: {setting: per-seed accuracies}."""
    return {n: lazy_fit(replace(select(LAZY, profile), target=setting(profile, n, seed)), device)
            for n in LAZY_TARGETS}


@experiment
def lazy_fit(cfg: LazyFit, device: str = "cpu") -> dict:
    """Per seed: train and test accuracy of kernel regression with the seed's initial pNTK K₀ (Σ_c f_c/√k,
    :func:`companion.measures.kernels.fnn_ntk`) about the initial outputs, on the one-hot labels of the
    target's training split (:func:`companion.measures.kernels.kernel_regression`)."""
    if not cfg.target.kind.startswith("fnn"):
        raise ValueError(f"lazy_fit reads an FNN target, not {cfg.target.kind!r}")
    models, datas = build(cfg.target, device)
    out = {"train_acc": [], "test_acc": [], "chance": 1 / cfg.target.p}
    with torch.no_grad():
        for m, d in zip(models, datas):
            xt = d.test_x if cfg.n_test <= 0 else d.test_x[: cfg.n_test]
            yt = d.test_y if cfg.n_test <= 0 else d.test_y[: cfg.n_test]
            K, Ks = fnn_ntk(m, d.train_x), fnn_ntk(m, xt, d.train_x)
            f0, f0s = m(d.train_x), m(xt)
            pred = kernel_regression(K, torch.cat([K, Ks]), d.train_y, f0, torch.cat([f0, f0s]), cfg.ridge)
            n = len(d.train_y)
            out["train_acc"].append(float((pred[:n].argmax(-1) == d.train_y).double().mean()))
            out["test_acc"].append(float((pred[n:].argmax(-1) == yt).double().mean()))
    return out
