"""Modular addition with one-hot inputs, a quadratic 2-layer MLP and MSE loss (Gromov 2023),
the real-world check of Levi, Beck & Bar Sinai (ICLR 2024), App. G, Eq. 43.

h₁ = W₁x/√d_in (x = one-hot(a) ⊕ one-hot(b), d_in = 2p), z = h₁², out = W₂z/d_h, with
W₁, W₂ ~ N(0, 1) (mean-field parametrisation). Trained by full-batch GD without weight decay
(:func:`companion.train.linear_estimators.train_quadratic_mlp`) on
L = (1/N)Σ_i‖out(x_i) − onehot(c_i)‖²: summed over classes, averaged over samples (with torch's
mean-over-classes ``MSELoss`` the gradient is p times smaller, and at η = 500 nothing is learned
in 2000 steps). Several training fractions train at once (a leading batch axis) on the full p²
table (:func:`companion.data.modular.addition_table`) with per-fraction training masks
(:func:`companion.data.modular.split_masks`).
"""

from __future__ import annotations

import math

import torch


def quadratic_mlp(W1: torch.Tensor, W2: torch.Tensor, a: torch.Tensor, b: torch.Tensor, p: int) -> torch.Tensor:
    """Outputs (B, p, n) of B nets W₁ (B, d_h, 2p), W₂ (B, p, d_h) on the pairs (a, b) (n each)."""
    h1 = (W1[:, :, a] + W1[:, :, p + b]) / math.sqrt(2 * p)  # (B, d_h, n): W₁x for one-hot x
    return W2 @ h1 ** 2 / W1.shape[1]
