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
    x = torch.zeros(2 * p, len(a), dtype=W1.dtype, device=W1.device)
    n = torch.arange(len(a), device=W1.device)
    x[a, n], x[p + b, n] = 1.0, 1.0  # the one-hot inputs (2p, n): a matmul, whose backward is several times
    # faster than the gather W₁[:, :, a] + W₁[:, :, p + b] (the same sums, exactly)
    h1 = (W1 @ x) / math.sqrt(2 * p)  # (B, d_h, n): W₁x
    return W2 @ h1 ** 2 / W1.shape[1]


class QuadraticMLP(torch.nn.Module):
    """The same net as :func:`quadratic_mlp` as one ``nn.Module`` taking both papers' parameters:
    ``out = α²/(2p·d_h) · W₂ (W₁x)²`` on ``x = one-hot(a) ⊕ one-hot(b)``, W₁, W₂ ~ N(0, 1).

    Levi et al. App. G (Eq. 43) is α = 1 (``W₂(W₁x/√(2p))²/d_h``); Kumar et al. App. 8.3 is the
    output scale α = s (``s²/(D N)``, D = 2p, N = d_h), trained on the loss divided by α² with
    learning rate ∝ 1/α². Input: integer pairs (n, 2); output (n, p)."""

    def __init__(self, p: int, d_h: int, alpha: float = 1.0, seed: int = 0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.p, self.d_h, self.alpha = p, d_h, alpha
        self.W1 = torch.nn.Parameter(torch.randn(d_h, 2 * p, generator=g))  # (d_h, 2p)
        self.W2 = torch.nn.Parameter(torch.randn(p, d_h, generator=g))  # (p, d_h)

    @property
    def W_E(self) -> torch.Tensor:
        """The embedding of the first operand: column a of W₁, as a (p, d_h) table."""
        return self.W1[:, : self.p].T

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.W1[:, x[:, 0]] + self.W1[:, self.p + x[:, 1]]  # (d_h, n) = W₁x for one-hot x
        return (self.alpha ** 2 / (2 * self.p * self.d_h)) * (h * h).T @ self.W2.T
