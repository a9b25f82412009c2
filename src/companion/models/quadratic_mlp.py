"""Modular addition with one-hot inputs, a quadratic 2-layer MLP and MSE loss (Gromov 2023),
the real-world check of Levi, Beck & Bar Sinai (ICLR 2024), App. G, Eq. 43.

h₁ = W₁x/√d_in (x = one-hot(a) ⊕ one-hot(b), d_in = 2p), z = h₁², out = W₂z/d_h, with
W₁, W₂ ~ N(0, 1) (mean-field parametrisation), trained by full-batch GD (no weight decay,
:func:`companion.train.fit`) on L = (1/N)Σ_i‖out(x_i) − onehot(c_i)‖² (sum over classes, mean
over samples: with torch's mean-over-classes ``MSELoss`` and η = 500 nothing is learned in 2000
steps — spec, Fig. 8). Several training fractions are trained at once (a leading batch axis)
on the full p² table (:func:`companion.data.teacher_student.addition_table`) with per-fraction
training masks (:func:`companion.data.teacher_student.split_masks`).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from companion.data.teacher_student import addition_table, split_masks
from companion.models.linear_teacher_student import HISTORY, history_state, stacked_history
from companion.train.fit import every, fit
from companion.train.optim import BatchedOptimizer


def quadratic_mlp(W1: torch.Tensor, W2: torch.Tensor, a: torch.Tensor, b: torch.Tensor, p: int) -> torch.Tensor:
    """Outputs (B, p, n) of B nets W₁ (B, d_h, 2p), W₂ (B, p, d_h) on the pairs (a, b) (n each)."""
    h1 = (W1[:, :, a] + W1[:, :, p + b]) / math.sqrt(2 * p)  # (B, d_h, n): W₁x for one-hot x
    return W2 @ h1 ** 2 / W1.shape[1]


def train_quadratic_mlp(p: int, d_h: int, alphas: tuple, lr: float, steps: int, eval_every: int,
                        seed: int, device: str = "cpu") -> dict:
    """Train one model per training fraction α in ``alphas`` (same initialisation) by full-batch GD
    and record train/test accuracy (argmax) and MSE every ``eval_every`` steps: arrays
    (n_α, n_evals), with ``alpha`` and λ = d_in/N_tr = 2/(αp) as ``lam``."""
    A = len(alphas)
    masks = split_masks(p, alphas, seed).to(device).float()  # (A, p²)
    a, b, c = addition_table(p, device)
    Y = torch.nn.functional.one_hot(c, p).float()  # (p², p)
    g = torch.Generator().manual_seed(seed)
    W1 = torch.randn(d_h, 2 * p, generator=g).to(device).expand(A, d_h, 2 * p).clone().requires_grad_(True)
    W2 = torch.randn(p, d_h, generator=g).to(device).expand(A, p, d_h).clone().requires_grad_(True)
    n_tr = masks.sum(1)  # (A,)
    rec: dict = {k: [] for k in HISTORY}

    def squared_errors() -> tuple[torch.Tensor, torch.Tensor]:
        out = quadratic_mlp(W1, W2, a, b, p)  # (A, p, p²)
        return out, ((out - Y.T) ** 2).sum(1)  # (A, p²) squared error summed over classes

    def loss(t: int) -> torch.Tensor:
        return ((squared_errors()[1] * masks).sum(1) / n_tr).sum()

    @torch.no_grad()
    def record(t: int) -> None:
        out, se = squared_errors()
        right = (out.argmax(1) == c).float()
        rec["step"].append(t)
        rec["train_loss"].append(((se * masks).sum(1) / n_tr).cpu().numpy())
        rec["test_loss"].append(((se * (1 - masks)).sum(1) / (p * p - n_tr)).cpu().numpy())
        rec["train_acc"].append(((right * masks).sum(1) / n_tr).cpu().numpy())
        rec["test_acc"].append(((right * (1 - masks)).sum(1) / (p * p - n_tr)).cpu().numpy())

    fit([W1, W2], BatchedOptimizer([W1, W2], "sgd", lr), steps, evals=every(eval_every, steps), record=record,
        loss=loss, state=history_state(rec))
    out = stacked_history(rec)
    out["alpha"] = np.asarray(alphas, float)
    out["lam"] = 2 / (np.asarray(alphas, float) * p)
    return out
