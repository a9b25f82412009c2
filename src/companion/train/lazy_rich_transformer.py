"""Figs. 6b and 12 of Kumar et al. (2024): transformers with centred, α-scaled logits, every
(α, weight decay, seed) run one member of a batched tensor program, trained by
:func:`companion.train.fit.fit` with :class:`~companion.train.optim.BatchedOptimizer`."""

from __future__ import annotations

import numpy as np
import torch

from companion.train.fit import fit
from companion.train.history import history_state
from companion.train.optim import BatchedOptimizer

Tensor = torch.Tensor


def train_scaled_transformers(models, datas, alphas, lrs, wds, steps: int, log_at, betas=(0.9, 0.98),
                              warmup: int = 10, stop_level: float | None = None) -> dict:
    """Figs. 6b and 12: K transformers with centred, α-scaled logits as one tensor program.

    ``models[k]`` computes ``f − f0`` (:class:`~companion.models.lazy_rich.ScaledTransformer` with
    α = 1) and member k's logits are ``alphas[k]·(f − f0)``; it trains on ``datas[k]`` (training
    sets of one size) by full-batch AdamW with its own ``lrs[k]`` and ``wds[k]``
    (:class:`~companion.train.optim.BatchedOptimizer`, linear warm-up), the cross-entropy taken in
    float64 — what :func:`companion.train.train` does for each member alone. The parameters are
    stacked and the forward ``vmap``-ed (:class:`~companion.train.ensemble.Ensemble`). With
    ``stop_level`` training stops at the first logged step by which every member's train and test
    losses have both been at or below it: the first crossings of that level, all that is read
    from these runs, can no longer change. Returns ``(K, n_logged)`` arrays and ``step``."""
    from companion.train.ensemble import Ensemble

    ens = Ensemble(models)
    params = ens.parameters()
    K = len(models)
    al = torch.as_tensor(alphas, dtype=torch.float32)[:, None, None]
    Xtr, Ytr = torch.stack([d.train_x for d in datas]), torch.stack([d.train_y for d in datas])
    Xte, Yte = torch.stack([d.test_x for d in datas]), torch.stack([d.test_y for d in datas])
    hist: dict[str, list] = {k: [] for k in ("train_loss", "train_acc", "test_loss", "test_acc")}

    def losses(X: Tensor, Y: Tensor) -> tuple[Tensor, Tensor]:
        """Per-member mean cross-entropy (float64) and the logits."""
        lg = al * ens.forward(X)
        n, C = lg.shape[1], lg.shape[2]
        per = torch.nn.functional.cross_entropy(lg.double().reshape(K * n, C), Y.reshape(K * n), reduction="none")
        return per.view(K, n).mean(1), lg

    @torch.no_grad()
    def record(t: int) -> bool:
        for split, X, Y in (("train", Xtr, Ytr), ("test", Xte, Yte)):
            ce, lg = losses(X, Y)
            hist[f"{split}_loss"].append(ce.numpy())
            hist[f"{split}_acc"].append((lg.argmax(-1) == Y).float().mean(-1).numpy())
        if stop_level is None:
            return False
        reached = [(np.stack(hist[k]) <= stop_level).any(0) for k in ("train_loss", "test_loss")]
        return bool((reached[0] & reached[1]).all())

    opt = BatchedOptimizer(params, "adamw", torch.as_tensor(lrs, dtype=torch.float32),
                           torch.as_tensor(wds, dtype=torch.float32), betas=betas)
    fit(params, opt, steps, evals=np.asarray(log_at), record=record, loss=lambda t: losses(Xtr, Ytr)[0].sum(),
        warmup=warmup, state=history_state(hist))
    out = {k: np.stack(v, 1) for k, v in hist.items()}
    out["step"] = np.asarray(log_at)[:out["train_loss"].shape[1]]
    return out
