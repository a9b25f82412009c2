"""The step a CUDA graph captures (companion.train.graph) computes what the eager step computes.

On a CPU what can be shown is the graph-ready path itself: the warm-up factor read from the device tensor
``scale`` and the bias corrections from the device's step count, against the eager step's host numbers — the
same parameters, bit for bit, over a few hundred steps of every optimizer. On a GPU (skipped here) the captured
replay is held against eager training of the same batch.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from companion.train import graph
from companion.train.fit import warmup_factor
from companion.train.optim import BatchedOptimizer


def _problem(seed: int, members: int = 4):
    g = torch.Generator().manual_seed(seed)
    X, Y = torch.randn(members, 32, 6, generator=g), torch.randn(members, 32, 3, generator=g)
    W1, W2 = torch.randn(members, 6, 16, generator=g) / 3, torch.randn(members, 16, 3, generator=g) / 4

    def params():
        return [W1.clone().requires_grad_(True), W2.clone().requires_grad_(True)]

    def loss(ps):
        return ((torch.tanh(X @ ps[0]) @ ps[1] - Y) ** 2).mean((1, 2)).sum()
    return params, loss


@pytest.mark.parametrize("name,lr,wd,momentum", [
    ("adamw", [1e-2, 3e-3, 1e-3, 5e-2], [1.0, 0.1, 0.0, 0.5], 0.0),
    ("adamw", 1e-2, 0.3, 0.0),
    ("adam", 3e-3, 1e-2, 0.0),
    ("sgd", [0.1, 0.05, 0.2, 0.01], 1e-3, 0.9),
])
def test_the_graph_ready_step_is_the_eager_step_bit_for_bit(name, lr, wd, momentum):
    params, loss = _problem(0)
    factor = warmup_factor(25)
    a, b = params(), params()
    opt_a = BatchedOptimizer(a, name, lr, wd, momentum=momentum)
    opt_b = BatchedOptimizer(b, name, lr, wd, momentum=momentum)
    step_b = graph.graph_ready_step(opt_b, lambda: loss(b))
    for t in range(300):
        opt_a.zero_grad()
        loss(a).backward()
        opt_a.step(factor(t))
        opt_b.zero_grad()
        opt_b.scale.fill_(factor(t))
        step_b()
        opt_b.t += 1
    for x, y in zip(a, b):
        assert torch.equal(x, y)
    assert opt_a.t == opt_b.t == int(opt_b.t_device) == 300


def test_a_restored_optimizer_resumes_its_device_step_count():
    """A checkpoint restores the step count on the device too: the bias corrections of a resumed graph-ready
    step are those of the step it resumes at."""
    params, loss = _problem(1)
    a = params()
    opt = BatchedOptimizer(a, "adamw", 1e-2, 0.1)
    for _ in range(7):
        opt.zero_grad()
        loss(a).backward()
        opt.step()
    b = [p.detach().clone().requires_grad_(True) for p in a]
    again = BatchedOptimizer(b, "adamw", 1e-2, 0.1)
    again.load_state_dict(opt.state_dict())
    assert int(again.t_device) == again.t == 7
    opt.zero_grad()
    loss(a).backward()
    opt.step()
    again.zero_grad()
    graph.graph_ready_step(again, lambda: loss(b))()
    for x, y in zip(a, b):
        assert torch.equal(x, y)


def test_nothing_is_captured_on_a_cpu_or_when_turned_off(monkeypatch):
    params, _ = _problem(2)
    ps = params()
    opt = BatchedOptimizer(ps, "adamw", 1e-3)
    assert not graph.capturable(ps, opt, None)
    assert not graph.enabled(ps)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_training_replayed_from_a_graph_equals_eager_training_on_the_gpu(monkeypatch):
    """The same batch of transformers, the same device-resident optimizer and warm-up, trained by :func:`fit` with
    its step captured and replayed (``static=True``) and eagerly (``static=False``): the same losses at every
    evaluation up to rounding. Not bit for bit: on an H100 (2026-11-28) the losses first differed at step 5, by
    4e-9 relative — kernels chosen under capture, or the atomic adds of an embedding's backward, round
    differently — and Adam turns such differences into whole steps on coordinates whose gradient is rounding
    noise, so the parameters are not compared. A replay that missed an update (the warm-up factor, the step
    count, a moment) moves the loss by far more than 1e-5 of itself within 60 steps; CPU tests check the
    graph-ready step bit for bit."""
    from companion.data.modular import modular_arithmetic
    from companion.models.transformer import Transformer, TransformerConfig
    from companion.train.ensemble import Ensemble, ensemble_loss
    from companion.train.fit import fit

    monkeypatch.setenv("COMPANION_CUDA_GRAPHS", "1")
    data = modular_arithmetic(23, "add", 0.5, 0).to("cuda")
    x, y = data.train_x.expand(3, *data.train_x.shape), data.train_y.expand(3, *data.train_y.shape)
    out = {}
    for static in (False, True):
        ens = Ensemble([Transformer(TransformerConfig(p=23, d_model=32, d_mlp=128), seed=s).to("cuda")
                        for s in range(3)])
        params = ens.parameters()
        opt = BatchedOptimizer(params, "adamw", [1e-3, 3e-3, 1e-2], 1.0)
        losses = []

        def record(t, ens=ens, losses=losses):
            with torch.no_grad():
                losses.append(ensemble_loss(ens.forward(x), y, torch.float64).item())

        fit(params, opt, 60, evals={0, 5, 17, 40, 60}, record=record,
            loss=lambda t, ens=ens: ensemble_loss(ens.forward(x), y, torch.float64), warmup=10, static=static)
        out[static] = (losses, [p.detach().clone() for p in params])
    assert out[True][0][0] == out[False][0][0]  # before any update
    assert np.allclose(out[True][0], out[False][0], rtol=1e-5, atol=0)
