"""Kept paper-scale results: their file format, provenance, the kept-only view, and a book page
that shows them beside the cpu build (companion.store.kept, companion.pipeline.scales, companion.pipeline.build)."""

import hashlib
import json
import math
from dataclasses import dataclass

import nbformat
import numpy as np
import pytest
import torch
from conftest import companion

from companion import runmode
from companion.pipeline import scales
from companion.store import cache, entries, kept


@pytest.fixture()
def results(tmp_path, monkeypatch, isolated):
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path / "results"))
    monkeypatch.delenv("COMPANION_KEPT_ONLY", raising=False)
    return tmp_path / "results"


def test_a_kept_file_round_trips_nested_results_exactly(results):
    value = {"step": np.arange(5), "loss": np.array([1.0, math.inf, math.nan]), "w": torch.randn(3, 2),
             ("square", 30): {"acc": np.float32(0.5), "n": 7, "tag": "x", "none": None},
             "rows": [{"k": 2, "alpha": 0.2}], "pair": (1, 2.5), 3: [True, False]}
    path = results / "t.npz"
    kept.write(path, value, {"note": "test"})
    back, meta = kept.read(path)
    assert meta == {"note": "test"}
    assert back.keys() == value.keys()
    assert np.array_equal(back["step"], value["step"]) and back["step"].dtype == value["step"].dtype
    assert np.array_equal(back["loss"], value["loss"], equal_nan=True)
    assert isinstance(back["w"], torch.Tensor) and torch.equal(back["w"], value["w"])
    assert back[("square", 30)] == {"acc": np.float32(0.5), "n": 7, "tag": "x", "none": None}
    assert type(back[("square", 30)]["acc"]) is np.float32
    assert back["rows"] == value["rows"] and back["pair"] == (1, 2.5) and back[3] == [True, False]
    with pytest.raises(TypeError):
        kept.write(results / "bad.npz", {"f": print}, {})


@dataclass(frozen=True)
class Cfg:
    n: int = 2


calls = []


@cache.experiment
def cube(cfg: Cfg, device: str = "cpu") -> dict:
    calls.append(cfg)
    return {"y": np.array([cfg.n ** 3])}


def test_keep_writes_provenance_and_a_kept_result_is_found_whatever_the_library(results, monkeypatch):
    calls.clear()
    with runmode.using(keep_chapter="demo"):
        cube(Cfg(3))
    (path,) = (results / "paper" / "demo").glob("cube-*.npz")
    meta = kept.read_meta(path)
    assert meta["config"] == {"__class__": "Cfg", "n": 3} and meta["chapter"] == "demo"
    assert {"device", "torch", "commit", "library", "date", "seconds"} <= meta.keys()
    assert kept.staleness(meta) is None
    monkeypatch.setattr(entries, "_source_hash", "a later library")  # the cache misses; kept is still found
    assert kept.find(cube.experiment_name, Cfg(3)) == path
    assert "changed" in kept.staleness(meta)
    with runmode.using(reuse_kept=True):
        assert cube(Cfg(3)) == {"y": np.array([27])} and len(calls) == 1  # --keep: kept results count as done


def test_a_page_of_kept_results_never_computes(results, monkeypatch):
    with runmode.using(keep_chapter="demo"):
        cube(Cfg(4))
    monkeypatch.setenv("COMPANION_KEPT_ONLY", "1")
    calls.clear()
    assert cube(Cfg(4))["y"][0] == 64
    with pytest.raises(kept.NotKept) as exc:
        cube(Cfg(5))
    assert calls == [] and exc.value._render_traceback_() == [
        "Not computed at this scale yet: cube has no kept result for this configuration."]
    # a figure's runs: the kept ones are shown, the others left out; none kept is NotKept
    got = kept.partial({4: lambda: cube(Cfg(4)), 5: lambda: cube(Cfg(5))})
    assert list(got) == [4]
    with pytest.raises(kept.NotKept):
        kept.partial({5: lambda: cube(Cfg(5))})


@dataclass(frozen=True)
class SeededInner:
    seeds: tuple = (0, 1, 2)


@dataclass(frozen=True)
class Seeded:
    n: int = 2
    seeds: tuple = (0, 1, 2, 3, 4)
    inner: SeededInner = SeededInner()


@cache.experiment
def seeded(cfg: Seeded, device: str = "cpu") -> dict:
    calls.append(cfg)
    return {"seeds": list(cfg.seeds)}


