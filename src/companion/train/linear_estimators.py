"""The training loops of Levi, Beck & Bar Sinai (ICLR 2024), both full-batch GD by
:func:`companion.train.fit.fit` (plain ``W ← W − η·∇W``, :class:`BatchedOptimizer` "sgd"):
the two-layer student of §3.4 / App. F (:mod:`companion.models.linear_teacher_student`) and the
quadratic MLP on modular addition of App. G (:mod:`companion.models.quadratic_mlp`). The
one-layer student needs no loop: :class:`companion.theory.linear_estimators.LinearGD` is GD's
exact solution."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from companion.data.modular import addition_table, split_masks
from companion.data.teacher_student import gaussian_layer, two_layer_inputs
from companion.models.linear_teacher_student import ACTIVATIONS, two_layer
from companion.models.quadratic_mlp import quadratic_mlp
from companion.settings import one_of
from companion.train.fit import every, fit
from companion.train.history import HISTORY, history_state, stacked_history
from companion.train.optim import BatchedOptimizer


@dataclass(frozen=True)
class TwoLayerTraining:
    """How :func:`train_two_layer` trains the two-layer student of §3.4 / App. F: its shape, its task and full-batch
    GD, with the accuracy threshold it is read at."""

    d_in: int  # input dimension
    d_h: int  # hidden width
    d_out: int  # output dimension
    n_train: int  # training samples
    n_gen: int  # test samples
    lr: float  # GD learning rate η
    steps: int  # GD steps
    eps: float  # a sample is correct when (1/d_out)‖f(x) − y‖² < eps
    n_evals: int  # about this many log-spaced logged steps


def train_two_layer(how: TwoLayerTraining, activations: tuple, seed: int, device: str = "cpu",
                    n_seeds: int = 1) -> dict:
    """Full-batch GD (:func:`companion.train.fit`, plain ``W ← W − η·∇W``) of the two-layer
    student as ``how`` says, one run per (draw, activation) — draws ``seed``, ``seed + 1``, … of data, teacher
    and initial student, activations in ``activations`` ("linear", "tanh") — batched along a
    leading axis; the activations of one draw share its data, teacher and initial student.

    Loss is torch ``MSELoss`` (mean over N·d_out); a sample is correct when its
    (1/d_out)‖f(x) − y‖² < ``eps``. Returns losses/accuracies (n_seeds, n_act, n_evals) at about
    ``n_evals`` log-spaced steps (⌊geomspace(1, steps)⌋ and 0), the kernel h = ½(‖S₀‖² + ‖S₁‖²)
    of Eq. 17 at the same steps, and the ``activations``.
    """
    d_in, d_h, d_out, n_train, n_gen = how.d_in, how.d_h, how.d_out, how.n_train, how.n_gen
    eta, steps, eps, n_evals = how.lr, how.steps, how.eps, how.n_evals
    for a in activations:
        one_of("activation", a, ACTIVATIONS)
    A = len(activations)
    draws = []
    for s in range(n_seeds):
        g = torch.Generator().manual_seed(seed + s)
        X = two_layer_inputs(d_in, n_train + n_gen, g)
        draws.append((X, *(gaussian_layer(a, b, g) for a, b in ((d_in, d_h), (d_h, d_out), (d_in, d_h), (d_h, d_out)))))

    def stack(j: int) -> torch.Tensor:  # (n_seeds·A, ...): member s·A + i is draw s, activation i
        return torch.stack([d[j] for d in draws]).repeat_interleave(A, 0).to(device).clone()
    X, T0, T1, S0, S1 = (stack(j) for j in range(5))
    is_tanh = torch.tensor([a == "tanh" for a in activations] * n_seeds, device=device)[:, None, None]
    Xtr, Xgen = X[:, :n_train], X[:, n_train:]
    Ytr, Ygen = two_layer(T0, T1, Xtr, is_tanh), two_layer(T0, T1, Xgen, is_tanh)
    S0.requires_grad_(True), S1.requires_grad_(True)
    evals = set(np.unique(np.geomspace(1, steps, n_evals).astype(int)).tolist()) | {0}
    rec: dict = {k: [] for k in (*HISTORY, "h")}

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
        rec["h"].append((0.5 * ((S0 ** 2).sum((1, 2)) + (S1 ** 2).sum((1, 2)))).cpu().numpy())

    fit([S0, S1], BatchedOptimizer([S0, S1], "sgd", eta), steps, evals=evals, record=record, loss=loss,
        state=history_state(rec))
    out = stacked_history(rec)
    for k in ("train_loss", "test_loss", "train_acc", "test_acc", "h"):
        out[k] = np.asarray(out[k]).reshape(n_seeds, A, -1)
    out["activations"] = list(activations)
    return out


def train_quadratic_mlp(p: int, d_h: int, alphas: tuple, lr: float, steps: int, eval_every: int,
                        seed: int, device: str = "cpu", n_seeds: int = 1) -> dict:
    """Train one model per (draw, training fraction α in ``alphas``) by full-batch GD, batched: draw
    s uses split and initialisation seed ``seed + s`` (the α of one draw share the initialisation).
    Records train/test accuracy (argmax) and MSE every ``eval_every`` steps: arrays
    (n_seeds, n_α, n_evals), with ``alpha`` and λ = d_in/N_tr = 2/(αp) as ``lam``."""
    A = len(alphas)
    masks = torch.cat([split_masks(p, alphas, seed + s) for s in range(n_seeds)]).to(device).float()  # (S·A, p²)
    a, b, c = addition_table(p, device)
    Y = torch.nn.functional.one_hot(c, p).float()  # (p², p)
    W1s, W2s = [], []
    for s in range(n_seeds):
        g = torch.Generator().manual_seed(seed + s)
        W1s.append(torch.randn(d_h, 2 * p, generator=g))
        W2s.append(torch.randn(p, d_h, generator=g))
    W1 = torch.stack(W1s).repeat_interleave(A, 0).to(device).requires_grad_(True)  # (S·A, d_h, 2p)
    W2 = torch.stack(W2s).repeat_interleave(A, 0).to(device).requires_grad_(True)  # (S·A, p, d_h)
    n_tr = masks.sum(1)  # (S·A,)
    rec: dict = {k: [] for k in HISTORY}

    def squared_errors() -> tuple[torch.Tensor, torch.Tensor]:
        out = quadratic_mlp(W1, W2, a, b, p)  # (S·A, p, p²)
        return out, ((out - Y.T) ** 2).sum(1)  # (S·A, p²) squared error summed over classes

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
    for k in ("train_loss", "test_loss", "train_acc", "test_acc"):
        out[k] = out[k].reshape(n_seeds, A, -1)
    out["alpha"] = np.asarray(alphas, float)
    out["lam"] = 2 / (np.asarray(alphas, float) * p)
    return out
