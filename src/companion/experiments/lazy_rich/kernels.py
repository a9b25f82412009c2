"""Kernel statements of Kumar et al. without training: App. 11.2's eq. 20 (the alignment numerator),
App. 12's eq. 23 (the initial NTK with trained readouts) and App. 11.1's sample sizes for kernel
regression, each computed directly (Monte Carlo, the empirical NTK of a wide network, ridgeless
regression) beside the formula; and eq. 20's reading on the Fig. 1 runs (alignment against the
misalignment term of eq. 6). Seconds of CPU in all."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from companion.events import NOT_OBSERVED
from companion.theory import lazy_rich_kernels as tk
from companion.theory.lazy_rich import quadratic_task

DT = torch.float64


# --------------------------------------------------------------------------- eq. 20
@dataclass(frozen=True)
class AlignmentNumerator:
    """Eq. 20 against Monte Carlo, one random (β, w̄, M) per seed."""

    D: int
    eps: float
    n: int  # points per Monte Carlo batch (two independent sets of n)
    batches: int
    ratio: list  # Monte Carlo / eq. 20, target (β·x)²
    rel_se: list  # its standard error, relative to eq. 20
    z: list  # (Monte Carlo − eq. 20) / standard error
    half_ratio: list  # Monte Carlo / eq. 20 for the target ½(β·x)² of §5


def alignment_numerator(D: int = 10, eps: float = 0.5, n: int = 10_000, batches: int = 20,
                        seeds: tuple = (0, 1, 2)) -> AlignmentNumerator:
    """Eq. 20 for a random anisotropic M = WᵀW/(D/2) (W with D/2 rows), a random w̄ (which eq. 20
    says drops out) and β ~ N(0, I), against Monte Carlo over x, x' ~ N(0, I/D)."""
    rows = []
    for s in seeds:
        g = torch.Generator().manual_seed(s)
        beta = torch.randn(D, generator=g, dtype=DT)
        W = torch.randn(D // 2, D, generator=g, dtype=DT)
        M, wbar = W.T @ W / (D // 2), 0.5 * torch.randn(D, generator=g, dtype=DT)
        f = tk.eq20_numerator(beta, M, eps)
        m, se = tk.alignment_numerator_mc(beta, wbar, M, eps, n, batches, seed=100 + s)
        mh, _ = tk.alignment_numerator_mc(beta, wbar, M, eps, n, batches, seed=200 + s, target_scale=0.5)
        rows.append((m / f, se / f, (m - f) / se, mh / f))
    return AlignmentNumerator(D, eps, n, batches, *[list(v) for v in zip(*rows)])


# --------------------------------------------------------------------------- eq. 23
@dataclass(frozen=True)
class ReadoutKernel:
    """Eq. 23 against the empirical NTK of one wide network per seed, on n test points."""

    D: int
    eps: float
    N: int
    n: int
    max_z: list  # max over the n(n+1)/2 entries of |K_emp − eq. 23| / standard error
    rival_z: list  # the same against the fixed-readout kernel x·x' + ε²(x·x')² (eq. 10)
    rel_se: list  # median standard error / |K| (the 1/√N scale of the check)


def readout_kernel(D: int = 20, eps: float = 0.5, N: int = 50_000, n: int = 32,
                   seeds: tuple = (0, 1, 2)) -> ReadoutKernel:
    """The initial NTK of ``(1/√N) Σ v_i φ(w_i·x)`` (v_i, w_i standard normal, x ~ N(0, I/D)) from
    its analytic per-parameter gradients, entry by entry against eq. 23."""
    iu = torch.triu_indices(n, n)
    rows = []
    for s in seeds:
        g = torch.Generator().manual_seed(s)
        X = torch.randn(n, D, generator=g, dtype=DT) / math.sqrt(D)
        W, v = torch.randn(N, D, generator=g, dtype=DT), torch.randn(N, generator=g, dtype=DT)
        K, se = tk.readout_ntk(X, W, v, eps)

        def zmax(K_ref, K=K, se=se):
            return float(((K - K_ref) / se)[iu[0], iu[1]].abs().max())

        rows.append((zmax(tk.eq23_kernel(X, X, eps)), zmax(tk.fixed_readout_kernel(X, X, eps)),
                     float((se / K.abs()).median())))
    return ReadoutKernel(D, eps, N, n, *[list(v) for v in zip(*rows)])


# --------------------------------------------------------------------------- App. 11.1
@dataclass(frozen=True)
class KernelSampleSize:
    """App. 11.1, ridgeless regression with the infinite-width initial NTK: the sample size P at which
    the |x|² part of the test error halves and at which the whole test error falls to 10%, at two
    input dimensions, and their exponents in D; per seed (each the mean error over ``draws`` data sets)."""

    dims: tuple
    eps: float
    p_trace: list  # per seed, (P at dims[0], P at dims[1]): the |x|² error first ≤ ½ of its P = 0 value
    p_full: list  # per seed, the same for the whole test error ≤ 10% of its P = 0 value
    trace_over_D: list  # per seed, P_trace / D at the dimension where it is farther from 1 (log scale)
    trace_exponent: list  # log(P ratio) / log(D ratio)
    full_exponent: list
    features: tuple  # D + D(D + 1)/2 at each D: the kernel's feature count (ridgeless exact above it)


def _first(Ps: list, curve: np.ndarray, level: float):
    hit = np.nonzero(curve <= level)[0]
    return Ps[hit[0]] if len(hit) else NOT_OBSERVED


def _sizes(D: int, eps: float, seed: int, draws: int) -> tuple:
    nf = D + D * (D + 1) // 2
    Ps = list(range(1, nf + 1))
    t = quadratic_task(D, nf, seed=seed, batch=draws)
    parts = [tk.k0_error_parts(t["X"][:, :P], t["y"][:, :P], t["T"], eps) for P in Ps]
    start = tk.error_parts(torch.zeros(draws, D, dtype=DT), -t["T"])
    tr = np.array([float((p["trace"] / start["trace"]).mean()) for p in parts])
    total0 = start["trace"] + start["traceless"]
    full = np.array([float(((p["trace"] + p["traceless"] + p["linear"]) / total0).mean()) for p in parts])
    return _first(Ps, tr, 0.5), _first(Ps, full, 0.1)


def kernel_sample_size(dims: tuple = (8, 16), eps: float = 0.25, draws: int = 4,
                       seeds: tuple = (0, 1, 2)) -> KernelSampleSize:
    """App. 11.1's "a kernel method would learn |x|²/(2D) at P ≈ D but the full target only at P ≈ D²"
    as ridgeless K0 regression on the quadratic task (no training: a few hundred small solves)."""
    pt, pf = [], []
    for s in seeds:
        a, b = (_sizes(D, eps, 10_000 * s + D, draws) for D in dims)
        pt.append((a[0], b[0])), pf.append((a[1], b[1]))
    lr = math.log(dims[1] / dims[0])

    def expo(p):
        return math.log(p[1] / p[0]) / lr if NOT_OBSERVED not in p else NOT_OBSERVED

    def worst(p):
        r = [x / D for x, D in zip(p, dims) if x is not NOT_OBSERVED]
        return max(r, key=lambda v: abs(math.log(v))) if len(r) == len(dims) else NOT_OBSERVED

    return KernelSampleSize(dims, eps, pt, pf, [worst(p) for p in pt], [expo(p) for p in pt], [expo(p) for p in pf],
                            tuple(D + D * (D + 1) // 2 for D in dims))