def test_a_page_reads_the_longest_kept_prefix_of_seeds_and_says_so(results, monkeypatch):
    # a result kept before the figure ran more seeds: its first seeds are the same runs
    assert kept.first_seeds(Seeded(), 1) == Seeded(seeds=(0,), inner=SeededInner((0,)))
    assert kept.first_seeds(Seeded(), 3) == Seeded(seeds=(0, 1, 2))
    with runmode.using(keep_chapter="demo"):
        seeded(Seeded(seeds=(0,), inner=SeededInner((0,))))
        seeded(Seeded(seeds=(0, 1, 2)))
        seeded(Seeded(n=3, seeds=(1, 2)))  # other seeds, not a prefix: never read for seeds (0, …)
    monkeypatch.setenv("COMPANION_KEPT_ONLY", "1")
    cache.KEPT_LOADED.clear()
    calls.clear()
    assert seeded(Seeded())["seeds"] == [0, 1, 2]  # the longest kept prefix
    assert seeded(Seeded(seeds=(0, 1)))["seeds"] == [0]
    assert cache.KEPT_LOADED[-1]["fewer_seeds"] is True
    assert kept.find_for_page(seeded.experiment_name, Seeded(seeds=(0, 1, 2)))[1] is False  # all its seeds
    with pytest.raises(kept.NotKept):
        seeded(Seeded(n=3))
    assert calls == []


def _nb(cells):
    nb = nbformat.v4.new_notebook()
    for i, (kind, src, outputs, tags) in enumerate(cells):
        c = nbformat.v4.new_code_cell(src) if kind == "code" else nbformat.v4.new_markdown_cell(src)
        c["id"] = f"cell-{i}"
        c.metadata["tags"] = tags
        if kind == "code":
            c.outputs = outputs
        nb.cells.append(c)
    return nb


def _out(text):
    return nbformat.v4.new_output("display_data", data={"text/plain": text})


def _err(ename, evalue):
    return nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=[evalue])


def test_merge_puts_each_paper_output_after_its_cell_and_says_what_is_missing():
    main = _nb([("code", "setup", [_out("run with cpu")], []), ("code", "fig_a", [_out("A cpu")], []),
                ("markdown", "## B", [], []), ("code", "fig_b", [_out("B cpu")], []),
                ("code", "table_b", [_out("tb cpu")], []), ("code", "same", [_out("static")], []),
                ("code", "fig_c", [_out("C cpu")], [])])
    paper = _nb([("code", "setup", [_out("run with kept")], []), ("code", "fig_a", [_out("A paper")], []),
                 ("markdown", "## B", [], []),
                 ("code", "fig_b", [_err("NotKept", "modular_run has no kept result for this configuration")], []),
                 ("code", "table_b", [_err("NameError", "name 'b' is not defined")], []),
                 ("code", "same", [_out("static")], []), ("code", "fig_c", [_err("KeyError", "'x'")], [])])
    merged = scales.merge(main, paper, "PROVENANCE")
    texts = []
    for c in merged.cells:
        if c.cell_type == "markdown":
            texts.append(c.source)
        else:
            texts.append(" / ".join(o.get("data", {}).get("text/plain", o.get("evalue", "")) for o in c.outputs))
    assert texts[:4] == ["run with cpu", "PROVENANCE", "*At the paper's scale:* / run with kept", "A cpu"]
    assert texts[4] == "*At the paper's scale:* / A paper"
    assert "*At the paper's scale: modular_run has no kept result for this configuration yet.*" in texts
    assert "*At the paper's scale: needs a result not computed at that scale yet (this page lacks `modular_run`).*" \
        in texts
    assert texts.count("static") == 1  # identical outputs are not repeated
    # an error with no missing result before it is a defect of the page: shown, and reported
    assert merged.metadata["companion"]["paper_scale_errors"] == []  # the KeyError follows a NotKept
    only_error = scales.merge(_nb([("code", "x", [_out("ok")], [])]),
                              _nb([("code", "x", [_err("KeyError", "'x'")], [])]), "")
    assert only_error.metadata["companion"]["paper_scale_errors"] == ["KeyError: 'x'"]
    twins = [c for c in merged.cells if "paper-scale" in c.metadata.get("tags", []) and c.cell_type == "code"]
    assert all("remove-input" in c.metadata["tags"] for c in twins)


