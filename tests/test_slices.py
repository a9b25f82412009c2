"""Runs in slices: probes, the time limit, checkpoints and resuming (companion.store.slices,
companion.pipeline.runs)."""

import re
import time
from dataclasses import dataclass, replace

import numpy as np
import pytest
import torch
from conftest import companion

from companion.experiments import grokking
from companion.store import cache, entries, slices


@pytest.fixture(autouse=True)
def one_thread_and_no_session():
    torch.set_num_threads(1)
    slices.configure()
    yield
    slices.configure()


def tiny_run(steps: int = 400):
    cfg = grokking.config("fig1", "smoke")
    return replace(cfg, train=replace(cfg.train, steps=steps, n_evals=25))


def same_history(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def run_in_slices(fn, cfg, seconds: float) -> tuple[dict, int]:
    """Call ``fn(cfg)`` under a deadline ``seconds`` away until it finishes; (result, slices)."""
    for n in range(1, 200):
        slices.configure(deadline=time.time() + seconds)
        try:
            return fn(cfg, "cpu"), n
        except slices.TimeUp:
            continue
        finally:
            slices.configure()
    raise AssertionError("never finished")


def test_a_time_limited_run_resumes_bit_for_bit(isolated):
    """The trainer checkpoints at the deadline (model, optimizer, scheduler, history, generator)
    and the next call continues: the history equals an uninterrupted run's exactly."""
    cfg = tiny_run()
    reference = grokking.training_run.__wrapped__(cfg, "cpu")
    out, n = run_in_slices(grokking.training_run, cfg, 0.3)
    assert n >= 3, "the slices were too long to test resuming"
    assert same_history(reference, out)
    assert slices.pending_checkpoints(entries.key(grokking.training_run.experiment_name, cfg, "cpu")) == []


@dataclass(frozen=True)
class TwoPhase:
    steps: int = 300
    seed: int = 0


@cache.experiment
def two_phase(cfg: TwoPhase, device: str = "cpu") -> dict:
    """Two training loops in one experiment (like a weak model, then a target on it)."""
    from companion.data.modular import modular_arithmetic
    from companion.models.transformer import Transformer
    from companion.train import train

    g = grokking.config("fig1", "smoke")
    data = modular_arithmetic(g.p, "add", g.train_frac, cfg.seed)
    out = {}
    for phase in (0, 1):
        model = Transformer(g.model, seed=cfg.seed + phase)
        h = train(model, data, replace(g.train, steps=cfg.steps, n_evals=20))
        out[f"test_acc{phase}"] = h["test_acc"]
    return out


def test_an_experiment_with_two_loops_skips_the_finished_one_when_resumed(isolated):
    """When the deadline falls in the second loop, the first loop is checkpointed as done, so the
    resumed experiment restores it instead of training it again; the result is unchanged."""
    reference = two_phase.__wrapped__(TwoPhase(), "cpu")
    k = entries.key(two_phase.experiment_name, TwoPhase(), "cpu")
    states = []
    for _ in range(200):
        slices.configure(deadline=time.time() + 0.25)
        try:
            out = two_phase(TwoPhase(), "cpu")
            break
        except slices.TimeUp:
            states.append({p.name.rsplit("-", 1)[-1]: torch.load(p, weights_only=False)["done"]
                           for p in slices.pending_checkpoints(k)})
        finally:
            slices.configure()
    assert same_history(reference, out)
    in_second = [s for s in states if "loop1.ckpt" in s]
    assert in_second and all(s == {"loop0.ckpt": True, "loop1.ckpt": False} for s in in_second)


@dataclass(frozen=True)
class PoppedHistory:
    steps: int = 3000


@cache.experiment
def popped_history(cfg: PoppedHistory, device: str = "cpu") -> dict:
    """Two loops whose caller reshapes each history once its loop returns (pops a key, as the trainers that
    stack their histories do)."""
    from companion.train.history import history_state

    out = {}
    for phase in range(2):
        w = torch.zeros(3, dtype=torch.float64)
        hist = {"step": [], "w": []}
        save, load = history_state(hist)

        def save_all(hist=hist, w=w, save=save):
            return {"h": save(), "w": w.clone()}

        def load_all(s, w=w, load=load):
            load(s["h"])
            w.copy_(s["w"])

        for t in slices.steps(cfg.steps, save=save_all, load=load_all):
            w.add_(torch.sin(torch.arange(3.0, dtype=torch.float64) + t + phase))
            time.sleep(0.0002)
            if t % 100 == 0:
                hist["step"].append(t)
                hist["w"].append(w.clone())
        out[f"step{phase}"] = np.asarray(hist.pop("step"))  # the history reshaped after its loop
        out[f"w{phase}"] = torch.stack(hist["w"]).numpy()
    return out


def test_a_loop_that_ended_is_saved_as_it_ended_even_if_its_caller_then_reshapes_its_history(isolated):
    """The deadline falls in the second loop after the first one's caller popped a key of its history: the
    first loop's checkpoint must still hold that key (it is copied when the loop ends, not at the deadline),
    so the resumed experiment equals an uninterrupted one (it used to lose the key and fail or drop it)."""
    reference = popped_history.__wrapped__(PoppedHistory(), "cpu")
    out, n = run_in_slices(popped_history, PoppedHistory(), 0.5)
    assert n >= 3, "the slices were too long to test resuming"
    assert same_history(reference, out)


def test_a_loop_without_a_checkpoint_restarts_but_still_stops_at_the_deadline():
    seen = []
    slices.configure(deadline=time.time() - 1)
    with pytest.raises(slices.TimeUp, match="keeps no checkpoint"):
        for t in slices.steps(10):
            seen.append(t)
    assert seen == []


def test_probe_times_plain_and_evaluation_steps_separately():
    """A loop whose evaluation steps cost 20× a plain step: the estimate counts each kind."""
    slices.configure(probe=True, probe_seconds=0.2)
    frame = slices.Frame("f", "k" * 64)
    slices.FRAMES.append(frame)
    evals = set(range(0, 10_001, 100))
    try:
        for t in slices.steps(10_001, evals=evals):
            time.sleep(0.02 if t in evals else 0.001)
    finally:
        slices.FRAMES.pop()
    (rec,) = frame.loops
    assert rec.n_steps == 10_001 and rec.n_evals == len(evals)
    assert 0.0008 < rec.t_step < 0.004 and 0.015 < rec.t_eval < 0.05
    expected = 9_900 * 0.001 + 101 * 0.02
    assert 0.7 * expected < rec.estimate < 2.0 * expected


@cache.experiment
def nests_two_phase(cfg: TwoPhase, device: str = "cpu") -> dict:
    """An experiment that computes another one inside it (a comparison and its target batches)."""
    return {"inner": two_phase(cfg, device)}


def test_a_probe_counts_an_experiment_once_and_calls_a_repeat_probed_before(isolated):
    """``companion run --dry-run``: an experiment probed inside an earlier task and called again at the
    top level is "probed before" (its time is the earlier task's), not a failed probe."""
    from companion.pipeline import runs
    from companion.store.tasks import Task

    cfg = TwoPhase(steps=50)
    tasks = [Task("demo", f.experiment_name, cfg, "cpu", entries.key(f.experiment_name, cfg, "cpu"))
             for f in (nests_two_phase, two_phase)]
    outer, repeat = runs.dry_run(tasks, verbose=False)
    assert outer["status"] == "probed" and outer["estimate_s"] > 0
    assert repeat["status"] == "probed before" and repeat["estimate_s"] == 0.0 and repeat["error"] is None
    assert "failed" not in runs.summary([outer, repeat])


@pytest.mark.slow
def test_dry_run_lists_every_experiment_with_an_estimate_and_caches_nothing(tmp_path):
    env = {"COMPANION_CACHE_DIR": str(tmp_path / "cache")}
    proc = companion("run", "grokking", "progress_measures", "--profile", "smoke", "--dry-run", env=env)
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if "probed" in line]
    assert len(rows) > 10 and "total:" in proc.stdout
    assert all(" GPU " in r for r in rows if "probed before" not in r)  # each modelled from its counts
    assert "on a GPU, modelled from the counts" in proc.stdout
    assert not list((tmp_path / "cache").rglob("*.pkl"))


