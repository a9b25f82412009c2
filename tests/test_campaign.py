"""A GPU window's campaign: which paper claims each experiment decides, its order, what is left out."""

import json
import math

import pytest
from conftest import companion

from companion import runmode
from companion.pipeline import campaign
from companion.pipeline.runs import estimates_path
from companion.store.tasks import Task


@pytest.mark.parametrize("name, ref, hit", [
    ("fig1b", "Xu et al. Fig. 1b", True), ("fig1b", "Figs. 6a, 1b", True), ("fig1b", "Fig. 1", False),
    ("fig1b", "Fig. 11b", False), ("fig1", "Fig. 1 (right)", True), ("fig1", "Fig. 1b", False),
    ("fig13_left", "Fig. 13 (left)", True), ("eq9", "Kumar et al. Eq. 9", True), ("eq9", "Fig. 9", False),
    ("table1", "Table 1", True), ("fig6a", "Fig. 6b", False),
])
def test_a_registry_name_matches_its_paper_item_in_a_reference(name, ref, hit):
    assert bool(campaign.mentions(name).search(ref)) is hit


def test_claims_per_entry_counts_the_papers_claims_only():
    records = [{"paper_ref": "Fig. 1b", "kind": "paper"}, {"paper_ref": "Figs. 1b, 6a", "kind": "paper"},
               {"ref": "Fig. 1b", "kind": "check"}, {"ref": "Fig. 6a"}]
    assert campaign.claims_per_entry(["fig1b", "fig6a", "digits"], records) == {"fig1b": 2, "fig6a": 2, "digits": 0}


def _planned(key, claims, estimate, kept=False):
    return campaign.Planned(Task("c", "m.f", None, "cpu", key), ("fig1",), claims, estimate, kept)


def test_the_most_claims_per_second_first_unprobed_after_kept_left_out():
    ps = [_planned("a", 10, 100.0), _planned("b", 4, 10.0), _planned("c", 50, 1.0, kept=True),
          _planned("d", 3, math.nan), _planned("e", 7, math.nan), _planned("f", 0, 5.0)]
    assert [p.task.key for p in campaign.order(ps)] == ["b", "a", "f", "e", "d"]
    text = campaign.table(ps)
    assert "5 experiment(s) to run (1 kept already): 115 s estimated for 3, 2 never probed" in text


def test_a_campaign_plans_every_registry_entry_with_its_claims_and_estimates(tmp_path):
    claims = tmp_path / "claims"
    claims.mkdir()
    (claims / "grokking.json").write_text(json.dumps([{"id": "x", "paper_ref": "Fig. 1", "kind": "paper"},
                                                      {"id": "y", "paper_ref": "Fig. 2", "kind": "paper"}]))
    with runmode.using(cache_dir=tmp_path / "cache", results_dir=tmp_path / "results"):
        planned = campaign.plan(["grokking"], "smoke", "cpu", 0, claims)
        assert len(planned) == 9 and all(p.claims == 1 and not p.kept for p in planned)
        assert {p.entries[0] for p in planned} == {"fig1", "fig1_no_delay", "fig1_no_decay"}
        estimates_path().parent.mkdir(parents=True)
        estimates_path().write_text(json.dumps({planned[4].task.key: 2.0}))
        again = campaign.plan(["grokking"], "smoke", "cpu", 0, claims)
    assert campaign.order(again)[0].task.key == planned[4].task.key  # the one with an estimate comes first
    with pytest.raises(ValueError, match="registry"):
        campaign.plan(["synthesis"], "smoke", "cpu", 0, claims)


def test_an_unknown_order_is_one_line_naming_the_valid_ones():
    proc = companion("run", "grokking", "--profile", "smoke", "--order", "fastest")
    assert proc.returncode == 2 and "chapter" in proc.stderr and "value" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_a_campaign_runs_in_its_order_and_a_second_run_computes_nothing(tmp_path):
    env = {"COMPANION_CACHE_DIR": str(tmp_path / "cache"), "COMPANION_RESULTS_DIR": str(tmp_path / "results")}
    first = companion("run", "grokking", "--profile", "smoke", "--order", "value", env=env)
    assert first.returncode == 0, first.stderr
    assert "9 experiment(s) computed" in first.stdout
    second = companion("run", "grokking", "--profile", "smoke", "--order", "value", env=env)
    assert "0 experiment(s) computed" in second.stdout


