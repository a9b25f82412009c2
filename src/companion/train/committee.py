"""Kumar et al.'s committee machine trained (§5, App. 8.1, 12, 14): :func:`run_committee`, full-batch GD of
:mod:`companion.models.committee` with ``η = η0 N/α²``, readouts ``a_i = 1`` unless trained (App. 12) and optional
heavy-ball momentum (App. 14), as a :class:`CommitteeTraining` says; the independent check of the exact closure in
:mod:`companion.theory.lazy_rich`. Its gradient is written out (checked against autograd in the tests)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor

from companion.models.committee import activation
from companion.theory.lazy_rich import population_terms
from companion.train.fit import fit
from companion.train.history import history_state
from companion.train.optim import BatchedOptimizer


@dataclass(frozen=True)
class CommitteeTraining:
    """How :func:`run_committee` trains Kumar et al.'s committee machine (§3, App. 8.1): full-batch GD with
    the per-run step η = lr0·N/α², logged at ``log_at``. ``alpha``, ``eps`` and ``lr0`` are one value or
    one per run."""

    alpha: Any  # output scale α
    eps: Any  # ε of the activation φ(h) = h + (ε/2)h² (k = 2) or h + (ε/2)He_k(h)
    lr0: Any  # Kumar et al.'s η0
    steps: int  # GD steps
    log_at: Any  # the steps at which the history is logged
    centred: bool = True  # train f − f(W0) (App. 8.1)
    momentum: float = 0.0  # heavy-ball momentum
    k: int = 2  # the activation's order (App. 15.2: Hermite He_k)
    linearised: bool = False  # the first-order Taylor expansion in W around W0 (App. 14; readouts fixed)
    keep_W: bool = False  # keep the weights at every logged step (``W_traj``)


def run_committee(X: Tensor, y: Tensor, W0: Tensor, how: CommitteeTraining, readouts: Tensor | None = None,
                  T: Tensor | None = None, X_test: Tensor | None = None, y_test: Tensor | None = None) -> dict:
    """Full-batch GD of the committee machine as ``how`` says, batched over runs: ``X (S,P,D)``, ``W0 (S,N,D)``.

    Loss ``mean_μ (f̃(x_μ) − y_μ)²`` with ``f̃ = f − f(W0)`` when ``centred`` (App. 8.1).
    With trainable ``readouts (S, N)`` both layers take GD steps. The test loss is the exact
    population loss for a quadratic ``φ`` when ``T`` is given (eq. 6 with the readout-weighted
    statistics ``w̄ = Σ a_i w_i/N``, ``M = Σ a_i w_i w_iᵀ/N``, App. 12), else the empirical
    loss on ``X_test`` (given both, the empirical one is ``sample_test``).
    With ``linearised`` the model is its first-order Taylor expansion in W
    around W0 (App. 14; readouts fixed). Returns numpy ``(S, len(log_at))`` arrays, the final
    weights ``W`` and with ``keep_W`` the weights at every logged step (``W_traj``).

    Trained by :func:`companion.train.fit.fit` with the gradient written out (``gradient=``;
    ``tests/test_lazy_rich.py`` checks it against autograd) and
    :class:`~companion.train.optim.BatchedOptimizer` ``"sgd"`` with heavy-ball ``momentum`` and
    the per-run step ``η = lr0·N/α²`` (Kumar et al.'s η0).
    """
    alpha, eps, lr0, steps, log_at = how.alpha, how.eps, how.lr0, how.steps, how.log_at
    centred, momentum, k, linearised, keep_W = how.centred, how.momentum, how.k, how.linearised, how.keep_W
    S, P, D = X.shape
    N = W0.shape[-2]
    dt = X.dtype

    def per_run(v) -> Tensor:
        return torch.as_tensor(v, dtype=dt).reshape(-1).expand(S).clone().to(X.device)

    al, ep, e0 = per_run(alpha), per_run(eps), per_run(lr0)
    W = W0.clone()
    a = torch.ones(S, N, dtype=dt, device=X.device) if readouts is None else readouts.clone()
    train_a = readouts is not None
    E = ep[:, None, None]

    at_W0: dict[int, tuple] = {}  # linearised: (H0, φ(H0), φ'(H0)) of each input set, fixed through training

    def forward(Xq, W_, a_):
        if linearised:  # f(W0) + Σ_i ∂f/∂w_i|W0 · (w_i − w_i0)
            if id(Xq) not in at_W0:
                H0 = Xq @ W0.transpose(-1, -2)
                at_W0[id(Xq)] = (H0, *activation(H0, E, k))
            H0, phi0, dphi0 = at_W0[id(Xq)]
            lin = phi0 + dphi0 * (Xq @ (W_ - W0).transpose(-1, -2))
            return (al[:, None] / N) * (lin @ a_[..., None])[..., 0], H0, phi0, dphi0
        H = Xq @ W_.transpose(-1, -2)  # (S, n, N)
        phi, dphi = activation(H, E, k)
        return (al[:, None] / N) * (phi @ a_[..., None])[..., 0], H, phi, dphi

    f0 = forward(X, W0, a)[0] if centred else torch.zeros_like(y)
    f0t = forward(X_test, W0, a)[0] if (centred and X_test is not None) else None
    a0, W0c = a.clone(), W0.clone()
    if linearised and X_test is None and T is not None:
        raise ValueError("the linearised committee needs an explicit X_test")
    hist: dict[str, list] = {"train_loss": [], "test_loss": [], "sample_test": [], "variance": [], "misalignment": [],
                             "linear": [], "weight_norm": [], "rel_change": [], "W_traj": []}
    n0 = torch.sqrt((W0c ** 2).sum((-1, -2)))

    def record(t: int) -> None:
        f = forward(X, W, a)[0]
        r = f - f0 - y
        hist["train_loss"].append((r * r).mean(-1))
        if keep_W:
            hist["W_traj"].append(W.clone())
        if T is not None and not linearised:
            wbar = (a[..., None] * W).sum(-2) / N
            M = W.transpose(-1, -2) @ (a[..., None] * W) / N
            if centred:
                wbar = wbar - (a0[..., None] * W0c).sum(-2) / N
                M = M - W0c.transpose(-1, -2) @ (a0[..., None] * W0c) / N
            terms = population_terms(al[:, None] * wbar, (al * ep / 2)[:, None, None] * M - T, D)
            for key in ("variance", "misalignment", "linear"):
                hist[key].append(terms[key])
            hist["test_loss"].append(terms["total"])
        if X_test is not None:  # with the population loss too: the empirical one as ``sample_test``
            ft = forward(X_test, W, a)[0] - (f0t if f0t is not None else 0)
            hist["sample_test" if T is not None and not linearised else "test_loss"].append(
                ((ft - y_test) ** 2).mean(-1))
        hist["weight_norm"].append(torch.sqrt((W ** 2).sum((-1, -2))))
        hist["rel_change"].append(torch.sqrt(((W - W0c) ** 2).sum((-1, -2))) / n0)

    c = (2 * al / (N * P))[:, None, None]

    def gradient(t: int) -> list[Tensor]:
        f, H, phi, dphi = forward(X, W, a)
        r = f - f0 - y
        gW = c * ((r[..., None] * dphi * a[:, None, :]).transpose(-1, -2) @ X)
        if not train_a:
            return [gW]
        return [gW, c[..., 0] * (phi * r[..., None]).sum(-2)]

    params = [W, a] if train_a else [W]
    optimizer = BatchedOptimizer(params, "sgd", e0 * N / al ** 2, momentum=momentum)
    fit(params, optimizer, steps, evals=np.asarray(log_at), record=record, gradient=gradient,
        state=history_state(hist))
    out = {"step": np.asarray(log_at)}
    traj = hist.pop("W_traj")
    out.update({key: torch.stack(v, -1).cpu().numpy() for key, v in hist.items() if v})
    if traj:
        out["W_traj"] = torch.stack(traj, 1).cpu().numpy()  # (S, n_log, N, D)
    out["W"] = W.cpu().numpy()
    return out
