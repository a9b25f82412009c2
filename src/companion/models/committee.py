"""Neuron-level models of Kumar et al. (2024), batched over independent runs.

* :func:`run_committee` — the committee machine of §5 (``f = (α/N) Σ a_i φ(w_i·x)``, readouts
  ``a_i = 1`` unless trained, App. 12), trained by full-batch GD with ``η = η0 N/α²`` and
  optional heavy-ball momentum (App. 14); ``φ(h) = h + (ε/2)h²`` or the Hermite variant
  ``h + (ε/2)He_k(h)`` of App. 15.2. It is the independent check of the exact closure in
  :mod:`companion.theory.lazy_rich`.
* :class:`BatchedAdamW` — AdamW on parameters stacked over runs, with a learning rate per run.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from companion import slices

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


def run_committee(X: Tensor, y: Tensor, W0: Tensor, alpha, eps, eta0, steps: int, log_at,
                  centred: bool = True, momentum: float = 0.0, k: int = 2,
                  readouts: Tensor | None = None, T: Tensor | None = None,
                  X_test: Tensor | None = None, y_test: Tensor | None = None,
                  linearised: bool = False, keep_W: bool = False) -> dict:
    """Full-batch GD of the committee machine, batched over runs: ``X (S,P,D)``, ``W0 (S,N,D)``.

    Loss ``mean_μ (f̃(x_μ) − y_μ)²`` with ``f̃ = f − f(W0)`` when ``centred`` (App. 8.1).
    With trainable ``readouts (S, N)`` both layers take GD steps. The test loss is the exact
    population loss for a quadratic ``φ`` when ``T`` is given (eq. 6 with the readout-weighted
    statistics ``w̄ = Σ a_i w_i/N``, ``M = Σ a_i w_i w_iᵀ/N``, App. 12), else the empirical
    loss on ``X_test``. With ``linearised`` the model is its first-order Taylor expansion in W
    around W0 (App. 14; readouts fixed). Returns numpy ``(S, len(log_at))`` arrays, the final
    weights ``W`` and with ``keep_W`` the weights at every logged step (``W_traj``).
    """
    from companion.theory.lazy_rich import population_terms

    S, P, D = X.shape
    N = W0.shape[-2]
    dt = X.dtype
    col = lambda v: torch.as_tensor(v, dtype=dt).reshape(-1).expand(S).clone()  # noqa: E731
    al, ep, e0 = col(alpha), col(eps), col(eta0)
    lr = (e0 * N / al ** 2)[:, None, None]
    W = W0.clone()
    a = torch.ones(S, N, dtype=dt) if readouts is None else readouts.clone()
    train_a = readouts is not None
    vW, va = torch.zeros_like(W), torch.zeros_like(a)
    E = ep[:, None, None]

    def forward(Xq, W_, a_):
        if linearised:  # f(W0) + Σ_i ∂f/∂w_i|W0 · (w_i − w_i0)
            H0 = Xq @ W0.transpose(-1, -2)
            phi0, dphi0 = activation(H0, E, k)
            lin = phi0 + dphi0 * (Xq @ (W_ - W0).transpose(-1, -2))
            return (al[:, None] / N) * (lin @ a_[..., None])[..., 0], H0, phi0, dphi0
        H = Xq @ W_.transpose(-1, -2)  # (S, n, N)
        phi, dphi = activation(H, E, k)
        return (al[:, None] / N) * (phi @ a_[..., None])[..., 0], H, phi, dphi

    f0 = forward(X, W0, a)[0] if centred else torch.zeros_like(y)
    f0t = forward(X_test, W0, a)[0] if (centred and X_test is not None) else None
    a0, W0c = a.clone(), W0.clone()
    logs = set(int(s) for s in np.asarray(log_at))
    if linearised and X_test is None and T is not None:
        raise ValueError("the linearised committee needs an explicit X_test")
    hist: dict[str, list] = {"train_loss": [], "test_loss": [], "variance": [], "misalignment": [],
                             "linear": [], "weight_norm": [], "rel_change": [], "W_traj": []}
    n0 = torch.sqrt((W0c ** 2).sum((-1, -2)))

    def save() -> dict:
        return {"W": W, "a": a, "vW": vW, "va": va, "hist": {key: list(v) for key, v in hist.items()}}

    def load(s: dict) -> None:
        nonlocal W, a, vW, va
        W, a, vW, va = s["W"], s["a"], s["vW"], s["va"]
        for key, v in s["hist"].items():
            hist[key][:] = v

    for t in slices.steps(steps + 1, evals=logs, save=save, load=load):
        f, H, phi, dphi = forward(X, W, a)
        r = f - f0 - y
        if t in logs:
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
            elif X_test is not None:
                ft = forward(X_test, W, a)[0] - (f0t if f0t is not None else 0)
                hist["test_loss"].append(((ft - y_test) ** 2).mean(-1))
            hist["weight_norm"].append(torch.sqrt((W ** 2).sum((-1, -2))))
            hist["rel_change"].append(torch.sqrt(((W - W0c) ** 2).sum((-1, -2))) / n0)
        if t == steps:
            break
        c = (2 * al / (N * P))[:, None, None]
        gW = c * ((r[..., None] * dphi * a[:, None, :]).transpose(-1, -2) @ X)
        vW = momentum * vW + gW
        if train_a:
            ga = c[..., 0] * (phi * r[..., None]).sum(-2)
            va = momentum * va + ga
            a = a - lr[..., 0] * va
        W = W - lr * vW
    out = {"step": np.asarray(log_at)}
    traj = hist.pop("W_traj")
    out.update({key: torch.stack(v, -1).numpy() for key, v in hist.items() if v})
    if traj:
        out["W_traj"] = torch.stack(traj, 1).numpy()  # (S, n_log, N, D)
    out["W"] = W.numpy()
    return out


class BatchedAdamW:
    """AdamW (decoupled weight decay, Loshchilov & Hutter) on tensors whose first axis indexes
    independent runs, with a learning rate per run (``lr`` of shape ``(S,)``). Matches
    ``torch.optim.AdamW`` run by run."""

    def __init__(self, params: list[Tensor], lr: Tensor, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float | Tensor = 0.01):
        self.params, self.lr = params, lr
        self.b1, self.b2 = betas
        self.eps, self.wd = eps, weight_decay
        self.m = [torch.zeros_like(p) for p in params]
        self.v = [torch.zeros_like(p) for p in params]
        self.t = 0

    @torch.no_grad()
    def step(self, lr_scale: float = 1.0) -> None:
        self.t += 1
        c1, c2 = 1 - self.b1 ** self.t, 1 - self.b2 ** self.t
        for p, m, v in zip(self.params, self.m, self.v):
            lr = (self.lr * lr_scale).reshape(-1, *[1] * (p.dim() - 1))
            wd = torch.as_tensor(self.wd, dtype=p.dtype).reshape(-1, *[1] * (p.dim() - 1))
            p.mul_(1 - lr * wd)
            m.mul_(self.b1).add_(p.grad, alpha=1 - self.b1)
            v.mul_(self.b2).addcmul_(p.grad, p.grad, value=1 - self.b2)
            p.sub_(lr * (m / c1) / ((v / c2).sqrt() + self.eps))

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    def state_dict(self) -> dict:
        return {"m": list(self.m), "v": list(self.v), "t": self.t}

    def load_state_dict(self, s: dict) -> None:
        with torch.no_grad():
            for mine, saved in zip(self.m + self.v, s["m"] + s["v"]):
                mine.copy_(saved)
        self.t = s["t"]


def log_grid(total: int, n: int) -> np.ndarray:
    """About n log-spaced integer steps in [0, total] including 0 and total."""
    if total <= 0:
        return np.array([0])
    s = np.unique(np.round(np.logspace(0, math.log10(total), n)).astype(int))
    return np.unique(np.concatenate([[0], s, [total]]))