def test_execute_keeps_a_campaigns_order_and_a_batch_where_its_first_member_stands(monkeypatch):
    from companion.pipeline import runs

    seen = []
    monkeypatch.setattr(runs, "run_task", lambda t, deadline, keep, need=0.0: seen.append(t.key) or {
        "chapter": t.chapter, "experiment": t.name, "status": "computed", "seconds": 0.0, "config": ""})
    monkeypatch.setattr(runs, "load_estimates", lambda: {"a": 1.0, "b": 500.0, "c": 50.0})
    tasks = [Task("grokking", "m.f", None, "cpu", k) for k in ("a", "b", "c")]
    runs.execute(tasks, "smoke", "cpu", 0, verbose=False, batch=False, ordered=True)
    assert seen == ["a", "b", "c"]
    seen.clear()
    runs.execute(tasks, "smoke", "cpu", 0, verbose=False, batch=False)  # by chapter, longest first
    assert seen == ["b", "c", "a"]


def test_a_campaign_on_a_gpu_starts_only_what_would_finish_before_its_deadline(monkeypatch):
    """Among shared workers a task takes longer than its one-process estimate: one whose estimate (times that
    slowdown) runs past the deadline, or that has no estimate, is not started, so its worker takes the next; on
    a CPU nothing changes."""
    import time

    from companion.pipeline import runs

    monkeypatch.setattr(runs, "load_estimates", lambda: {"short": 10.0, "long": 500.0})
    tasks = [Task("grokking", "m.f", None, "cuda", k) for k in ("long", "short", "unprobed")]
    needs = {}
    monkeypatch.setattr(runs, "run_task", lambda t, deadline, keep, need=0.0: needs.update({t.key: need}) or {
        "chapter": t.chapter, "experiment": t.name, "status": "computed", "seconds": 0.0, "config": ""})
    runs.execute(tasks, "paper", "cuda", 0, verbose=False, batch=False, ordered=True, deadline=time.time() + 300)
    assert needs == {"long": 500.0, "short": 10.0, "unprobed": float("inf")}  # one job: the estimate itself
    monkeypatch.undo()
    from companion.store import slices

    task = Task("grokking", "m.f", None, "cuda", "long")
    try:  # run_task sets this process's deadline: put it back, or every later loop in the session stops at once
        row = runs.run_task(task, deadline=time.time() + 300, keep=None, need=500.0)
        assert row["status"] == "not started" and "would not finish" in row["error"]
        row = runs.run_task(task, deadline=time.time() + 300, keep=None, need=float("inf"))
        assert row["status"] == "not started" and "never probed" in row["error"]
        cpu = runs.execute([Task("grokking", "m.f", None, "cpu", "x")], "smoke", "cpu", 0, verbose=False,
                           batch=False, ordered=True, deadline=time.time() - 1)
        assert cpu[0]["status"] == "not started" and cpu[0]["error"] is None
    finally:
        slices.configure()


def test_kept_status_tells_current_from_fewer_seeds_nested_and_stale(tmp_path):
    """`companion kept status`: a kept result a configuration asks for is current; one of an experiment never
    planned at the top is nested; one of a planned experiment at a configuration nobody asks for any more is
    stale — and only that last kind is listed."""
    from dataclasses import replace

    from companion.store import kept

    with runmode.using(cache_dir=tmp_path / "cache", results_dir=tmp_path / "results"):
        planned = campaign.plan(["grokking"], "smoke", "cpu", 0)
        t = planned[0].task
        folder = tmp_path / "results" / "smoke" / "grokking"
        meta = {"date": "2026-11-28T00:00:00", "commit": "abcdef0", "device": "cpu"}
        kept.write(folder / kept.filename(t.experiment, t.config), {"x": 1}, meta)
        kept.write(folder / kept.filename("companion.experiments.grokking.inner", t.config), {"x": 1}, meta)
        changed = replace(t.config, train_frac=0.41)  # a setting changed since it was kept
        kept.write(folder / kept.filename(t.experiment, changed), {"x": 1}, meta)
        rows = campaign.kept_status(["grokking"], "smoke")
    states = sorted(r["state"] for r in rows)
    assert states == ["current", "nested", "stale"], rows
    text = campaign.kept_status_text(rows)
    assert "stale" in text and kept.filename(t.experiment, changed) in text
    assert kept.filename(t.experiment, t.config) not in text  # the current one is counted, not listed
