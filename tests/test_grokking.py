"""The shared modular task, transformer and training loop, checked by independent routes."""

import math

import numpy as np
import pytest
import torch

from companion.data.modular import OPERATIONS, modular_arithmetic, modular_table
from companion.events import first_crossing
from companion.experiments import grokking
from companion.models.transformer import Transformer, TransformerConfig
from companion.train import TrainConfig, log_steps, train


def polynomial(name: str, x: int, y: int) -> int:
    """Evaluate an operation named like ``x2+xy+y2`` (x² + xy + y²) with Python integers."""
    import re

    expr = re.sub(r"([xy])(\d)", r"\1**\2", name)
    expr = re.sub(r"(\d)([xy])", r"\1*\2", expr).replace("xy", "x*y")
    return eval(expr, {"x": x, "y": y})


@pytest.mark.parametrize("op", sorted(OPERATIONS))
def test_labels_match_python_integer_arithmetic(op):
    p = 7
    pairs, labels = modular_table(p, op)
    for (a, b), c in zip(pairs.tolist(), labels.tolist()):
        if op == "div":
            assert (c * b) % p == a  # c = a / b  ⇔  c·b = a (mod p)
        else:
            named = {"add": a + b, "sub": a - b, "mul": a * b}
            assert c == (named[op] if op in named else polynomial(op, a, b)) % p


def test_split_is_a_seeded_partition_of_all_pairs():
    d = modular_arithmetic(11, "add", 0.3, seed=1)
    assert d.n_train == round(0.3 * 121) and d.n_train + len(d.test_y) == 121
    both = torch.cat([d.train_x, d.test_x])
    assert len({tuple(r) for r in both.tolist()}) == 121  # disjoint and complete
    assert (both[:, 2] == 11).all()  # the "=" token
    again = modular_arithmetic(11, "add", 0.3, seed=1)
    assert torch.equal(again.train_x, d.train_x)
    assert not torch.equal(modular_arithmetic(11, "add", 0.3, seed=2).train_x, d.train_x)


def reference_forward(model: Transformer, tokens: torch.Tensor) -> torch.Tensor:
    """The same transformer written out with an explicit loop over heads and every position."""
    x = model.W_E[tokens] + model.W_pos[: tokens.shape[1]]
    T = tokens.shape[1]
    for blk in model.blocks:
        heads = []
        for h in range(model.cfg.n_heads):
            q, k, v = x @ blk.W_Q[h], x @ blk.W_K[h], x @ blk.W_V[h]
            s = q @ k.transpose(1, 2) / math.sqrt(model.cfg.d_head)
            s = s + torch.triu(torch.full((T, T), -1e30), 1)
            heads.append(torch.softmax(s, -1) @ v @ blk.W_O[h])
        x = x + sum(heads)
        x = x + torch.relu(x @ blk.W_in + blk.b_in) @ blk.W_out + blk.b_out
    return x[:, -1] @ model.W_U


@pytest.mark.parametrize("n_layers", [1, 2])
def test_transformer_matches_explicit_reference(n_layers):
    cfg = TransformerConfig(p=13, d_model=16, n_heads=2, d_mlp=32, n_layers=n_layers)
    model = Transformer(cfg, seed=3).double()
    tokens = modular_arithmetic(13, "add", 0.5, 0).train_x[:20]
    torch.testing.assert_close(model(tokens), reference_forward(model, tokens))


def test_initialisation_scales_follow_nanda():
    m = Transformer(TransformerConfig(p=113), seed=0)
    assert abs(m.W_E.std().item() - 1 / math.sqrt(128)) < 0.005
    assert abs(m.W_U.std().item() - 1 / math.sqrt(114)) < 0.005


def test_log_steps():
    s = log_steps(10_000, 50)
    assert s[0] == 0 and s[-1] == 10_000 and np.all(np.diff(s) > 0)
    assert 30 <= len(s) <= 52
    assert log_steps(0, 10).tolist() == [0]


def test_first_step():
    steps, acc = np.array([0, 10, 100]), np.array([0.1, 0.995, 1.0])
    assert first_crossing(steps, acc, 0.99) == 10 and first_crossing(steps, acc, 1.01, never=math.inf) == math.inf


