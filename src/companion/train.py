"""The book's one training loop: full-batch (or mini-batch) training with evaluation at
log-spaced steps, optimizers named exactly, optional gradient filters and measures.

Chapters never loop over epochs; they call :func:`train` (through a cached experiment) and get
back plain arrays. Optimizers are named for what they are: ``adamw`` is decoupled weight decay
(Loshchilov & Hutter), ``adam`` adds weight decay as an L2 term to the gradient (coupled, as
in GrokFast's code), ``sgd`` is plain (momentum) gradient descent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping, Protocol

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from companion import slices
from companion.profiles import unstated

OPTIMIZERS = ("adamw", "adam", "sgd")


@dataclass(frozen=True)
class TrainConfig:
    """Defaults: Nanda et al. (2023) App. A — AdamW, lr 1e-3, wd 1, β = (0.9, 0.98), 10-step
    linear warmup, full batch, 50 000 steps."""

    steps: int = 50_000  # optimizer steps (= epochs when full batch)
    lr: float = 1e-3  # peak learning rate
    weight_decay: float = 1.0  # decoupled for adamw, L2 for adam/sgd
    optimizer: str = "adamw"  # adamw | adam | sgd
    betas: tuple[float, float] = (0.9, 0.98)  # Adam moments
    momentum: float = 0.0  # sgd only
    warmup: int = 10  # linear warmup steps (0: none)
    batch_size: int | None = None  # None: full batch
    n_evals: int = unstated(150)  # evaluation points, log-spaced in the step
    loss_dtype: str = unstated("float64")  # log-softmax precision (float32 produces late loss spikes)
    stop_after_test_acc: float | None = None  # stop once test accuracy reaches this...
    stop_patience: float = 0.25  # ...and a further fraction of the steps taken so far has passed
    seed: int = unstated(0)  # mini-batch order

    def __post_init__(self):
        from companion.profiles import one_of

        one_of("optimizer", self.optimizer, OPTIMIZERS)


class Split(Protocol):
    train_x: torch.Tensor
    train_y: torch.Tensor
    test_x: torch.Tensor
    test_y: torch.Tensor


def log_steps(total: int, n: int) -> np.ndarray:
    """About ``n`` distinct integer steps in [0, total], log-spaced, always with 0 and total."""
    if total <= 0:
        return np.array([0])
    s = np.unique(np.round(np.logspace(0, math.log10(total), n)).astype(int))
    return np.unique(np.concatenate([[0], s, [total]]))


def make_optimizer(params, cfg: TrainConfig) -> torch.optim.Optimizer:
    if cfg.optimizer == "adamw":
        return torch.optim.AdamW(params, lr=cfg.lr, betas=cfg.betas, weight_decay=cfg.weight_decay)
    if cfg.optimizer == "adam":
        return torch.optim.Adam(params, lr=cfg.lr, betas=cfg.betas, weight_decay=cfg.weight_decay)
    return torch.optim.SGD(params, lr=cfg.lr, momentum=cfg.momentum, weight_decay=cfg.weight_decay)


def cross_entropy(logits: torch.Tensor, y: torch.Tensor, dtype: str = "float64") -> torch.Tensor:
    return F.cross_entropy(logits.to(getattr(torch, dtype)), y)


@torch.no_grad()
def evaluate(model: nn.Module, x: torch.Tensor, y: torch.Tensor, loss_dtype: str = "float64"):
    """(loss, accuracy) of a classifier on a full batch."""
    logits = model(x)
    return cross_entropy(logits, y, loss_dtype).item(), (logits.argmax(-1) == y).float().mean().item()


def weight_norm(model: nn.Module) -> float:
    """‖θ‖₂ over all parameters (the quantity weight decay shrinks)."""
    return math.sqrt(sum(float((p.detach() ** 2).sum()) for p in model.parameters()))


GradFilter = Callable[[list[torch.Tensor], dict], None]


def train(model: nn.Module, data: Split, cfg: TrainConfig,
          measures: Mapping[str, Callable[[nn.Module], float]] | None = None,
          grad_filter: GradFilter | None = None, eval_at: np.ndarray | None = None) -> dict:
    """Train a classifier with cross-entropy; return the history as numpy arrays.

    History keys: ``step``, ``train_loss``, ``train_acc``, ``test_loss``, ``test_acc`` and one
    per entry of ``measures`` (each a function of the model, evaluated at the same steps).
    ``grad_filter(params, state)`` may rewrite the gradients in place before each step
    (GrokFast); ``state`` is a dict it owns. Evaluation is at ``eval_at`` (default:
    :func:`log_steps`), after the update of that step; step 0 is the initial model.
    """
    measures = dict(measures or {})
    params = [p for p in model.parameters() if p.requires_grad]
    opt = make_optimizer(params, cfg)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / cfg.warmup, 1.0) if cfg.warmup else 1.0)
    eval_at = log_steps(cfg.steps, cfg.n_evals) if eval_at is None else np.asarray(eval_at)
    evals = set(int(s) for s in eval_at)
    hist: dict[str, list] = {k: [] for k in ("step", "train_loss", "train_acc", "test_loss", "test_acc",
                                              *measures)}
    g = torch.Generator().manual_seed(cfg.seed)
    n = len(data.train_y)
    filter_state: dict = {}
    reached: int | None = None

    def record(step: int) -> None:
        model.eval()
        trl, tra = evaluate(model, data.train_x, data.train_y, cfg.loss_dtype)
        tel, tea = evaluate(model, data.test_x, data.test_y, cfg.loss_dtype)
        model.train()
        for k, v in zip(("step", "train_loss", "train_acc", "test_loss", "test_acc"), (step, trl, tra, tel, tea)):
            hist[k].append(v)
        with torch.no_grad():  # measures read the model; they never need its autograd graph
            for k, f in measures.items():
                hist[k].append(float(f(model)))

    if 0 in evals:
        record(0)

    def save() -> dict:
        return {"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                "hist": {k: list(v) for k, v in hist.items()}, "gen": g.get_state(),
                "filter": filter_state, "reached": reached}

    def load(s: dict) -> None:
        nonlocal reached
        model.load_state_dict(s["model"])
        opt.load_state_dict(s["opt"])
        sched.load_state_dict(s["sched"])
        for k, v in s["hist"].items():
            hist[k][:] = v
        g.set_state(s["gen"])
        filter_state.clear()
        filter_state.update(slices.to_device(s["filter"], params[0].device))
        reached = s["reached"]

    for step in slices.steps(cfg.steps + 1, 1, evals=evals, save=save, load=load):
        if cfg.batch_size is None or cfg.batch_size >= n:
            x, y = data.train_x, data.train_y
        else:
            idx = torch.randint(n, (cfg.batch_size,), generator=g).to(data.train_x.device)
            x, y = data.train_x[idx], data.train_y[idx]
        loss = cross_entropy(model(x), y, cfg.loss_dtype)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if grad_filter is not None:
            grad_filter(params, filter_state)
        opt.step()
        sched.step()
        if step in evals:
            record(step)
            if cfg.stop_after_test_acc is not None:
                if reached is None and hist["test_acc"][-1] >= cfg.stop_after_test_acc:
                    reached = step
                if reached is not None and step >= reached * (1 + cfg.stop_patience):
                    break
    return {k: np.asarray(v) for k, v in hist.items()}


def first_step(steps: np.ndarray, values: np.ndarray, threshold: float) -> float:
    """The first logged step at which ``values >= threshold``; ``inf`` if never."""
    hit = np.nonzero(np.asarray(values) >= threshold)[0]
    return float(steps[hit[0]]) if len(hit) else math.inf


def train_batched(models: list[nn.Module], datas: list[Split], cfg: TrainConfig,
                  measures: list[Mapping[str, Callable[[nn.Module], float]]] | None = None,
                  eval_at: np.ndarray | None = None) -> list[dict]:
    """:func:`train` for K models of one architecture at once, as one tensor program.

    Member k trains ``models[k]`` on ``datas[k]`` (the training sets must have equal sizes; test
    sets may differ) with its own ``measures[k]``; the result is K histories, each what
    :func:`train` returns for that member alone (up to floating-point summation order). The
    parameters are stacked and the forward ``vmap``-ed (:mod:`companion.ensemble`); AdamW, Adam
    and SGD are elementwise, so one optimizer over the stacks is K independent ones. Evaluation
    runs per member on a module holding its parameters. ``stop_after_test_acc`` stops each
    member's history where :func:`train` would stop it (the batch trains until every member has
    stopped). Full batch only, no gradient filter.
    """
    from companion.ensemble import Ensemble, ensemble_loss

    K = len(models)
    if cfg.batch_size is not None and any(cfg.batch_size < len(d.train_y) for d in datas):
        raise ValueError("train_batched is full batch only")
    if len({len(d.train_y) for d in datas}) != 1:
        raise ValueError("train_batched needs training sets of one size")
    measures = [dict(m) for m in measures] if measures is not None else [{} for _ in range(K)]
    views = models  # member k is evaluated on models[k], refreshed from the stacks
    ens = Ensemble(models)
    params = ens.parameters()
    opt = make_optimizer(params, cfg)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / cfg.warmup, 1.0) if cfg.warmup else 1.0)
    eval_at = log_steps(cfg.steps, cfg.n_evals) if eval_at is None else np.asarray(eval_at)
    evals = set(int(s) for s in eval_at)
    X = torch.stack([d.train_x for d in datas])
    Y = torch.stack([d.train_y for d in datas])
    hists = [{k: [] for k in ("step", "train_loss", "train_acc", "test_loss", "test_acc", *measures[i])}
             for i in range(K)]
    reached: list[int | None] = [None] * K
    done = [False] * K

    @torch.no_grad()
    def refresh(k: int) -> None:
        for (name, p) in views[k].named_parameters():
            p.copy_(ens.params[name][k])

    def record(step: int) -> None:
        for k in range(K):
            if done[k]:
                continue
            refresh(k)
            m, d, h = views[k], datas[k], hists[k]
            m.eval()
            trl, tra = evaluate(m, d.train_x, d.train_y, cfg.loss_dtype)
            tel, tea = evaluate(m, d.test_x, d.test_y, cfg.loss_dtype)
            m.train()
            for key, v in zip(("step", "train_loss", "train_acc", "test_loss", "test_acc"),
                              (step, trl, tra, tel, tea)):
                h[key].append(v)
            with torch.no_grad():
                for key, f in measures[k].items():
                    h[key].append(float(f(m)))
            if cfg.stop_after_test_acc is not None and step > 0:
                if reached[k] is None and tea >= cfg.stop_after_test_acc:
                    reached[k] = step
                if reached[k] is not None and step >= reached[k] * (1 + cfg.stop_patience):
                    done[k] = True

    if 0 in evals:
        record(0)

    def save() -> dict:
        return {"params": dict(ens.params), "opt": opt.state_dict(), "sched": sched.state_dict(),
                "hists": [{k: list(v) for k, v in h.items()} for h in hists], "reached": list(reached),
                "done": list(done)}

    def load(s: dict) -> None:
        with torch.no_grad():
            for name, v in s["params"].items():
                ens.params[name].copy_(v)
        opt.load_state_dict(s["opt"])
        sched.load_state_dict(s["sched"])
        for h, saved in zip(hists, s["hists"]):
            for k, v in saved.items():
                h[k][:] = v
        reached[:], done[:] = s["reached"], s["done"]

    for step in slices.steps(cfg.steps + 1, 1, evals=evals, save=save, load=load):
        loss = ensemble_loss(ens.forward(X), Y, getattr(torch, cfg.loss_dtype))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        if step in evals:
            record(step)
            if all(done):
                break
    return [{k: np.asarray(v) for k, v in h.items()} for h in hists]
