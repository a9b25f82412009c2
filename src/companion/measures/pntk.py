"""The empirical NTK change of GrokTransfer Fig. 3 (Xu et al. 2025, A.3.1).

Empirical NTK (Mohamadi et al. 2023 "pNTK"): Θ̂(x, x') = ⟨∇_θ g(x), ∇_θ g(x')⟩ with
g(x) = (1/√k) Σ_c f_c(x). The paper does not say which scalar "change" it plots; this book
plots the kernel distance 1 − ⟨Θ̂_t, Θ̂_0⟩_F/(‖Θ̂_t‖_F‖Θ̂_0‖_F) (scale-free, so comparable
across the embeddings' different init scales).
"""

from __future__ import annotations

import math

import torch

from companion.measures.kernels import kernel_distance  # noqa: F401  (its home is measures.kernels)
from companion.measures.ntk import empirical_ntk


def pntk(forward, params: dict, x: torch.Tensor) -> torch.Tensor:
    """Θ̂ = J Jᵀ (N, N) for g(x) = Σ_c f_c(x)/√k, J = ∂g/∂θ over all parameters.

    ``forward(params, x) -> (N, k)`` is a functional model of ONE network; the Jacobian is the
    book's :func:`companion.measures.ntk.empirical_ntk` on the flattened parameters.
    """
    names = list(params)
    shapes = [params[k].shape for k in names]
    sizes = [params[k].numel() for k in names]
    flat = torch.cat([params[k].reshape(-1) for k in names]).detach()

    def g(theta, X):
        pr = {k: t.view(s) for k, t, s in zip(names, torch.split(theta, sizes), shapes)}
        out = forward(pr, X)
        return out.sum(-1) / math.sqrt(out.shape[-1])

    return empirical_ntk(g, flat, x)
