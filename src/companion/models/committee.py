"""The committee machine of Kumar et al. (2024, §5): ``f = (α/N) Σ a_i φ(w_i·x)`` with
``φ(h) = h + (ε/2)h²`` or the Hermite variant ``h + (ε/2)He_k(h)`` of App. 15.2 (the
activation and its derivative). Trained by :func:`companion.train.committee.run_committee`.
"""

from __future__ import annotations

import torch

Tensor = torch.Tensor


def hermite(z: Tensor, k: int) -> Tensor:
    """Probabilists' Hermite polynomial He_k (recurrence He_{n+1} = z He_n − n He_{n−1})."""
    h0, h1 = torch.ones_like(z), z
    if k == 0:
        return h0
    for n in range(1, k):
        h0, h1 = h1, z * h1 - n * h0
    return h1


def hermite_prime(z: Tensor, k: int) -> Tensor:
    """He_k' = k He_{k−1}."""
    return k * hermite(z, k - 1) if k else torch.zeros_like(z)


def activation(h: Tensor, eps: Tensor, k: int = 2) -> tuple[Tensor, Tensor]:
    """``φ(h) = h + (ε/2) h²`` (k = 2, §5) or ``h + (ε/2) He_k(h)`` (App. 15.2); returns (φ, φ')."""
    if k == 2:
        return h + 0.5 * eps * h * h, 1 + eps * h
    return h + 0.5 * eps * hermite(h, k), 1 + 0.5 * eps * hermite_prime(h, k)