@pytest.mark.slow
def test_time_limit_stops_cleanly_and_a_second_call_continues(tmp_path):
    """A run stopped by --time-limit exits 3 with its finished experiments cached and the running
    one checkpointed; the next call finishes the rest (exit 0) without recomputing."""
    env = {"COMPANION_CACHE_DIR": str(tmp_path / "cache")}
    first = companion("run", "progress_measures", "--profile", "smoke", "--time-limit", "2", env=env)
    assert first.returncode == 3, first.stdout + first.stderr
    assert "left for the next run" in first.stdout
    # what the first call finished, in tasks (a batch of runs is one task however many entries it writes)
    done = int(re.search(r"\[run\] (\d+) experiment\(s\) computed", first.stdout).group(1))
    rest = None
    for _ in range(20):
        rest = companion("run", "progress_measures", "--profile", "smoke", "--time-limit", "30", env=env)
        if rest.returncode != 3:
            break
    assert rest.returncode == 0, rest.stdout + rest.stderr
    assert f"{done} done before" in rest.stdout
    assert not list((tmp_path / "cache" / "checkpoints").glob("*.ckpt"))


@pytest.mark.slow
def test_parallel_workers_compute_each_experiment_once(tmp_path):
    env = {"COMPANION_CACHE_DIR": str(tmp_path / "cache")}
    proc = companion("run", "grokking", "progress_measures", "--profile", "smoke", "--jobs", "2", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    again = companion("run", "grokking", "progress_measures", "--profile", "smoke", env=env)
    assert " 0 experiment(s) computed" in again.stdout.replace("[run]", "")


@pytest.mark.parametrize("profile", ["smoke", "cpu", "paper"])
def test_every_chapter_plans_its_experiments_without_running_them(profile, isolated):
    """`companion run` and runs.precompute list a chapter's experiments from its run_all with every
    experiment returning nothing: no chapter may read a result while planning."""
    from companion.experiments import CHAPTERS
    from companion.pipeline import runs

    n = len(cache.computed)
    for chapter in CHAPTERS:
        assert runs.plan(chapter, profile, "cpu"), chapter
    assert len(cache.computed) == n and not list(isolated.rglob("*.pkl"))


@pytest.mark.slow
def test_a_chapter_precomputed_by_worker_processes_gets_the_numbers_it_computes_itself(tmp_path, monkeypatch):
    """runs.precompute (a chapter built alone on several cores): every experiment computed in
    one-thread workers is bit for bit what the chapter's own process computes; nothing is done
    again once cached, and nothing at all at smoke or with one worker."""
    from companion import profiles
    from companion.pipeline import runs

    ctx = profiles.RunContext("cpu", "cpu", 0, 1, torch.__version__)
    tasks = runs.plan("grokking", "smoke", "cpu")  # the smoke runs, as if they were a chapter's at cpu
    monkeypatch.setattr(runs, "plan", lambda chapter, profile, device, seed=0: tasks)
    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path / "workers"))
    monkeypatch.setenv("COMPANION_THREADS", "1")
    done = runs.precompute("grokking", ctx, workers=2)
    assert done.precomputed.startswith(f"{len(tasks)} of its {len(tasks)} experiments computed first by 2 worker")
    assert "experiments computed first" in done.describe()
    assert runs.precompute("grokking", ctx, workers=2) == ctx  # all cached: no workers started
    assert runs.precompute("grokking", replace(ctx, profile="smoke"), workers=2) == replace(ctx, profile="smoke")
    n = len(cache.computed)
    workers = [t.function()(t.config, t.device) for t in tasks]
    assert len(cache.computed) == n  # served from the cache the workers filled
    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path / "here"))
    assert runs.precompute("grokking", ctx, workers=1) == ctx
    here = [t.function()(t.config, t.device) for t in tasks]
    assert len(cache.computed) == n + len(tasks)

    def flat(x):
        if isinstance(x, dict):
            return [v for k in sorted(x, key=str) for v in flat(x[k])]
        return [v for y in x for v in flat(y)] if isinstance(x, (list, tuple)) else [np.asarray(x)]
    a, b = flat(workers), flat(here)
    assert len(a) == len(b) and all(np.array_equal(x, y, equal_nan=x.dtype.kind == "f") for x, y in zip(a, b))


