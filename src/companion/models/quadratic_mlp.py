"""Modular addition with one-hot inputs, a quadratic 2-layer MLP and MSE loss (Gromov 2023),
the real-world check of Levi, Beck & Bar Sinai (ICLR 2024), App. G, Eq. 43.

h₁ = W₁x/√d_in (x = one-hot(a) ⊕ one-hot(b), d_in = 2p), z = h₁², out = W₂z/d_h, with
W₁, W₂ ~ N(0, 1) (mean-field parametrisation), trained by full-batch GD (no weight decay) on
L = (1/N)Σ_i‖out(x_i) − onehot(c_i)‖² (sum over classes, mean over samples: with torch's
mean-over-classes ``MSELoss`` and η = 500 nothing is learned in 2000 steps — spec, Fig. 8).
The dataset is :func:`companion.data.modular.modular_arithmetic`; several training fractions α are
trained at once (a leading batch dimension) on the full p² table with per-α training masks.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from companion import slices

from companion.data.modular import modular_arithmetic


def split_masks(p: int, alphas: tuple, seed: int) -> torch.Tensor:
    """(n_α, p²) boolean training masks over the row-major table (a·p + b) from the shared split."""
    masks = torch.zeros(len(alphas), p * p, dtype=torch.bool)
    for i, a in enumerate(alphas):
        x = modular_arithmetic(p, "add", a, seed).train_x
        masks[i, x[:, 0] * p + x[:, 1]] = True
    return masks


def train_quadratic_mlp(p: int, d_h: int, alphas: tuple, lr: float, steps: int, eval_every: int,
                        seed: int, device: str = "cpu") -> dict:
    """Train one model per α (same initialisation) and record train/test accuracy (argmax) and
    MSE every ``eval_every`` steps: arrays (n_α, n_evals)."""
    A = len(alphas)
    masks = split_masks(p, alphas, seed).to(device).float()  # (A, p²)
    a = torch.arange(p, device=device).repeat_interleave(p)
    b = torch.arange(p, device=device).repeat(p)
    c = (a + b) % p
    Y = torch.nn.functional.one_hot(c, p).float()  # (p², p)
    g = torch.Generator().manual_seed(seed)
    W1 = torch.randn(d_h, 2 * p, generator=g).to(device).expand(A, d_h, 2 * p).clone().requires_grad_(True)
    W2 = torch.randn(p, d_h, generator=g).to(device).expand(A, p, d_h).clone().requires_grad_(True)
    n_tr = masks.sum(1)  # (A,)
    rec = {k: [] for k in ("step", "train_loss", "test_loss", "train_acc", "test_acc")}
    save, load = slices.inplace_state({"W1": W1, "W2": W2}, rec)
    for t in slices.steps(steps + 1, evals=lambda t: t % eval_every == 0 or t == steps, save=save, load=load):
        h1 = (W1[:, :, a] + W1[:, :, p + b]) / math.sqrt(2 * p)  # (A, d_h, p²): W₁x for one-hot x
        out = W2 @ h1 ** 2 / d_h  # (A, p, p²)
        se = ((out - Y.T) ** 2).sum(1)  # (A, p²) squared error summed over classes
        loss = (se * masks).sum(1) / n_tr
        if t % eval_every == 0 or t == steps:
            with torch.no_grad():
                right = (out.argmax(1) == c).float()
                rec["step"].append(t)
                rec["train_loss"].append(loss.cpu().numpy())
                rec["test_loss"].append(((se * (1 - masks)).sum(1) / (p * p - n_tr)).cpu().numpy())
                rec["train_acc"].append(((right * masks).sum(1) / n_tr).cpu().numpy())
                rec["test_acc"].append(((right * (1 - masks)).sum(1) / (p * p - n_tr)).cpu().numpy())
        if t == steps:
            break
        g1, g2 = torch.autograd.grad(loss.sum(), (W1, W2))
        with torch.no_grad():
            W1 -= lr * g1
            W2 -= lr * g2
    out = {k: np.stack(v, 1) if k != "step" else np.asarray(v, float) for k, v in rec.items()}
    out["alpha"] = np.asarray(alphas, float)
    out["lam"] = 2 / (np.asarray(alphas, float) * p)
    return out
