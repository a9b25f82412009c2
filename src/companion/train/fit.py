"""The book's one training loop, :func:`fit`: every network of the book that is trained by
gradient steps is trained by it (single models, vmapped ensembles, hand-written batched nets).

A trainer call names what is trained (``params``), the objective (``loss(t)``, or an analytic
``gradient(t)``), the optimizer (:func:`companion.train.optim.make_optimizer`), the number of
steps, the evaluation schedule (:func:`log_steps` or :func:`every`) and what to record there.
:func:`fit` owns everything in between: zeroing and computing gradients, an optional gradient
filter (GrokFast, :mod:`companion.train.grokfast`), the optimizer step with a linear warmup,
stopping, and the checkpoints that let an interrupted run resume
(:func:`companion.store.slices.steps`).

Convention: ``record(t)`` sees the parameters after ``t`` updates (``t = 0`` is the
initialisation), for every ``t`` of the schedule including ``steps``; returning ``True`` stops
training there.

What is *not* trained by :func:`fit` is not "training a network" by gradient steps: the exact
closure of Kumar et al. (:mod:`companion.theory.lazy_rich`) and their lazy limit as kernel GD in
function space (:func:`companion.measures.ntk.kernel_gd`), the eigenbasis solution of GD of
Levi et al. (:class:`companion.theory.linear_estimators.LinearGD`) and the ODE of Gu et al.
App. C (:mod:`companion.theory.progress_measures`).
"""

from __future__ import annotations

import contextlib
import math
from typing import Callable, Collection, Sequence

import numpy as np
import torch

from companion.store import slices
from companion.train import graph

GradFilter = Callable[[list[torch.Tensor], dict], None]


def log_steps(total: int, n: int) -> np.ndarray:
    """About ``n`` distinct integer steps in [0, total], log-spaced, always with 0 and total."""
    if total <= 0:
        return np.array([0])
    s = np.unique(np.round(np.logspace(0, math.log10(total), n)).astype(int))
    return np.unique(np.concatenate([[0], s, [total]]))


def every(k: int, total: int) -> np.ndarray:
    """Steps 0, k, 2k, … and ``total``."""
    return np.unique(np.concatenate([np.arange(0, total + 1, k), [total]]))


def warmup_factor(warmup: int) -> Callable[[int], float]:
    """The learning-rate factor of the k-th update (k = 0, 1, …): linear warmup over ``warmup``
    updates, min((k + 1)/warmup, 1); 1 without warmup."""
    return lambda k: min((k + 1) / warmup, 1.0) if warmup else 1.0


def fit(params: Sequence[torch.Tensor], optimizer, steps: int, *,
        evals: Collection[int], record: Callable[[int], bool | None],
        loss: Callable[[int], torch.Tensor] | None = None,
        gradient: Callable[[int], Sequence[torch.Tensor]] | None = None,
        grad_filter: GradFilter | None = None, warmup: int = 0,
        state: tuple[Callable[[], dict], Callable[[dict], None]] | None = None, static: bool = False) -> None:
    """Train ``params`` (leaf tensors, updated in place) for ``steps`` updates.

    ``loss(t)``: the scalar objective of update ``t`` (an ensemble's is the sum of its members'
    mean losses, so each member's gradient is its own); it may draw a mini-batch. Or
    ``gradient(t)``: the gradients themselves, for nets whose gradient is written out (they
    are checked against autograd in the tests). ``optimizer`` is a ``torch.optim`` optimizer or
    a :class:`~companion.train.optim.BatchedOptimizer` over ``params``. ``evals``: the steps at
    which ``record`` is called. ``state``: the caller's own ``(save, load)`` (its history, a
    mini-batch generator), checkpointed with the parameters and the optimizer. ``static``: ``loss(t)`` is the
    same full-batch objective of the same tensors at every ``t``, so on a GPU the step may be captured in a CUDA
    graph and replayed (:mod:`companion.train.graph`; the same numbers, without the host between kernels).
    """
    if (loss is None) == (gradient is None):
        raise ValueError("fit needs exactly one of loss and gradient")
    params = list(params)
    evals = set(int(s) for s in evals)
    factor = warmup_factor(warmup)
    batched = not isinstance(optimizer, torch.optim.Optimizer)
    sched = None if batched or not warmup else torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
    filter_state: dict = {}

    def save() -> dict:
        s = {"params": list(params), "opt": optimizer.state_dict(), "filter": filter_state,
             "sched": sched.state_dict() if sched is not None else None}
        if state is not None:
            s["caller"] = state[0]()
        return s

    def load(s: dict) -> None:
        with torch.no_grad():
            for p, v in zip(params, s["params"]):
                p.copy_(v)
        optimizer.load_state_dict(s["opt"])
        if sched is not None:
            sched.load_state_dict(s["sched"])
        filter_state.clear()
        filter_state.update(slices.to_device(s["filter"], params[0].device))
        if state is not None:
            state[1](s["caller"])

    use_graph = static and loss is not None and graph.capturable(params, optimizer, grad_filter)
    captured, eager_steps = None, 0
    for t in slices.steps(steps + 1, evals=evals, save=save, load=load):
        if t in evals and record(t):
            break
        if t == steps:
            break
        if use_graph and captured is None and eager_steps >= graph.WARM_STEPS:
            captured = graph.capture(optimizer, lambda: loss(t))
            use_graph = captured is not None
        if captured is not None:
            optimizer.scale.fill_(factor(t))
            captured.replay()
            optimizer.t += 1
            continue
        eager_steps += 1
        with graph.warm_stream(params[0].device) if use_graph else contextlib.nullcontext():
            _eager_step(params, optimizer, t, loss, gradient, grad_filter, filter_state, factor, batched, sched)


def _eager_step(params, optimizer, t, loss, gradient, grad_filter, filter_state, factor, batched, sched) -> None:
    """One update driven from the host: gradients, filter, optimizer step (with its warm-up factor)."""
    optimizer.zero_grad(set_to_none=True)
    if loss is not None:
        loss(t).backward()
    else:
        for p, g in zip(params, gradient(t)):
            p.grad = g
    if grad_filter is not None:
        grad_filter(params, filter_state)
    if batched:
        optimizer.step(factor(t))
    else:
        optimizer.step()
        if sched is not None:
            sched.step()
