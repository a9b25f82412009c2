"""The two-layer student of Levi, Beck & Bar Sinai (ICLR 2024, §3.4 / App. F): an MLP
d_in–d_h–d_out without biases, linear or tanh hidden layer, trained by full-batch GD on the
outputs of a teacher of the same architecture.

The one-layer student has an exact solution of GD and is not trained here: see
:class:`companion.theory.linear_estimators.LinearGD`. The data are
:mod:`companion.data.teacher_student`.
"""

from __future__ import annotations

import numpy as np
import torch

from companion.data.teacher_student import gaussian_layer, two_layer_inputs
from companion.train.fit import fit
from companion.train.optim import BatchedOptimizer

ACTIVATIONS = ("linear", "tanh")
HISTORY = ("step", "train_loss", "test_loss", "train_acc", "test_acc")


def two_layer(W0: torch.Tensor, W1: torch.Tensor, x: torch.Tensor, is_tanh: torch.Tensor) -> torch.Tensor:
    """Outputs (B, N, d_out) of B two-layer nets (B, d_in, d_h), (B, d_h, d_out) on inputs x
    (N, d_in); member b applies tanh to its hidden layer where ``is_tanh[b]``."""
    h = x @ W0
    return torch.where(is_tanh, torch.tanh(h), h) @ W1


def stacked_history(rec: dict) -> dict:
    """A history of per-member records (lists of (B,) arrays) as arrays (B, n_evals); ``step`` (n_evals,)."""
    return {k: np.stack(v, 1) if k != "step" else np.asarray(v, float) for k, v in rec.items()}


def train_two_layer(d_in: int, d_h: int, d_out: int, n_train: int, n_gen: int, activations: tuple,
                    eta: float, steps: int, eps: float, n_evals: int, seed: int,
                    device: str = "cpu") -> dict:
    """Full-batch GD (:func:`companion.train.fit`, plain ``W ← W − η·∇W``) of the two-layer
    student, one run per activation in ``activations`` ("linear", "tanh"), batched along a
    leading axis; the runs share data, teacher and initial student.

    Loss is torch ``MSELoss`` (mean over N·d_out); a sample is correct when its
    (1/d_out)‖f(x) − y‖² < ``eps``. Returns losses/accuracies (n_act, n_evals) at about
    ``n_evals`` log-spaced steps (⌊geomspace(1, steps)⌋ and 0) and the ``activations``.
    """
    from companion.settings import one_of

    for a in activations:
        one_of("activation", a, ACTIVATIONS)
    g = torch.Generator().manual_seed(seed)
    B = len(activations)
    X = two_layer_inputs(d_in, n_train + n_gen, g).to(device)

    def layer(a: int, b: int) -> torch.Tensor:
        return gaussian_layer(a, b, g).to(device).expand(B, a, b).clone()
    T0, T1, S0, S1 = layer(d_in, d_h), layer(d_h, d_out), layer(d_in, d_h), layer(d_h, d_out)
    is_tanh = torch.tensor([a == "tanh" for a in activations], device=device)[:, None, None]
    Xtr, Xgen = X[:n_train], X[n_train:]
    Ytr, Ygen = two_layer(T0, T1, Xtr, is_tanh), two_layer(T0, T1, Xgen, is_tanh)
    S0.requires_grad_(True), S1.requires_grad_(True)
    evals = set(np.unique(np.geomspace(1, steps, n_evals).astype(int)).tolist()) | {0}
    rec: dict = {k: [] for k in HISTORY}

    def loss(t: int) -> torch.Tensor:
        return ((two_layer(S0, S1, Xtr, is_tanh) - Ytr) ** 2).mean((1, 2)).sum()

    @torch.no_grad()
    def record(t: int) -> None:
        se_tr = ((two_layer(S0, S1, Xtr, is_tanh) - Ytr) ** 2)
        se_gen = ((two_layer(S0, S1, Xgen, is_tanh) - Ygen) ** 2).mean(2)
        rec["step"].append(t)
        rec["train_loss"].append(se_tr.mean((1, 2)).cpu().numpy())
        rec["test_loss"].append(se_gen.mean(1).cpu().numpy())
        rec["train_acc"].append((se_tr.mean(2) < eps).float().mean(1).cpu().numpy())
        rec["test_acc"].append((se_gen < eps).float().mean(1).cpu().numpy())

    fit([S0, S1], BatchedOptimizer([S0, S1], "sgd", eta), steps, evals=evals, record=record, loss=loss,
        state=history_state(rec))
    out = stacked_history(rec)
    out["activations"] = list(activations)
    return out


def history_state(rec: dict):
    """``(save, load)`` of a history of lists, for :func:`companion.train.fit`'s checkpoints."""
    def save() -> dict:
        return {k: list(v) for k, v in rec.items()}

    def load(s: dict) -> None:
        for k, v in s.items():
            rec[k][:] = v
    return save, load
