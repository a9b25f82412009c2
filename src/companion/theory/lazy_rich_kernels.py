"""Kernel formulas of Kumar et al. (2024), App. 11.1, 11.2 and 12, against direct computation.

* Eq. 20 (App. 11.2): for the NTK of eq. 18, ``K(x,x') = x·x' + ε(x·x') w̄·(x+x') + ε²(x·x') xᵀMx'``,
  over independent ``x, x' ~ N(0, I/D)`` and the target ``y = (β·x)²``, the alignment numerator is
  ``⟨y K y'⟩ = (ε²/D⁴)|β|⁴ Tr M + (8ε²/D⁴) βᵀMβ |β|²`` (w̄ drops out: its terms are odd in x or x').
* Eq. 23 (App. 12): the initial NTK of ``f = (1/√N) Σ v_i φ(w_i·x)`` with trained readouts,
  ``v_i ~ N(0, 1)``, ``w_i ~ N(0, I)``, ``φ(h) = h + (ε/2)h²``, is
  ``2x·x' + (3ε²/2)(x·x')² + (ε²/4)|x|²|x'|²`` as N → ∞.
* App. 11.1: ridgeless regression with the infinite-width kernel ``x·x' + ε²(x·x')²`` learns the
  ``|x|²`` part of the target from about D samples, its traceless part from about D².
"""

from __future__ import annotations

import math

import torch

from companion.theory.lazy_rich import k0_regression_coeffs

Tensor = torch.Tensor


# --------------------------------------------------------------------------- eq. 20
def eq20_numerator(beta: Tensor, M: Tensor, eps: float) -> float:
    """Eq. 20 as printed: ``(ε²/D⁴)|β|⁴ Tr M + (8ε²/D⁴) βᵀMβ |β|²``."""
    D = beta.shape[-1]
    b2 = float(beta @ beta)
    return eps ** 2 / D ** 4 * (b2 ** 2 * float(torch.trace(M)) + 8 * float(beta @ M @ beta) * b2)


def _pair_means(X: Tensor, y: Tensor, wbar: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """Sample means of ``y x``, ``y (w̄·x) x`` and ``y x xᵀ``: eq. 18's kernel is a sum of products of
    these features of x and of x', so over independent x, x' ⟨y K y'⟩ factorises into their means."""
    n = X.shape[0]
    a = X.T @ y / n
    b = X.T @ (y * (X @ wbar)) / n
    C = X.T @ (y[:, None] * X) / n
    return a, b, C


def alignment_numerator_mc(beta: Tensor, wbar: Tensor, M: Tensor, eps: float, n: int, batches: int = 20,
                           seed: int = 0, target_scale: float = 1.0) -> tuple[float, float]:
    """Monte Carlo ``⟨y(x) K(x,x') y(x')⟩`` for eq. 18's kernel and ``y = target_scale·(β·x)²``,
    ``x, x' ~ N(0, I/D)`` independent: each of ``batches`` batches draws two independent sets of ``n``
    points, whose feature means give an unbiased estimate. Returns (mean, standard error)."""
    D = beta.shape[-1]
    g = torch.Generator().manual_seed(seed)
    est = []
    for _ in range(batches):
        halves = []
        for _h in range(2):
            X = torch.randn(n, D, generator=g, dtype=torch.float64) / math.sqrt(D)
            halves.append(_pair_means(X, target_scale * (X @ beta) ** 2, wbar))
        (a, b, C), (a2, b2, C2) = halves
        # (x·x')[1 + ε w̄·x + ε w̄·x' + ε² xᵀMx']: Σ_i x_i x'_i times each bracket term
        est.append(float(a @ a2 + eps * (b @ a2 + a @ b2) + eps ** 2 * torch.trace(C @ M @ C2.T)))
    e = torch.tensor(est, dtype=torch.float64)
    return float(e.mean()), float(e.std() / math.sqrt(batches))


# --------------------------------------------------------------------------- eq. 23
def eq23_kernel(XA: Tensor, XB: Tensor, eps: float) -> Tensor:
    """Eq. 23: ``2x·x' + (3ε²/2)(x·x')² + (ε²/4)|x|²|x'|²``."""
    G = XA @ XB.T
    na, nb = (XA * XA).sum(-1), (XB * XB).sum(-1)
    return 2 * G + 1.5 * eps ** 2 * G ** 2 + 0.25 * eps ** 2 * na[:, None] * nb[None, :]


def readout_ntk(X: Tensor, W: Tensor, v: Tensor, eps: float) -> tuple[Tensor, Tensor]:
    """Empirical NTK of ``f = (1/√N) Σ_i v_i φ(w_i·x)`` on the rows of X from the analytic gradients
    ``∂f/∂v_i = φ(h_i)/√N``, ``∂f/∂w_i = v_i φ'(h_i) x/√N``: the mean over neurons of
    ``t_i = φ(h_i)φ(h'_i) + v_i² φ'(h_i)φ'(h'_i) x·x'``. Returns (K, standard error of each entry
    from the spread of t_i over the N neurons), by matrix products (no (n, n, N) array)."""
    N = W.shape[0]
    H = X @ W.T  # (n, N)
    A = H + 0.5 * eps * H * H  # φ(h)
    Cv = v[None, :] * (1 + eps * H)  # v φ'(h)
    G = X @ X.T
    K = (A @ A.T + G * (Cv @ Cv.T)) / N
    K2 = ((A * A) @ (A * A).T + 2 * G * ((A * Cv) @ (A * Cv).T) + G ** 2 * ((Cv * Cv) @ (Cv * Cv).T)) / N
    return K, torch.sqrt((K2 - K * K).clamp_min(0) / (N - 1))


def fixed_readout_kernel(XA: Tensor, XB: Tensor, eps: float) -> Tensor:
    """The rival: the committee machine's initial NTK with the readouts fixed (eq. 10),
    ``x·x' + ε²(x·x')²``."""
    G = XA @ XB.T
    return G + eps ** 2 * G ** 2


# --------------------------------------------------------------------------- App. 11.1
def k0_error_parts(X: Tensor, y: Tensor, T: Tensor, eps: float) -> dict[str, Tensor]:
    """Population error of ridgeless regression with the infinite-width initial NTK on the data
    ``X (S, P, D)``, split into the |x|² eigenfunction (``c²(1 + 2/D)``, c = Tr A/D for the
    quadratic error A), its traceless part (``2‖A − cI‖²_F/D²``) and the linear modes (``|a|²/D``)."""
    S, _, D = X.shape
    wbar0 = torch.zeros(S, D, dtype=X.dtype)
    M0 = torch.eye(D, dtype=X.dtype).expand(S, D, D)
    a, Q = k0_regression_coeffs(X, y, wbar0, M0, eps)
    return error_parts(a, Q - T)


def error_parts(a: Tensor, A: Tensor) -> dict[str, Tensor]:
    """``E[(a·x + xᵀAx)²]`` over ``x ~ N(0, I/D)`` split along the kernel's eigenfunctions (App. 11.1)."""
    D = A.shape[-1]
    c = torch.diagonal(A, dim1=-2, dim2=-1).sum(-1) / D
    A0 = A - c[:, None, None] * torch.eye(D, dtype=A.dtype)
    return {"trace": c ** 2 * (1 + 2 / D), "traceless": 2 * (A0 * A0).sum((-1, -2)) / D ** 2,
            "linear": (a * a).sum(-1) / D}