def test_training_fits_a_small_table_and_is_deterministic():
    cfg = grokking.config("fig1", "smoke", seed=0)
    cfg = grokking.replace(cfg, train=grokking.replace(cfg.train, steps=60, n_evals=5))
    data = modular_arithmetic(cfg.p, "add", cfg.train_frac, 0)
    h1 = train(Transformer(cfg.model, seed=0), data, cfg.train)
    h2 = train(Transformer(cfg.model, seed=0), data, cfg.train)
    assert h1["train_loss"][-1] < h1["train_loss"][0]
    for k in h1:
        np.testing.assert_array_equal(h1[k], h2[k])


def test_adam_and_adamw_are_different_optimizers():
    cfg = TrainConfig(steps=5, n_evals=2, weight_decay=1.0, lr=1e-2)
    data = modular_arithmetic(7, "add", 0.5, 0)
    a = train(Transformer(TransformerConfig(p=7, d_model=8, n_heads=2, d_mlp=8), 0), data, cfg)
    b = train(Transformer(TransformerConfig(p=7, d_model=8, n_heads=2, d_mlp=8), 0), data,
              grokking.replace(cfg, optimizer="adam"))
    assert a["train_loss"][-1] != b["train_loss"][-1]
    with pytest.raises(ValueError, match="adamw, adam, sgd"):
        TrainConfig(optimizer="lion")


@pytest.mark.parametrize("op", ["add", "div"])
def test_symmetric_split_keeps_a_pair_and_its_mirror_on_one_side(op):
    sizes = set()
    for seed in range(3):
        d = modular_arithmetic(23, op, 0.6, seed, split="symmetric")
        train = set(map(tuple, d.train_x[:, :2].tolist()))
        test = set(map(tuple, d.test_x[:, :2].tolist()))
        assert not train & test and len(train) + len(test) == len(d.train_y) + len(d.test_y)
        assert not {(b, a) for a, b in test} & train  # no held-out pair's mirror is trained
        sizes.add(len(d.train_y))
    assert len(sizes) == 1  # every seed trains on as many pairs (one batch)
    with pytest.raises(ValueError, match="random, symmetric"):
        modular_arithmetic(23, op, 0.6, 0, split="mirror")


def test_the_controls_change_only_what_removes_the_effect():
    cfg = grokking.config("fig1", "cpu")
    no_delay, no_decay = (grokking.control_configs(cfg)[k] for k in (grokking.NO_DELAY, grokking.NO_DECAY))
    assert no_delay.train_frac == grokking.NO_DELAY_FRAC and no_delay.train.weight_decay == cfg.train.weight_decay
    assert no_decay.train.weight_decay == 0 and no_decay.train_frac == cfg.train_frac
    for c in (no_delay, no_decay):  # the same budget and model; they may only stop once generalised
        assert c.train.steps == cfg.train.steps and c.model == cfg.model and c.train.stop_after_test_acc == 0.99


def test_a_seed_trained_alone_has_the_bits_it_has_in_the_batch_of_seeds(isolated):
    """The chapter trains its first seed alone and the others as one batch; a worker may compute any of
    them alone: the histories must not depend on which (companion.train.train and train_batched)."""
    from dataclasses import replace

    from companion.experiments import grokking as ex

    cfg = ex.config("fig1", "cpu", 0)
    cfgs = ex.seed_configs(replace(cfg, train=replace(cfg.train, steps=40)))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as every process of a build (profiles.threads)
    try:
        alone = ex.training_run.__wrapped__(cfgs[1])
        batch = ex.training_runs(cfgs)[1]
    finally:
        torch.set_num_threads(threads)
    for key in ("train_loss", "test_loss", "test_acc", "weight_norm"):
        assert np.array_equal(alone[key], batch[key]), key


@pytest.mark.parametrize("seed", [0, 2])
def test_registry_run_all_plans_fig1_and_its_controls_at_every_seed(seed):
    """``run_all`` over the registry plans what it planned before it: Fig. 1's run and its two controls, each at
    :data:`~companion.experiments.grokking.N_SEEDS` seeds from the chapter's seed, in that order."""
    from dataclasses import replace

    from conftest import planned

    def before(profile, device, seed):
        cfg = replace(grokking.PROFILES[profile], seed=seed)
        for arm in (cfg, *grokking.control_configs(cfg).values()):
            for c in grokking.seed_configs(arm):
                grokking.training_run(c, device)

    assert planned(grokking.run_all, "smoke", "cpu", seed) == planned(before, "smoke", "cpu", seed)
    assert len(planned(grokking.run_all, "smoke", "cpu", seed)) == 3 * grokking.N_SEEDS
