"""Counting what a step computes (companion.store.opcount) and the GPU cost model built on the counts
(companion.pipeline.gpu_cost), checked against FLOPs written out by hand."""

import math

import pytest
import torch

from companion.pipeline import gpu_cost
from companion.store import opcount, slices


@pytest.fixture(autouse=True)
def no_session():
    slices.configure()
    yield
    slices.configure()


def test_a_matrix_product_counts_two_flops_per_multiply_add_and_one_call():
    a, b = torch.randn(7, 11), torch.randn(11, 5)
    with opcount.Counter() as c:
        a @ b
    assert c.count.flops == 2 * 7 * 11 * 5
    assert c.count.ops == 1
    with opcount.Counter() as c:
        torch.relu(a) + 1.0  # elementwise: operator calls, no FLOPs counted
    assert c.count == opcount.Count(0, 2)


def test_a_probe_counts_one_plain_and_one_evaluation_iteration_and_scales_them_to_the_loop():
    """Plain iterations run one (8×16)(16×4) product, evaluation iterations two; the loop's total is
    n_plain · 2·8·16·4 + n_eval · 2 · 2·8·16·4, and the counted iterations are not the timed ones."""
    x, w = torch.randn(8, 16), torch.randn(16, 4)
    one = 2 * 8 * 16 * 4
    slices.configure(probe=True, count=True, probe_seconds=0.0, probe_min_steps=3)
    frame = slices.Frame("f", "k" * 64)
    slices.FRAMES.append(frame)
    evals = set(range(0, 1_001, 50))
    try:
        for t in slices.steps(1_001, evals=evals):
            x @ w
            if t in evals:
                x @ w
    finally:
        slices.FRAMES.pop()
    (rec,) = frame.loops
    assert rec.step == opcount.Count(one, 1) and rec.eval == opcount.Count(2 * one, 2)
    assert rec.total("flops") == (1_001 - len(evals)) * one + len(evals) * 2 * one
    assert rec.total("ops") == (1_001 - len(evals)) + 2 * len(evals)


def test_without_count_a_probe_counts_nothing():
    slices.configure(probe=True, probe_seconds=0.0)
    frame = slices.Frame("f", "k" * 64)
    slices.FRAMES.append(frame)
    try:
        for _ in slices.steps(100):
            pass
    finally:
        slices.FRAMES.pop()
    assert frame.loops[0].step is None and frame.loops[0].total("flops") is None


CAL = gpu_cost.Calibration(host_s=20e-6, graph_s=6e-6, kernel_s=1e-6, sustained_flops=1e12, peak_flops=1e13,
                           source="test")


def test_the_model_takes_the_slower_of_the_host_and_the_arithmetic_per_iteration():
    loop = dict(n_steps=101, n_evals=1, step_flops=10**9, step_ops=100, eval_flops=10**6, eval_ops=1000)
    got = gpu_cost.loop_seconds(loop, CAL)
    # plain: 100 ops · 20 µs = 2 ms against 1 GFLOP / 1 TFLOP/s = 1 ms → host-bound, 2 ms
    # evaluation: 1000 ops · 20 µs = 20 ms
    assert math.isclose(got["eager"], 100 * 2e-3 + 20e-3)
    # captured: plain 100 · 6 µs = 0.6 ms < 1 ms → arithmetic-bound; evaluation 6 ms
    assert math.isclose(got["captured"], 100 * 1e-3 + 6e-3)
    # limit: plain max(0.1 ms, 0.1 ms); evaluation max(1 ms, 0.1 µs)
    assert math.isclose(got["limit"], 100 * 1e-4 + 1e-3)


def test_an_experiment_adds_its_nested_loops_and_host_work_and_is_unknown_where_a_loop_was_not_counted():
    counted = dict(n_steps=11, n_evals=1, step_flops=0, step_ops=50, eval_flops=0, eval_ops=50)
    row = {"overhead": 0.5, "loops": [counted], "nested_loops": [[counted, counted]]}
    got = gpu_cost.experiment_seconds(row, CAL)
    assert math.isclose(got["eager"], 0.5 + 3 * 11 * 50 * 20e-6)
    assert got["flops"] == 0
    timed_only = dict(n_steps=11, n_evals=1, t_step=0.1, t_eval=0.1)
    assert gpu_cost.experiment_seconds({"loops": [counted, timed_only]}, CAL) is None


def test_the_calibration_reads_a_window_and_divides_by_its_counted_step(tmp_path):
    f = tmp_path / "gpu_window.json"
    f.write_text('{"device": "X", "torch": "t", "eager_k1_ms": 10.0, "graph_k1_ms": 3.0, "eager_k1_ops": 500}')
    cal = gpu_cost.calibration(f)
    assert math.isclose(cal.host_s, 10e-3 / 500) and math.isclose(cal.graph_s, 3e-3 / 500)
    f.write_text('{"device": "X", "eager_k1_ms": 10.0, "graph_k1_ms": 3.0}')  # the step's operators not counted
    assert gpu_cost.calibration(f) is None
    assert gpu_cost.calibration(tmp_path / "missing.json") is None


def test_the_repository_window_calibrates_the_model():
    """The last window's record has what the model needs (the benchmark counts its step's operators)."""
    cal = gpu_cost.calibration()
    assert cal is not None and 1e-6 < cal.graph_s < cal.host_s < 1e-3


def test_a_count_only_probe_ends_a_loop_once_both_kinds_are_counted_and_timed():
    """A log-spaced schedule evaluates its first steps: the loop runs until its first plain step is counted and
    one more is timed, then ends (nothing cheap enough to fast-forward: the history is cut, the run marked so)."""
    from companion.train.fit import log_steps

    evals = set(int(s) for s in log_steps(50_000, 150))
    plains = [t for t in range(50_001) if t not in evals]
    first_plain, second_plain = plains[0], plains[1]
    slices.configure(probe=True, count=True, count_only=True, probe_ff_seconds=0.0)
    frame = slices.Frame("f", "k" * 64)
    slices.FRAMES.append(frame)
    seen = []
    try:
        for t in slices.steps(50_001, evals=evals):
            seen.append(t)
    finally:
        slices.FRAMES.pop()
    rec = frame.loops[0]
    assert rec.step is not None and rec.eval is not None
    assert seen[-1] == second_plain > first_plain  # the first plain step counted, the second timed
    assert len(seen) < 100 and slices.SESSION.truncated
