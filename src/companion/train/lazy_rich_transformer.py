"""Figs. 6b and 12 of Kumar et al. (2024): transformers with centred, α-scaled logits, every
(α, weight decay, seed) run one member of a batched tensor program, trained by
:func:`companion.train.fit.fit` with :class:`~companion.train.optim.BatchedOptimizer`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from companion.train.ensemble import Ensemble
from companion.train.fit import fit
from companion.train.history import history_state
from companion.train.optim import BatchedOptimizer

Tensor = torch.Tensor


@dataclass(frozen=True)
class TransformerTraining:
    """How Kumar et al.'s transformers train (Fig. 6b follows Nanda et al.: full-batch AdamW with a linear
    warm-up), shared by every member of a program; each member's α, learning rate and weight decay are passed
    beside it."""

    steps: int  # full-batch AdamW steps
    log_at: tuple  # the logged steps (integers, increasing)
    betas: tuple = (0.9, 0.98)  # Nanda et al.'s AdamW betas
    warmup: int = 10  # steps of linear learning-rate warm-up
    stop_level: float | None = None  # train_scaled_transformers: a member leaves once both its losses reached it
    stop_rel: float | None = None  # train_linearised_transformers: stop once every network's train loss halved and
    # left its linearisation's by more than this (relative)


def train_scaled_transformers(models, datas, alphas, lrs, wds, how: TransformerTraining) -> dict:
    """Figs. 6b and 12: K transformers with centred, α-scaled logits as one tensor program.

    ``models[k]`` computes ``f − f0`` (:class:`~companion.models.lazy_rich.ScaledTransformer` with
    α = 1) and member k's logits are ``alphas[k]·(f − f0)``; it trains on ``datas[k]`` (training
    sets of one size) by full-batch AdamW with its own ``lrs[k]`` and ``wds[k]`` as ``how`` says
    (:class:`~companion.train.optim.BatchedOptimizer`, linear warm-up), the cross-entropy taken in
    float64 — what :func:`companion.train.train` does for each member alone. The parameters are
    stacked and the forward ``vmap``-ed (:class:`~companion.train.ensemble.Ensemble`). With
    ``stop_level`` a member leaves the program at the first logged step by which its train and
    test losses have both been at or below that level (the first crossings, all that is read
    from these runs, can no longer change; its later entries are NaN), and training stops when
    no member is left. Returns ``(K, n_logged)`` arrays and ``step``."""
    from torch.func import functional_call, vmap

    steps, log_at, betas, warmup, stop_level = how.steps, how.log_at, how.betas, how.warmup, how.stop_level
    ens = Ensemble(models)
    params = ens.parameters()
    K = len(models)
    Xtr, Ytr = torch.stack([d.train_x for d in datas]), torch.stack([d.train_y for d in datas])
    al = torch.as_tensor(alphas, dtype=torch.float32, device=Xtr.device)[:, None, None]
    Xte, Yte = torch.stack([d.test_x for d in datas]), torch.stack([d.test_y for d in datas])
    hist: dict[str, list] = {k: [] for k in ("train_loss", "train_acc", "test_loss", "test_acc")}

    def one(p: dict, b: dict, x: Tensor) -> Tensor:
        return functional_call(ens.base, (p, b), (x,))

    def active() -> Tensor:
        """Indices of the members still read: all, or those not yet at ``stop_level`` in both losses."""
        if stop_level is None or not hist["train_loss"]:
            return torch.arange(K)
        reached = [(np.nan_to_num(np.stack(hist[k]), nan=-np.inf) <= stop_level).any(0)
                   for k in ("train_loss", "test_loss")]
        return torch.as_tensor(np.nonzero(~(reached[0] & reached[1]))[0])

    def losses(X: Tensor, Y: Tensor, idx: Tensor) -> tuple[Tensor, Tensor]:
        """Mean cross-entropy (float64) and logits of the members ``idx``."""
        if len(idx) == K:
            lg = al * ens.forward(X)
        else:  # the members left: indexing the stacked leaves keeps each one's gradient its own
            sub = [{k: v[idx] for k, v in d.items()} for d in (ens.params, ens.buffers)]
            lg, X, Y = al[idx] * vmap(one)(*sub, X[idx]), X[idx], Y[idx]
        m, n, C = lg.shape
        per = torch.nn.functional.cross_entropy(lg.double().reshape(m * n, C), Y.reshape(m * n), reduction="none")
        return per.view(m, n).mean(1), lg

    @torch.no_grad()
    def record(t: int) -> bool:
        idx = active()
        for split, X, Y in (("train", Xtr, Ytr), ("test", Xte, Yte)):
            ce, lg = losses(X, Y, idx)
            loss, acc = np.full(K, np.nan), np.full(K, np.nan)
            loss[idx.cpu().numpy()] = ce.cpu().numpy()
            acc[idx.cpu().numpy()] = (lg.argmax(-1) == Y[idx]).float().mean(-1).cpu().numpy()
            hist[f"{split}_loss"].append(loss)
            hist[f"{split}_acc"].append(acc)
        return stop_level is not None and not len(active())

    opt = BatchedOptimizer(params, "adamw", torch.as_tensor(lrs, dtype=torch.float32),
                           torch.as_tensor(wds, dtype=torch.float32), betas=betas)
    fit(params, opt, steps, evals=np.asarray(log_at), record=record, loss=lambda t: losses(Xtr, Ytr, active())[0].sum(),
        warmup=warmup, state=history_state(hist))
    out = {k: np.stack(v, 1) for k, v in hist.items()}
    out["step"] = np.asarray(log_at)[:out["train_loss"].shape[1]]
    return out


def train_linearised_transformers(models, datas, linearise, alpha: float, lr: float, wd: float,
                                  how: TransformerTraining) -> dict:
    """App. 14 Fig. 13c: K transformers with centred, α-scaled logits (one per seed) and, beside
    each, its linearisation ``f(θ₀) + J(θ₀)(θ − θ₀)`` about its own initialisation
    (``linearise(module, θ₀)``: :func:`companion.measures.kernels.linearise`, one ``torch.func.jvp``
    per forward, passed in by the experiment), both
    trained the same way: full-batch AdamW (``lr``, ``wd``, linear warm-up), cross-entropy in
    float64, all 2K models one tensor program (the linearised forward ``vmap``-ed over members).

    With ``how.stop_rel`` training stops at the first logged step by which every member's network
    train loss has both halved and left its linearisation's by more than ``stop_rel``
    (relative): the two events Fig. 13c's claim reads. Returns ``(K, n_logged)`` arrays
    ``train_loss``, ``test_loss``, ``lin_train``, ``lin_test`` and ``step``."""
    from torch.func import vmap

    steps, log_at, betas, warmup, stop_rel = how.steps, how.log_at, how.betas, how.warmup, how.stop_rel
    ens = Ensemble(models)
    inner, p = models[0].model, models[0].p  # the architecture; every member's parameters are passed in
    names = [n for n, _ in inner.named_parameters()]
    theta0 = {n: ens.params["model." + n].detach().clone() for n in names}
    theta = {n: v.clone().requires_grad_(True) for n, v in theta0.items()}
    f0 = ens.buffers["f0"]  # (K, p², p): each member's outputs at its own θ₀

    def lin_one(t: dict, t0: dict, f0k: Tensor, x: Tensor) -> Tensor:
        return alpha * (linearise(inner, t0)(t, x) - f0k[x[:, 0] * p + x[:, 1]])

    K = len(models)
    Xtr, Ytr = torch.stack([d.train_x for d in datas]), torch.stack([d.train_y for d in datas])
    Xte, Yte = torch.stack([d.test_x for d in datas]), torch.stack([d.test_y for d in datas])
    hist: dict[str, list] = {k: [] for k in ("train_loss", "test_loss", "lin_train", "lin_test")}

    def ce(lg: Tensor, Y: Tensor) -> Tensor:
        n, C = lg.shape[1], lg.shape[2]
        return torch.nn.functional.cross_entropy(lg.double().reshape(K * n, C), Y.reshape(K * n),
                                                 reduction="none").view(K, n).mean(1)

    def losses(X: Tensor, Y: Tensor) -> tuple[Tensor, Tensor]:
        """(network, linearised) cross-entropy per member."""
        return ce(alpha * ens.forward(X), Y), ce(vmap(lin_one)(theta, theta0, f0, X), Y)

    @torch.no_grad()
    def record(t: int) -> bool:
        for (a, b), X, Y in ((("train_loss", "lin_train"), Xtr, Ytr), (("test_loss", "lin_test"), Xte, Yte)):
            net, lin = losses(X, Y)
            hist[a].append(net.cpu().numpy())
            hist[b].append(lin.cpu().numpy())
        if stop_rel is None:
            return False
        net, lin = np.stack(hist["train_loss"]), np.stack(hist["lin_train"])
        halved = (net <= net[0] / 2).any(0)
        left = (np.abs(net - lin) > stop_rel * np.abs(lin)).any(0)
        return bool((halved & left).all())

    params = ens.parameters() + list(theta.values())
    opt = BatchedOptimizer(params, "adamw", lr, wd, betas=betas)
    fit(params, opt, steps, evals=np.asarray(log_at), record=record,
        loss=lambda t: sum(v.sum() for v in losses(Xtr, Ytr)), warmup=warmup, state=history_state(hist))
    out = {k: np.stack(v, 1) for k, v in hist.items()}
    out["step"] = np.asarray(log_at)[:out["train_loss"].shape[1]]
    return out
