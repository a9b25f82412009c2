"""A batch of seeds evaluated all at once (companion.train.trainer.batched_evaluation) records what member-by-member
evaluation records.

On a GPU :func:`~companion.train.trainer.train_batched` evaluates its K members from the stacked parameters, the
values left on the device; on a CPU it evaluates member by member (the book's numbers). Forced on here, on a CPU,
the batched path must give every member the history the per-member path gives it: the same keys and lengths
(members stopping at different steps included), losses within rounding and accuracies exactly, with test sets of
one size (stacked) or of several (one forward per member), and through a checkpoint.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np
import pytest
import torch

from companion.data.modular import modular_arithmetic
from companion.models.transformer import Transformer, TransformerConfig
from companion.store import cache, slices
from companion.train import TrainConfig, evaluate, every, weight_norm
from companion.train.ensemble import Ensemble, ensemble_evaluate
from companion.train.trainer import _history_state, batched_evaluation, train_batched

MODEL = TransformerConfig(p=7, d_model=8, n_heads=2, d_mlp=16)
TRAIN = TrainConfig(steps=300, lr=1e-2, weight_decay=1.0)
EVAL_AT = every(10, 300)
#: seeds 0, 1, 2 first reach 15% test accuracy at steps 20, 70 and never (after step 0): with this rule they
#: stop at steps 30, 90 and 300
STOP = replace(TRAIN, stop_after_test_acc=0.15)


@pytest.fixture(autouse=True)
def one_thread_and_no_session(monkeypatch):
    monkeypatch.delenv("COMPANION_BATCHED_EVAL", raising=False)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    slices.configure()
    yield
    slices.configure()
    torch.set_num_threads(threads)


def members(test_sizes: tuple[int, ...] | None = None, device: str = "cpu"):
    """Three seeds, each on its own split (test sets cut to ``test_sizes``)."""
    datas = [modular_arithmetic(7, "add", 0.6, s).to(device) for s in range(3)]
    if test_sizes is not None:
        datas = [replace(d, test_x=d.test_x[:n], test_y=d.test_y[:n]) for d, n in zip(datas, test_sizes)]
    return [Transformer(MODEL, seed=s).to(device) for s in range(3)], datas


def squared_norm(m) -> torch.Tensor:
    """A measure that returns a tensor (the batched path keeps it one until the end)."""
    return sum((p.detach().double() ** 2).sum() for p in m.parameters())


def run(monkeypatch, at_once: bool, cfg: TrainConfig, test_sizes=None, measured: bool = False, device: str = "cpu"):
    monkeypatch.setenv("COMPANION_BATCHED_EVAL", "1" if at_once else "0")
    models, datas = members(test_sizes, device)
    measures = [{"weight_norm": weight_norm, "squared_norm": squared_norm} if measured and k != 1 else {}
                for k in range(3)]  # member 1 unmeasured: its module is refreshed only where it must be
    hists = train_batched(models, datas, cfg, measures=measures, eval_at=EVAL_AT, snapshot_at=[0, 20, 40])
    return hists, models


def assert_same_histories(batched: list[dict], per_member: list[dict]) -> None:
    assert len(batched) == len(per_member)
    for b, p in zip(batched, per_member):
        assert b.keys() == p.keys()
        for key in p:
            if key == "snapshots":
                assert b[key].keys() == p[key].keys()
                for name in p[key]:
                    np.testing.assert_array_equal(b[key][name], p[key][name])
                continue
            assert b[key].shape == p[key].shape and b[key].dtype == p[key].dtype, key
            if key.endswith("loss") or key.endswith("norm"):
                np.testing.assert_allclose(b[key], p[key], rtol=1e-6, err_msg=key)
            else:
                np.testing.assert_array_equal(b[key], p[key], err_msg=key)


def test_the_switch_is_off_on_a_cpu_and_the_variable_forces_it(monkeypatch):
    cpu = [torch.zeros(2)]
    assert not batched_evaluation(cpu)
    monkeypatch.setenv("COMPANION_BATCHED_EVAL", "1")
    assert batched_evaluation(cpu)
    monkeypatch.setenv("COMPANION_BATCHED_EVAL", "0")
    assert not batched_evaluation(cpu)
    if torch.cuda.is_available():
        gpu = [torch.zeros(2, device="cuda")]
        assert not batched_evaluation(gpu)
        monkeypatch.delenv("COMPANION_BATCHED_EVAL")
        assert batched_evaluation(gpu)


@pytest.mark.parametrize("test_sizes", [None, (20, 13, 7)])
def test_k_members_evaluated_at_once_are_k_single_evaluations(test_sizes):
    models, datas = members(test_sizes)
    ens = Ensemble(models)
    X, Y = torch.stack([d.train_x for d in datas]), torch.stack([d.train_y for d in datas])
    Xt = torch.stack([d.test_x for d in datas]) if test_sizes is None else [d.test_x for d in datas]
    Yt = torch.stack([d.test_y for d in datas]) if test_sizes is None else [d.test_y for d in datas]
    for dtype in ("float64", "float32"):
        trl, tra = ensemble_evaluate(ens, X, Y, getattr(torch, dtype))
        tel, tea = ensemble_evaluate(ens, Xt, Yt, getattr(torch, dtype))
        assert trl.dtype == getattr(torch, dtype) and trl.shape == tea.shape == (3,)
        for k, (m, d) in enumerate(zip(models, datas)):
            (l0, a0), (l1, a1) = evaluate(m, d.train_x, d.train_y, dtype), evaluate(m, d.test_x, d.test_y, dtype)
            assert trl[k].item() == pytest.approx(l0, rel=1e-6) and tel[k].item() == pytest.approx(l1, rel=1e-6)
            assert tra[k].item() == a0 and tea[k].item() == a1
        assert len(set(trl.tolist())) == 3  # the members differ: a mix-up would show
    assert ens.base.training  # evaluation mode only for the evaluation


@pytest.mark.parametrize("cfg", [TRAIN, STOP], ids=["to the end", "stopping"])
@pytest.mark.parametrize("test_sizes", [None, (20, 13, 7)], ids=["stacked", "per member"])
def test_batched_evaluation_records_the_per_member_histories(monkeypatch, cfg, test_sizes):
    batched, models_b = run(monkeypatch, True, cfg, test_sizes, measured=True)
    per_member, models_p = run(monkeypatch, False, cfg, test_sizes, measured=True)
    assert_same_histories(batched, per_member)
    if cfg is STOP:
        assert [h["step"][-1] for h in batched] == [30, 90, 300]
    for mb, mp in zip(models_b, models_p):  # each module holds its member's parameters at its last record
        for (name, pb), (_, pp) in zip(mb.named_parameters(), mp.named_parameters()):
            assert torch.equal(pb, pp), name
    assert len({h["test_loss"][-1] for h in batched}) == 3


def test_a_history_of_device_values_is_saved_as_python_floats():
    hist = {"step": [0, 10], "train_loss": [torch.tensor(0.5, dtype=torch.float64), 0.25],
            "test_acc": [torch.tensor([0.75, 0.5]).unbind()[0], torch.tensor(0.125)], "measure": [1.5, 2.0]}
    restored = {k: [] for k in hist}
    save, load = _history_state([hist], lambda: {"extra": 1}, lambda s: None)
    saved = save()
    assert saved["extra"] == 1
    assert saved["hists"] == [{"step": [0, 10], "train_loss": [0.5, 0.25], "test_acc": [0.75, 0.125],
                               "measure": [1.5, 2.0]}]
    assert all(type(v) in (int, float) for vs in saved["hists"][0].values() for v in vs)
    assert isinstance(hist["train_loss"][0], torch.Tensor)  # the live history keeps its tensors
    save2, load2 = _history_state([restored], dict, lambda s: None)
    load2(saved)
    assert restored == saved["hists"][0]


@dataclass(frozen=True)
class TinyBatch:
    steps: int = 400
    stop: float | None = 0.15
    test_sizes: tuple[int, ...] | None = None


@cache.experiment
def tiny_batch(cfg: TinyBatch, device: str = "cpu") -> list[dict]:
    """Three seeds trained as one batch, evaluated all at once (the caller forces the switch)."""
    models, datas = members(cfg.test_sizes)
    tc = replace(TRAIN, steps=cfg.steps, stop_after_test_acc=cfg.stop)
    measures = [{"squared_norm": squared_norm}, {}, {"weight_norm": weight_norm}]
    return train_batched(models, datas, tc, measures=measures, eval_at=every(10, cfg.steps))


@pytest.mark.parametrize("cfg", [TinyBatch(), TinyBatch(stop=None, test_sizes=(20, 13, 7))],
                         ids=["stacked, stopping", "per member"])
def test_a_batch_evaluated_at_once_resumes_from_its_checkpoints_bit_for_bit(isolated, monkeypatch, cfg):
    """Interrupted at deadlines, the batch checkpoints its histories (device values saved as floats) and the
    stopping rule's state, and the resumed run ends with the uninterrupted run's histories exactly."""
    monkeypatch.setenv("COMPANION_BATCHED_EVAL", "1")
    reference = tiny_batch.__wrapped__(cfg, "cpu")
    for n in range(1, 200):
        slices.configure(deadline=time.time() + 0.3)
        try:
            out = tiny_batch(cfg, "cpu")
            break
        except slices.TimeUp:
            continue
        finally:
            slices.configure()
    assert n >= 3, "the slices were too long to test resuming"
    if cfg.stop is not None:  # the members stop at different steps, some of them in an earlier slice
        assert [h["step"][-1] for h in reference] == [30, 90, 400]
    for a, b in zip(reference, out):
        assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
@pytest.mark.parametrize("cfg", [TRAIN, STOP], ids=["to the end", "stopping"])
def test_on_the_gpu_a_batch_evaluated_at_once_records_the_per_member_histories(monkeypatch, cfg):
    """Where the switch is on by default: the same histories as member-by-member evaluation on the device (the
    training is the same program either way; the evaluations' reductions may round differently)."""
    batched, _ = run(monkeypatch, True, cfg, measured=True, device="cuda")
    per_member, _ = run(monkeypatch, False, cfg, measured=True, device="cuda")
    for b, p in zip(batched, per_member):
        assert b.keys() == p.keys()
        np.testing.assert_array_equal(b["step"], p["step"])
        for key in ("train_loss", "test_loss", "train_acc", "test_acc", "weight_norm", "squared_norm"):
            if key in p:
                np.testing.assert_allclose(b[key], p[key], rtol=1e-5, atol=1e-6, err_msg=key)