@pytest.mark.slow
def test_a_loop_of_in_place_tensors_resumes_bit_for_bit(isolated):
    """Loops that update tensors in place and append records (slices.inplace_state), here Levi
    et al.'s two-layer students, resume from their checkpoints exactly."""
    from companion.experiments import linear_estimators as le

    cfg = replace(le.config("fig4", "smoke"), steps=3_000)
    reference = le.fig4.__wrapped__(cfg, "cpu")
    out, n = run_in_slices(le.fig4, cfg, 0.3)
    assert n >= 2

    def flat(x):
        return [v for k in sorted(x, key=str) for v in flat(x[k])] if isinstance(x, dict) else [np.asarray(x)]
    assert all(np.array_equal(a, b, equal_nan=a.dtype.kind == "f") for a, b in zip(flat(reference), flat(out)))


def test_a_dry_run_saves_each_estimate_as_it_goes_and_stops_at_its_deadline(isolated):
    """A GPU window's dry run has a share of the window: past its deadline it probes nothing more, and what it
    probed before is already in the estimates file (a dry run killed mid-way keeps its rates)."""
    import time

    from companion.pipeline import runs
    from companion.store.tasks import Task

    cfgs = [TwoPhase(steps=371 + i) for i in range(3)]  # steps no other test probes
    tasks = [Task("demo", two_phase.experiment_name, c, "cpu", entries.key(two_phase.experiment_name, c, "cpu"))
             for c in cfgs]
    (first,) = runs.dry_run(tasks[:1], verbose=False)
    assert runs.load_estimates() == {first["key"]: first["estimate_s"]}
    assert runs.dry_run(tasks[1:], verbose=False, deadline=time.time() - 1) == []
    assert set(runs.load_estimates()) == {first["key"]}
