"""Figs. 5 and 19 of Kumar et al. (§6.1, App. 17): labels that are eigenvectors of the initial
NTK, learnt by the N = 2 committee machine; one batched neuron-level run per label index j."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import torch

from companion.cache import experiment
from companion.experiments.lazy_rich.closure import DT
from companion.experiments.lazy_rich.measures import half_times, increasing
from companion.theory import lazy_rich as th
from companion.train.fit import log_steps
from companion.train.lazy_rich import run_committee


@dataclass(frozen=True)
class EigenvectorLabels:
    """§6.1 / Fig. 5: Gaussian inputs, labels = j-th eigenvector of the initial NTK on all 2P
    points (first P train, last P test); N=2, ε=0.25, α=1, η = 0.5N/α², centred, 25k epochs."""

    D: int = 100  # input dimension
    P: int = 100  # training points (as many test points)
    N: int = 2  # hidden units
    eps: float = 0.25  # quadratic part of φ
    alpha: float = 1.0  # output scale
    eta0: float = 0.5  # η = η0·N/α²
    steps: int = 25_000  # full-batch GD steps
    js: tuple = (1, 70, 100)  # label indices: top, mid-spectrum, tail
    seed: int = 0  # data seed; weight seed = seed + 1
    n_log: int = 120  # log-spaced evaluation steps


@dataclass(frozen=True)
class EigenvectorLabelsGrid:
    """Fig. 19: the Fig. 5 protocol over data set sizes."""

    base: EigenvectorLabels = EigenvectorLabels()  # the Fig. 5 settings (its js)
    Ps: tuple = (100, 200, 400)  # data set sizes


FIG5 = EigenvectorLabels()
FIG5_PROFILES = {"paper": FIG5, "cpu": replace(FIG5, steps=10_000),
                 "smoke": replace(FIG5, D=40, P=40, js=(1, 28, 40), steps=1_000)}
FIG19 = EigenvectorLabelsGrid(replace(FIG5, js=(70, 100, 150)))
FIG19_PROFILES = {"paper": FIG19, "cpu": replace(FIG19, base=replace(FIG19.base, steps=10_000)),
                  "smoke": replace(FIG19, base=replace(FIG19.base, D=40, js=(28, 40, 60), steps=1_000),
                                   Ps=(40, 80))}


def _eig_run(cfg: EigenvectorLabels) -> dict:
    from companion.measures.ntk import eigenvector_labels, kernel_alignment

    g = torch.Generator().manual_seed(cfg.seed)
    X = torch.randn(2 * cfg.P, cfg.D, generator=g, dtype=DT) / math.sqrt(cfg.D)  # h = W x/√D
    W0 = torch.randn(1, cfg.N, cfg.D, generator=torch.Generator().manual_seed(cfg.seed + 1), dtype=DT)
    w, M = th.init_stats(W0)
    K = th.ntk_from_stats(X[None], X[None], w, M, cfg.eps)[0]
    ys = torch.stack([eigenvector_labels(K, j) for j in cfg.js])  # (J, 2P)
    J, P = len(cfg.js), cfg.P
    la = log_steps(cfg.steps, cfg.n_log)
    r = run_committee(X[:P].expand(J, P, cfg.D), ys[:, :P], W0.expand(J, -1, -1), cfg.alpha, cfg.eps,
                      cfg.eta0, cfg.steps, la, X_test=X[P:].expand(J, P, cfg.D), y_test=ys[:, P:])
    cka = kernel_alignment(K[:P, :P].expand(J, P, P), ys[:, :P]).numpy()
    return {"step": la, "js": list(cfg.js), "train_loss": r["train_loss"], "test_loss": r["test_loss"],
            "cka0": cka}


@experiment
def fig5(cfg: EigenvectorLabels, device: str = "cpu") -> dict:
    """Chapter Fig. 5: one batched run per label index j (same data and init)."""
    return _eig_run(cfg)


@experiment
def fig19(cfg: EigenvectorLabelsGrid, device: str = "cpu") -> dict:
    """Chapter Fig. 19: the Fig. 5 protocol over dataset sizes P (columns) and label indices j (rows)."""
    runs = [_eig_run(replace(cfg.base, P=P)) for P in cfg.Ps]
    return {"Ps": list(cfg.Ps), "js": list(cfg.base.js), "step": runs[0]["step"],
            "train_loss": np.stack([r["train_loss"] for r in runs], 1),  # (J, nP, T)
            "test_loss": np.stack([r["test_loss"] for r in runs], 1)}


@dataclass(frozen=True)
class EigenSpectrum:
    """Fig. 5: the top, mid-spectrum and tail label indices (the config's ``js`` in order)."""

    top_ratio: float  # t_te(½) / t_tr(½) of the top eigenvector
    mid_j: int
    mid_ratio: float  # t_te(½) / t_tr(½) of the mid-spectrum one
    tail_j: int
    tail_final: float  # final / initial test loss of the tail one
    alignment_decreasing: bool  # initial alignment decreases with j


def fig5_summary(r: dict) -> EigenSpectrum:
    """Fig. 5's numbers."""
    h = [half_times(r["step"], r["train_loss"][k], r["test_loss"][k]) for k in range(len(r["js"]))]
    end = r["test_loss"][:, -1] / r["test_loss"][:, 0]
    return EigenSpectrum(h[0][1] / h[0][0], r["js"][1], h[1][1] / h[1][0], r["js"][2], float(end[2]),
                         increasing(-np.asarray(r["cka0"])))


@dataclass(frozen=True)
class SizeDifficulty:
    """Fig. 19: final / initial test loss along P (for the middle j) and along j (smallest P)."""

    mid_j: int
    more_data_better: bool  # decreasing in P at j = mid_j
    smallest_P: int
    harder_worse: bool  # increasing in j at P = smallest_P


def fig19_summary(r: dict) -> SizeDifficulty:
    """Fig. 19's numbers."""
    end = r["test_loss"][:, :, -1] / r["test_loss"][:, :, 0]
    return SizeDifficulty(r["js"][1], increasing(-end[1]), r["Ps"][0], increasing(end[:, 0]))