@pytest.mark.slow
def test_the_book_shows_kept_paper_results_beside_the_cpu_ones(tmp_path, monkeypatch):
    """A kept result the test writes for the grokking chapter's paper config appears on the
    chapter's page after the cpu figure, its claims are evaluated at paper scale, and the report
    gets the paper-scale column; the build still exits 0."""
    from companion.experiments import grokking

    cfg = grokking.config("fig1", "paper")
    steps = np.unique(np.round(np.logspace(0, math.log10(cfg.train.steps), 60)).astype(int))
    steps = np.concatenate([[0], steps])
    def sig(t0):
        return 1 / (1 + np.exp(-(np.log(steps + 1) - np.log(t0)) * 4))

    hist = {"step": steps, "train_acc": 0.01 + 0.99 * sig(300), "test_acc": 0.01 + 0.99 * sig(9000),
            "train_loss": 4.7 * (1 - sig(300)) + 1e-3, "test_loss": 4.7 * (1 - sig(9000)) + 1e-3,
            "weight_norm": 30 - 10 * sig(9000), "n_train": 3831, "n_test": 8938}
    res = tmp_path / "results"
    env = {"COMPANION_RESULTS_DIR": str(res), "COMPANION_CACHE_DIR": str(tmp_path / "cache"),
           "COMPANION_PAPER_VIEW": "1"}
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(res))
    # the controls: 90% of the pairs generalises as it fits; without weight decay it never generalises
    no_delay = {**hist, "test_acc": 0.01 + 0.99 * sig(400), "test_loss": 4.7 * (1 - sig(400)) + 1e-3}
    no_decay = {**hist, "test_acc": np.full(len(steps), 0.01), "test_loss": np.full(len(steps), 6.0),
                "weight_norm": 30 + 10 * sig(300)}
    controls = grokking.control_configs(cfg)
    with runmode.using(keep_chapter="grokking"):
        for arm, h in ((cfg, hist), (controls[grokking.NO_DELAY], no_delay), (controls[grokking.NO_DECAY], no_decay)):
            for c in grokking.seed_configs(arm):  # the chapter's claims use 3 seeds
                kept.keep(grokking.training_run.experiment_name, c, "cuda", h, 42.0, note="written by a test")
    (res / "runs.jsonl").write_text(json.dumps({"chapters": ["grokking"], "profile": "paper", "wall_s": 126.0}) + "\n")
    out = tmp_path / "book"
    proc = companion("build", "--profile", "smoke", "--chapter", "grokking", "--out", str(out), env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "grokking @ paper scale, kept results] ok" in proc.stdout
    merged = nbformat.read(out / "merged" / "grokking.ipynb", as_version=4)
    notes = [c.source for c in merged.cells
             if c.cell_type == "markdown" and "paper-scale" in c.metadata.get("tags", [])]
    assert len(notes) == 1 and "9 kept result(s)" in notes[0] and "2.1 min" in notes[0]
    twins = [c for c in merged.cells if c.cell_type == "code" and "paper-scale" in c.metadata.get("tags", [])]
    assert any(o.get("data", {}).get("image/png") for c in twins for o in c.outputs)  # the paper-scale figure
    paper_claims = json.loads((out / "claims-paper" / "grokking.json").read_text())
    assert {c["id"] for c in paper_claims} >= {"delay", "generalises"}
    assert all(c["profile"] == "paper" for c in paper_claims)
    delay = next(c for c in paper_claims if c["id"] == "delay")
    assert delay["measured"] > 5 and delay["verdict"] == "held"
    report = (out / "html" / "book" / "report.html").read_text()
    assert "paper scale" in report and "2.1 min" in report
    page = (out / "html" / "book" / "grokking.html").read_text()
    assert "At the paper’s scale" in page or "At the paper's scale" in page


def test_rekey_finds_a_result_whose_experiment_moved_and_whose_config_was_renamed(results):
    """A kept file written before a refactor (experiment in another module, config class under an
    old name, without a field added since at its default) is renamed to where today's library
    looks for it; its values and provenance are untouched."""
    from companion.experiments import grokking
    from companion.store.entries import canonical

    cfg = grokking.config("fig1", "smoke")
    old = canonical(cfg)
    old["__class__"] = "GrokkingRun"  # the class's old name
    del old["seed"]  # a field added later, at its default
    old_name = "companion.experiments.old_home.training_run"
    blob = json.dumps({"name": old_name, "config": old}, sort_keys=True)

    old_key = hashlib.sha256(blob.encode()).hexdigest()
    path = results / "paper" / "grokking" / f"training_run-{old_key[:16]}.npz"
    path.parent.mkdir(parents=True)
    kept.write(path, {"step": np.arange(3)}, {"experiment": old_name, "config": old, "key": old_key,
                                             "chapter": "grokking", "device": "GPU", "date": "then"})
    assert kept.find(grokking.training_run.experiment_name, cfg) is None
    assert kept.rekey(class_renames={"GrokkingRun": "GrokkingConfig"}, dry_run=True)  # names the move...
    assert path.exists()  # ...and changes nothing
    kept.rekey(class_renames={"GrokkingRun": "GrokkingConfig"})
    found = kept.find(grokking.training_run.experiment_name, cfg)
    assert found is not None and not path.exists()
    value, meta = kept.read(found)
    assert np.array_equal(value["step"], np.arange(3)) and meta["device"] == "GPU"
    assert meta["rekeyed_from"]["key"] == old_key and meta["experiment"] == grokking.training_run.experiment_name
    assert kept.rekey() == []  # already where it belongs


def test_rekey_refuses_a_configuration_no_class_of_today_can_hold(results):
    path = results / "paper" / "grokking" / "training_run-0000000000000000.npz"
    path.parent.mkdir(parents=True)
    kept.write(path, {"x": np.arange(1)}, {"experiment": "companion.experiments.grokking.training_run",
                                          "config": {"__class__": "NoSuchConfig", "p": 3}, "key": "0" * 64,
                                          "chapter": "grokking"})
    with pytest.raises(KeyError):
        kept.rekey()
