"""Figs. 5 and 19 of Kumar et al. (§6.1, App. 17): labels that are eigenvectors of the initial
NTK, learnt by the N = 2 committee machine; one batched neuron-level run per label index j."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import torch

from companion.events import increasing, ratio
from companion.experiments.lazy_rich.closure import DT
from companion.experiments.lazy_rich.measures import half_times, seed_views, split_seeds, transpose
from companion.measures.ntk import eigenvector_labels, kernel_alignment
from companion.settings import unstated
from companion.store.cache import experiment
from companion.theory import lazy_rich as th
from companion.train.committee import CommitteeTraining, run_committee
from companion.train.fit import log_steps


@dataclass(frozen=True)
class EigenvectorLabels:
    """§6.1 / Fig. 5: Gaussian inputs, labels = j-th eigenvector of the initial NTK on all 2P
    points (first P train, last P test); N=2, ε=0.25, α=1, η = 0.5N/α², centred, 25k epochs."""

    D: int = 100  # input dimension
    P: int = 100  # training points (as many test points)
    N: int = 2  # hidden units
    eps: float = 0.25  # quadratic part of φ
    alpha: float = 1.0  # output scale
    lr0: float = 0.5  # Kumar et al.'s η0: the GD step is η = η0·N/α²
    steps: int = 25_000  # full-batch GD steps
    js: tuple = (1, 70, 100)  # label indices: top, mid-spectrum, tail
    seed: int = unstated(0)  # data seed; weight seed = seed + 1
    n_log: int = 120  # log-spaced evaluation steps
    seeds: tuple = unstated((0, 1, 2))  # data seeds of Fig. 5 (batched)


@dataclass(frozen=True)
class EigenvectorLabelsGrid:
    """Fig. 19: the Fig. 5 protocol over data set sizes."""

    base: EigenvectorLabels = EigenvectorLabels()  # the Fig. 5 settings (its js)
    Ps: tuple = (100, 200, 400)  # data set sizes
    seeds: tuple = unstated((0, 1, 2))  # data seeds (batched within each P)


FIG5 = EigenvectorLabels()
FIG5_PROFILES = {"paper": FIG5, "cpu": replace(FIG5, steps=10_000),
                 "smoke": replace(FIG5, D=40, P=40, js=(1, 28, 40), steps=1_000)}
FIG19 = EigenvectorLabelsGrid(replace(FIG5, js=(70, 100, 150)))
FIG19_PROFILES = {"paper": FIG19, "cpu": replace(FIG19, base=replace(FIG19.base, steps=10_000)),
                  "smoke": replace(FIG19, base=replace(FIG19.base, D=40, js=(28, 40, 60), steps=1_000),
                                   Ps=(40, 80))}


def _eig_run(cfg: EigenvectorLabels, seeds: tuple = (), device: str = "cpu") -> dict:
    """The runs of every label index j for each data seed (weight seed = seed + 1), in one batch
    (seed-major) on ``device`` (data, labels and alignments drawn on the host); results split per
    seed by :func:`split_seeds`."""
    seeds = seeds or (cfg.seed,)
    J, P = len(cfg.js), cfg.P
    Xs, W0s, ys, ckas = [], [], [], []
    for sd in seeds:
        g = torch.Generator().manual_seed(sd)
        X = torch.randn(2 * cfg.P, cfg.D, generator=g, dtype=DT) / math.sqrt(cfg.D)  # h = W x/√D
        W0 = torch.randn(1, cfg.N, cfg.D, generator=torch.Generator().manual_seed(sd + 1), dtype=DT)
        w, M = th.init_stats(W0)
        K = th.ntk_from_stats(X[None], X[None], w, M, cfg.eps)[0]
        y = torch.stack([eigenvector_labels(K, j) for j in cfg.js])  # (J, 2P)
        Xs.append(X.expand(J, 2 * P, cfg.D)), W0s.append(W0.expand(J, -1, -1)), ys.append(y)
        ckas.append(kernel_alignment(K[:P, :P].expand(J, P, P), y[:, :P]).numpy())
    X, W0, y = (torch.cat(v).to(device) for v in (Xs, W0s, ys))
    la = log_steps(cfg.steps, cfg.n_log)
    r = run_committee(X[:, :P], y[:, :P], W0, CommitteeTraining(cfg.alpha, cfg.eps, cfg.lr0, cfg.steps, la),
                      X_test=X[:, P:], y_test=y[:, P:])
    out = {"step": la, "js": list(cfg.js), "values": [[j] for j in cfg.js], "seeds": list(seeds),
           "train_loss": r["train_loss"], "test_loss": r["test_loss"], "cka0": np.concatenate(ckas)}
    return split_seeds(out, J, len(seeds))


@experiment
def fig5(cfg: EigenvectorLabels, device: str = "cpu") -> dict:
    """Chapter Fig. 5: one batched run per label index j (same data and init)."""
    return _eig_run(cfg, cfg.seeds, device)


@experiment
def fig19(cfg: EigenvectorLabelsGrid, device: str = "cpu") -> dict:
    """Chapter Fig. 19: the Fig. 5 protocol over dataset sizes P (columns) and label indices j (rows)."""
    runs = [_eig_run(replace(cfg.base, P=P), cfg.seeds, device) for P in cfg.Ps]
    out = {"Ps": list(cfg.Ps), "js": list(cfg.base.js), "step": runs[0]["step"]}
    for k in ("train_loss", "test_loss"):
        out[k] = np.stack([r[k] for r in runs], 1)  # (J, nP, T) of the first seed
    out["seed_runs"] = [{k: np.stack([r["seed_runs"][s][k] for r in runs], 1) for k in ("train_loss", "test_loss")}
                        for s in range(len(runs[0]["seed_runs"]))]
    return out


@dataclass(frozen=True)
class EigenSpectrum:
    """Fig. 5 per seed: the top, mid-spectrum and tail label indices (the config's ``js`` in order)."""

    top_ratio: list  # t_te(½) / t_tr(½) of the top eigenvector
    mid_j: list
    mid_ratio: list  # t_te(½) / t_tr(½) of the mid-spectrum one
    tail_j: list
    tail_test_half: list  # tail: time its test loss halves (not observed: never generalises)
    tail_final: list  # tail: final / initial test loss
    tail_train_final: list  # tail: final / initial train loss (the run has fitted its train set)
    alignment_decreasing: list  # initial alignment decreases with j
    top_test_half: list  # top eigenvector: time its test loss halves (the control of "the tail never generalises")


def _fig5(r: dict) -> EigenSpectrum:
    h = [half_times(r["step"], r["train_loss"][k], r["test_loss"][k]) for k in range(len(r["js"]))]
    end = r["test_loss"][:, -1] / r["test_loss"][:, 0]
    return EigenSpectrum(ratio(h[0][1], h[0][0], floor=None), r["js"][1], ratio(h[1][1], h[1][0], floor=None),
                         r["js"][2], h[2][1],
                         float(end[2]), float(r["train_loss"][2, -1] / r["train_loss"][2, 0]),
                         increasing(-np.asarray(r["cka0"])), h[0][1])


def fig5_summary(r: dict) -> EigenSpectrum:
    """Fig. 5's numbers, per seed."""
    return transpose([_fig5(v) for v in seed_views(r)])


@dataclass(frozen=True)
class SizeDifficulty:
    """Fig. 19 per seed: final / initial test loss along P (for the middle j) and along j (smallest P)."""

    mid_j: list
    more_data_better: list  # decreasing in P at j = mid_j
    smallest_P: list
    harder_worse: list  # increasing in j at P = smallest_P


def _fig19(r: dict) -> SizeDifficulty:
    end = r["test_loss"][:, :, -1] / r["test_loss"][:, :, 0]
    return SizeDifficulty(r["js"][1], increasing(-end[1]), r["Ps"][0], increasing(end[:, 0]))


def fig19_summary(r: dict) -> SizeDifficulty:
    """Fig. 19's numbers, per seed."""
    return transpose([_fig19(v) for v in seed_views(r)])


@dataclass(frozen=True)
class KernelSpectrum:
    """App. 11: Monte Carlo eigenvalues of the infinite-width initial NTK over Gaussian data,
    against the paper's formulas (one Monte Carlo sample of ``n`` points per seed)."""

    D: int
    eps: float
    lin_times_D: list  # λ_lin · D (paper: 1)
    quad_over_eps2: list  # λ_quad / (2ε²/D²) (the kernel's ε² in eq. 5)
    quad_over_printed: list  # λ_quad / (2ε/D²) (the formula as printed in §5)
    n: int = 0  # points per Monte Carlo sample


def kernel_spectrum(D: int = 20, eps: float = 0.25, n: int = 4000, seeds: tuple = (0, 1, 2)) -> KernelSpectrum:
    """App. 11's eigenvalues of the initial NTK, by Monte Carlo (no training: seconds)."""
    ev = [th.initial_kernel_eigenvalues(D, eps, n, s) for s in seeds]
    return KernelSpectrum(D, eps, [e["lin"] * D for e in ev], [e["quad"] / (2 * eps ** 2 / D ** 2) for e in ev],
                          [e["quad"] / (2 * eps / D ** 2) for e in ev], n)
