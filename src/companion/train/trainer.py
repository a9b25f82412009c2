"""Classifiers that are ``nn.Module``s, trained by :func:`companion.train.fit.fit` with
cross-entropy: one model (:func:`train`), or K of one architecture as one vmapped program
(:func:`train_batched`). :class:`TrainConfig` names the optimizer (:mod:`companion.train.optim`),
the schedule, the stopping rule and, on a GPU, the arithmetic (:mod:`companion.train.precision`); the defaults
are Nanda et al.'s (2023).

On a GPU a batch evaluates all its members at once, its values left on the device until the history is
saved or returned (:func:`batched_evaluation`): evaluating member by member waits on the device for every
value, and those waits, not the training, made most of a batch's time. On a CPU evaluation stays per member,
the arithmetic the book's results were computed with.

Chapters never loop over steps; they call an experiment (cached) that calls these and get back
plain arrays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping, Protocol, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from companion import runmode
from companion.settings import one_of, unstated
from companion.train import graph
from companion.train.ensemble import Ensemble, ensemble_evaluate, ensemble_loss
from companion.train.fit import GradFilter, fit, log_steps
from companion.train.optim import OPTIMIZERS, BatchedOptimizer, make_optimizer
from companion.train.precision import PRECISIONS, precision_field, scope

LOSS_DTYPES = ("float64", "float32")


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
    precision: str = precision_field()  # on a GPU: float32 | tf32 | bf16 (companion.train.precision)

    def __post_init__(self):
        one_of("optimizer", self.optimizer, OPTIMIZERS)
        one_of("loss_dtype", self.loss_dtype, LOSS_DTYPES)
        one_of("precision", self.precision, PRECISIONS)


class Split(Protocol):
    train_x: torch.Tensor
    train_y: torch.Tensor
    test_x: torch.Tensor
    test_y: torch.Tensor


def optimizer_for(params, cfg: TrainConfig):
    """The optimizer ``cfg`` names, over ``params`` (:func:`companion.train.optim.make_optimizer`); on a GPU the
    batched one, whose state lives on the device, so that the step can be captured (:mod:`companion.train.graph`;
    the two differ in rounding only)."""
    params = list(params)
    if graph.enabled(params):
        return BatchedOptimizer(params, cfg.optimizer, cfg.lr, cfg.weight_decay, cfg.betas, momentum=cfg.momentum)
    return make_optimizer(params, cfg.optimizer, cfg.lr, cfg.weight_decay, cfg.betas, momentum=cfg.momentum)


def cross_entropy(logits: torch.Tensor, y: torch.Tensor, dtype: str = "float64") -> torch.Tensor:
    """Mean cross-entropy, the log-softmax taken in ``dtype``."""
    return F.cross_entropy(logits.to(getattr(torch, dtype)), y)


@torch.no_grad()
def evaluate(model: nn.Module, x: torch.Tensor, y: torch.Tensor, loss_dtype: str = "float64"):
    """(loss, accuracy) of a classifier on a full batch."""
    logits = model(x)
    return cross_entropy(logits, y, loss_dtype).item(), (logits.argmax(-1) == y).float().mean().item()


def batched_evaluation(params: Sequence[torch.Tensor]) -> bool:
    """Whether :func:`train_batched` over ``params`` evaluates its members all at once, from the stacked
    parameters, leaving the values on the device: on a GPU, where per-member evaluation's host
    synchronisations dominate a batch's run; not on a CPU, whose numbers stay those of per-member evaluation
    bit for bit. ``COMPANION_BATCHED_EVAL=1`` forces it on (on a CPU too), ``0`` off."""
    forced = runmode.variable("COMPANION_BATCHED_EVAL")
    if forced is not None:
        return forced != "0"
    return bool(params) and params[0].is_cuda


def weight_norm(model: nn.Module) -> float | torch.Tensor:
    """‖θ‖₂ over all parameters (the quantity weight decay shrinks). On a GPU a 0-d tensor left on the device (a
    float per parameter would wait on the device at every evaluation); on a CPU a float, summed as always."""
    ps = [p.detach() for p in model.parameters()]
    if ps and ps[0].is_cuda:
        return torch.sqrt(sum((p.double() ** 2).sum() for p in ps))
    return math.sqrt(sum(float((p ** 2).sum()) for p in ps))


HISTORY = ("step", "train_loss", "train_acc", "test_loss", "test_acc")


def _stops(cfg: TrainConfig, reached: list, step: int, test_acc: float) -> bool:
    """``stop_after_test_acc``: remember the first step test accuracy reaches it, and stop once a
    further ``stop_patience`` fraction of the steps taken so far has passed."""
    if cfg.stop_after_test_acc is None or step == 0:
        return False
    if reached[0] is None and test_acc >= cfg.stop_after_test_acc:
        reached[0] = step
    return reached[0] is not None and step >= reached[0] * (1 + cfg.stop_patience)


def _record_into(hist: dict, model: nn.Module, data: Split, step: int, cfg: TrainConfig, measures: Mapping,
                 snapshot: bool = False) -> float:
    model.eval()
    trl, tra = evaluate(model, data.train_x, data.train_y, cfg.loss_dtype)
    tel, tea = evaluate(model, data.test_x, data.test_y, cfg.loss_dtype)
    model.train()
    for k, v in zip(HISTORY, (step, trl, tra, tel, tea)):
        hist[k].append(v)
    _measure_into(hist, model, step, measures, snapshot)
    return tea


def _measure_into(hist: dict, model: nn.Module, step: int, measures: Mapping, snapshot: bool,
                  keep_tensors: bool = False) -> None:
    """``measures`` of ``model`` (Python floats; with ``keep_tensors``, a tensor a measure returns stays one,
    on its device) and, with ``snapshot``, a copy of its parameters, appended to ``hist``."""
    with torch.no_grad():  # measures read the model; they never need its autograd graph
        for k, f in measures.items():
            v = f(model)
            hist[k].append(v.detach().clone() if keep_tensors and isinstance(v, torch.Tensor) else float(v))
        if snapshot:  # a copy of every parameter, for diagnostics computed after the run
            hist[SNAPSHOTS].append((step, {k: v.detach().cpu().numpy().copy() for k, v in model.named_parameters()}))


#: history key of the parameter snapshots while training (:func:`_finish_history` stacks them)
SNAPSHOTS = "_snapshots"


def _snapshot_steps(snapshot_at, eval_at: np.ndarray) -> set:
    """``snapshot_at`` as a set of evaluation steps (a snapshot is taken where the history is recorded)."""
    if snapshot_at is None:
        return set()
    want = {int(s) for s in np.asarray(snapshot_at).reshape(-1)}
    missing = sorted(want - {int(s) for s in eval_at})
    if missing:
        raise ValueError(f"snapshot_at must be evaluation steps; not evaluated: {missing[:5]}")
    return want


def _on_host(values: list) -> list:
    """A copy of ``values`` with its tensor entries (scalars a batched evaluation left on the device) as Python
    floats, fetched in one transfer; a list without tensors is copied as it is."""
    out = list(values)
    at = [i for i, v in enumerate(out) if isinstance(v, torch.Tensor)]
    if at:
        fetched = torch.stack([out[i].detach().reshape(()).to(torch.float64) for i in at]).tolist()
        for i, v in zip(at, fetched):
            out[i] = v
    return out


def _finish_history(hist: dict) -> dict:
    """The history as numpy arrays; with snapshots, ``snapshot_step`` (n,) and ``snapshots``
    {parameter name: array (n, *shape)}."""
    snaps = hist.pop(SNAPSHOTS, None)
    out = {k: np.asarray(_on_host(v)) for k, v in hist.items()}
    if snaps is not None:
        out["snapshot_step"] = np.asarray([s for s, _ in snaps], dtype=int)
        names = list(snaps[0][1]) if snaps else []
        out["snapshots"] = {k: np.stack([d[k] for _, d in snaps]) for k in names}
    return out


def _history_state(hists: list[dict], extra: Callable[[], dict], restore: Callable[[dict], None]):
    """``(save, load)`` of the histories ``hists`` (their values as Python floats) and of what ``extra``
    returns, for :func:`fit`."""
    def save() -> dict:
        return {"hists": [{k: _on_host(v) for k, v in h.items()} for h in hists], **extra()}

    def load(s: dict) -> None:
        for h, saved in zip(hists, s["hists"]):
            for k, v in saved.items():
                h[k][:] = v
        restore(s)
    return save, load


def train(model: nn.Module, data: Split, cfg: TrainConfig,
          measures: Mapping[str, Callable[[nn.Module], float]] | None = None,
          grad_filter: GradFilter | None = None, eval_at: np.ndarray | None = None,
          snapshot_at: np.ndarray | None = None) -> dict:
    """Train a classifier with cross-entropy (:func:`companion.train.fit.fit`); return the
    history as numpy arrays.

    History keys: ``step``, ``train_loss``, ``train_acc``, ``test_loss``, ``test_acc`` and one
    per entry of ``measures`` (each a function of the model, evaluated at the same steps).
    ``grad_filter(params, state)`` may rewrite the gradients in place before each step
    (GrokFast); ``state`` is a dict it owns. Evaluation is at ``eval_at`` (default:
    :func:`log_steps`), after the update of that step; step 0 is the initial model. With
    ``snapshot_at`` (evaluation steps), the history also holds ``snapshot_step`` and ``snapshots``
    (every parameter at those steps, {name: array (n, *shape)}), for diagnostics run after the fact.
    On a GPU the run, its evaluations too, computes in ``cfg.precision`` (:func:`companion.train.precision.scope`).
    """
    measures = dict(measures or {})
    params = [p for p in model.parameters() if p.requires_grad]
    opt = optimizer_for(params, cfg)
    eval_at = log_steps(cfg.steps, cfg.n_evals) if eval_at is None else np.asarray(eval_at)
    snap = _snapshot_steps(snapshot_at, eval_at)
    hist: dict[str, list] = {k: [] for k in (*HISTORY, *measures, *([SNAPSHOTS] if snap else []))}
    g = torch.Generator().manual_seed(cfg.seed)
    n = len(data.train_y)
    reached: list = [None]

    def record(step: int) -> bool:
        return _stops(cfg, reached, step, _record_into(hist, model, data, step, cfg, measures, step in snap))

    def loss(step: int) -> torch.Tensor:
        if cfg.batch_size is None or cfg.batch_size >= n:
            x, y = data.train_x, data.train_y
        else:
            idx = torch.randint(n, (cfg.batch_size,), generator=g).to(data.train_x.device)
            x, y = data.train_x[idx], data.train_y[idx]
        return cross_entropy(model(x), y, cfg.loss_dtype)

    def restore(s: dict) -> None:
        g.set_state(s["gen"])
        reached[0] = s["reached"]

    state = _history_state([hist], lambda: {"gen": g.get_state(), "reached": reached[0]}, restore)
    with scope(cfg.precision, data.train_x.device):
        fit(params, opt, cfg.steps, evals=eval_at, record=record, loss=loss, grad_filter=grad_filter,
            warmup=cfg.warmup, state=state, static=cfg.batch_size is None or cfg.batch_size >= n)
    return _finish_history(hist)


def train_batched(models: list[nn.Module], datas: list[Split], cfg: TrainConfig,
                  measures: list[Mapping[str, Callable[[nn.Module], float]]] | None = None,
                  eval_at: np.ndarray | None = None, grad_filter: GradFilter | None = None,
                  snapshot_at: np.ndarray | None = None) -> list[dict]:
    """:func:`train` for K models of one architecture at once, as one tensor program.

    Member k trains ``models[k]`` on ``datas[k]`` (the training sets must have equal sizes; test
    sets may differ) with its own ``measures[k]``; the result is K histories, each what
    :func:`train` returns for that member alone (up to floating-point summation order). The
    parameters are stacked and the forward ``vmap``-ed (:mod:`companion.train.ensemble`); AdamW,
    Adam and SGD are elementwise, so one optimizer over the stacks is K independent ones.
    Evaluation runs per member on a module holding its parameters (on a CPU), or, on a GPU
    (:func:`batched_evaluation`), for all members at once from the stacks, with its values kept on the device
    until the history is saved or returned: per-member evaluation waits on the device for every value, and
    these waits dominated a batch's run. Test sets of different sizes then take one forward per member;
    ``stop_after_test_acc`` reads the K test accuracies in one transfer per evaluation; a member's module is
    refreshed only to be measured or snapshotted, and at its last record. Either way each module ends holding
    its member's parameters at its last record. ``stop_after_test_acc``
    stops each member's history where :func:`train` would stop it (the batch trains until every
    member has stopped). Full batch only. ``grad_filter`` (as in :func:`train`) sees the stacked
    gradients (K, ...): a filter that is elementwise per parameter entry, such as GrokFast's EMA,
    is then K independent filters. ``snapshot_at``: as in :func:`train`.
    """
    K = len(models)
    if cfg.batch_size is not None and any(cfg.batch_size < len(d.train_y) for d in datas):
        raise ValueError("train_batched is full batch only")
    if len({len(d.train_y) for d in datas}) != 1:
        raise ValueError("train_batched needs training sets of one size")
    measures = [dict(m) for m in measures] if measures is not None else [{} for _ in range(K)]
    views = models  # member k is evaluated on models[k], refreshed from the stacks
    ens = Ensemble(models)
    params = ens.parameters()
    opt = optimizer_for(params, cfg)
    eval_at = log_steps(cfg.steps, cfg.n_evals) if eval_at is None else np.asarray(eval_at)
    X = torch.stack([d.train_x for d in datas])
    Y = torch.stack([d.train_y for d in datas])
    snap = _snapshot_steps(snapshot_at, eval_at)
    hists = [{k: [] for k in (*HISTORY, *measures[i], *([SNAPSHOTS] if snap else []))} for i in range(K)]
    reached: list[list] = [[None] for _ in range(K)]
    done = [False] * K

    @torch.no_grad()
    def refresh(k: int) -> None:
        for (name, p) in views[k].named_parameters():
            p.copy_(ens.params[name][k])

    def record_per_member(step: int) -> bool:
        for k in range(K):
            if done[k]:
                continue
            refresh(k)
            tea = _record_into(hists[k], views[k], datas[k], step, cfg, measures[k], step in snap)
            done[k] = _stops(cfg, reached[k], step, tea)
        return all(done)

    record = record_per_member
    if batched_evaluation(params):
        record = _batched_record(ens, datas, X, Y, cfg, hists, measures, views, refresh, snap, reached, done,
                                 last=max((int(s) for s in eval_at if s <= cfg.steps), default=-1))

    def loss(step: int) -> torch.Tensor:
        return ensemble_loss(ens.forward(X), Y, getattr(torch, cfg.loss_dtype))

    def restore(s: dict) -> None:
        for r, v in zip(reached, s["reached"]):
            r[0] = v
        done[:] = s["done"]

    state = _history_state(hists, lambda: {"reached": [r[0] for r in reached], "done": list(done)}, restore)
    with scope(cfg.precision, X.device):
        fit(params, opt, cfg.steps, evals=eval_at, record=record, loss=loss, grad_filter=grad_filter,
            warmup=cfg.warmup, state=state, static=True)
    return [_finish_history(h) for h in hists]


def _batched_record(ens: Ensemble, datas: list[Split], X: torch.Tensor, Y: torch.Tensor, cfg: TrainConfig,
                    hists: list[dict], measures: list[dict], views: list[nn.Module], refresh: Callable[[int], None],
                    snap: set, reached: list[list], done: list[bool], last: int) -> Callable[[int], bool]:
    """:func:`train_batched`'s ``record`` that evaluates all members at once (:func:`batched_evaluation`):
    losses and accuracies stay 0-d tensors on the device in the histories; the test accuracies come to the host
    only for ``stop_after_test_acc``, in one transfer. ``last``: the last evaluation step."""
    dtype = getattr(torch, cfg.loss_dtype)
    if len({len(d.test_y) for d in datas}) == 1:
        Xt, Yt = torch.stack([d.test_x for d in datas]), torch.stack([d.test_y for d in datas])
    else:  # test sets of different sizes: one forward per member
        Xt, Yt = [d.test_x for d in datas], [d.test_y for d in datas]

    def record(step: int) -> bool:
        trl, tra = ensemble_evaluate(ens, X, Y, dtype)
        tel, tea = ensemble_evaluate(ens, Xt, Yt, dtype)
        live = [k for k in range(len(hists)) if not done[k]]
        for k, row in enumerate(zip(trl.unbind(), tra.unbind(), tel.unbind(), tea.unbind())):
            if k in live:
                for key, v in zip(HISTORY, (step, *row)):
                    hists[k][key].append(v)
        if cfg.stop_after_test_acc is not None:  # the rule decides on the host: one transfer for the batch
            acc = tea.tolist()
            for k in live:
                done[k] = _stops(cfg, reached[k], step, acc[k])
        for k in live:  # a member's module: to be measured, snapshotted, or left holding its last record
            if measures[k] or step in snap or done[k] or step == last:
                refresh(k)
                views[k].train()  # as per-member evaluation leaves it for its measures
                _measure_into(hists[k], views[k], step, measures[k], step in snap, keep_tensors=True)
        return all(done)
    return record
