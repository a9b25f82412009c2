"""Squared-error training of K modules of one architecture as one tensor program, for the
synthesis chapter's settings that the papers train with MSE: the quadratic MLP on one-hot modular
addition (Levi et al. App. G; Kumar et al. App. 8.3) and Levi et al.'s linear teacher–student.

The loss is ``(1/N) Σ_i ‖f(x_i) − y_i‖² / α²`` (summed over outputs, averaged over samples;
Levi et al. Eq. 3; Kumar et al.'s ``1/s²`` factor is ``α``). Targets are one-hot classes
(accuracy: the arg-max) or real vectors (accuracy: Levi et al.'s fraction of samples whose
squared error is below ``acc_eps``, Eq. 6). The histories have the keys of
:func:`companion.train.trainer.train` and one per measure, so every setting reads alike.
"""

from __future__ import annotations

from typing import Callable, Mapping

import numpy as np
import torch
from torch import nn

from companion.train.ensemble import Ensemble
from companion.train.fit import fit, log_steps
from companion.train.trainer import HISTORY, TrainConfig, _history_state, optimizer_for


def _targets(y: torch.Tensor, n_classes: int | None) -> torch.Tensor:
    return nn.functional.one_hot(y, n_classes).to(torch.get_default_dtype()) if n_classes else y


@torch.no_grad()
def evaluate_mse(model: nn.Module, x: torch.Tensor, y: torch.Tensor, n_classes: int | None,
                 acc_eps: float | None, alpha: float = 1.0) -> tuple[float, float]:
    """(loss, accuracy) of one model on a full batch (module docstring)."""
    out = model(x)
    err = ((out - _targets(y, n_classes).to(out.dtype)) ** 2).reshape(len(out), -1).sum(-1)  # (n,)
    acc = (out.argmax(-1) == y).float().mean() if n_classes else (err < acc_eps).float().mean()
    return float(err.mean()) / alpha ** 2, float(acc)


def train_mse_batched(models: list[nn.Module], datas: list, cfg: TrainConfig, *, n_classes: int | None,
                      acc_eps: float | None = None, alpha: float = 1.0,
                      measures: list[Mapping[str, Callable[[nn.Module], float]]] | None = None,
                      eval_at: np.ndarray | None = None) -> list[dict]:
    """:func:`companion.train.trainer.train_batched` with the squared error of the module
    docstring (``n_classes``: one-hot targets; None: real targets with ``acc_eps``); full batch,
    ``cfg``'s optimizer (plain GD is ``sgd`` with weight decay 0)."""
    if n_classes is None and acc_eps is None:
        raise ValueError("real-valued targets need acc_eps (the accuracy threshold on the squared error)")
    K = len(models)
    measures = [dict(m) for m in measures] if measures is not None else [{} for _ in range(K)]
    ens = Ensemble(models)
    params = ens.parameters()
    opt = optimizer_for(params, cfg)
    eval_at = log_steps(cfg.steps, cfg.n_evals) if eval_at is None else np.asarray(eval_at)
    X = torch.stack([d.train_x for d in datas])
    Y = torch.stack([_targets(d.train_y, n_classes) for d in datas])
    hists = [{k: [] for k in (*HISTORY, *measures[i])} for i in range(K)]

    @torch.no_grad()
    def record(step: int) -> None:
        for k in range(K):
            for name, p in models[k].named_parameters():
                p.copy_(ens.params[name][k])
            models[k].eval()
            trl, tra = evaluate_mse(models[k], datas[k].train_x, datas[k].train_y, n_classes, acc_eps, alpha)
            tel, tea = evaluate_mse(models[k], datas[k].test_x, datas[k].test_y, n_classes, acc_eps, alpha)
            for key, v in zip(HISTORY, (step, trl, tra, tel, tea)):
                hists[k][key].append(v)
            for key, f in measures[k].items():
                hists[k][key].append(float(f(models[k])))

    def loss(step: int) -> torch.Tensor:
        out = ens.forward(X)  # (K, n, d_out)
        return ((out - Y.to(out.dtype)) ** 2).sum(-1).mean(-1).sum() / alpha ** 2

    state = _history_state(hists, dict, lambda s: None)
    fit(params, opt, cfg.steps, evals=eval_at, record=record, loss=loss, warmup=cfg.warmup, state=state,
        static=True)  # full batch: on a GPU the step is captured (companion.train.graph)
    return [{k: np.asarray(v) for k, v in h.items()} for h in hists]
