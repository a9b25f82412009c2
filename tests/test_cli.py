"""The companion command: bad input gets one line naming the valid values, exit 2."""

import pytest
from conftest import companion

from companion.pipeline.execute import validate_parameters
from companion.profiles import ParameterError, departures, one_of, resolve_device, select


@pytest.mark.parametrize("args, valid", [
    (["build", "--profile", "nope"], "smoke, cpu, paper"),
    (["build", "--device", "tpu"], "auto, cpu, cuda"),
    (["build", "--chapter", "nope", "--profile", "smoke"], "grokking"),
    (["run", "nope", "--profile", "smoke"], "grokking"),
    (["run", "grokking", "--profile", "nope"], "smoke, cpu, paper"),
    (["build", "--profile", "smoke", "--chapter", "grokking", "-p", "lr=3"], "profile, device, seed"),
])
def test_unknown_values_give_one_line_and_exit_2(args, valid):
    proc = companion(*args)
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert valid in lines[0]


def test_unknown_subcommand_option_is_one_line():
    proc = companion("build", "--bogus")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1


def test_select_and_one_of():
    assert select({"smoke": 1, "cpu": 2, "paper": 3}, "cpu") == 2
    with pytest.raises(ParameterError, match="smoke, cpu, paper"):
        select({"smoke": 1, "cpu": 2, "paper": 3}, "gpu")
    with pytest.raises(ParameterError, match="a, b"):
        one_of("thing", "c", ["a", "b"])


def test_cuda_without_a_gpu_is_a_clear_error():
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(ParameterError, match="no GPU"):
        resolve_device("cuda")
    assert resolve_device("auto") == "cpu"


def test_worker_and_thread_counts_are_whole_numbers_or_a_clear_error(monkeypatch):
    from companion.profiles import threads, workers

    monkeypatch.setenv("COMPANION_WORKERS", "3")
    assert workers() == 3
    for bad in ("two", "0", "1.5"):
        monkeypatch.setenv("COMPANION_WORKERS", bad)
        with pytest.raises(ParameterError, match=f"must be a whole number of at least 1, got '{bad}'"):
            workers()
    monkeypatch.setenv("COMPANION_THREADS", "x")
    with pytest.raises(ParameterError, match="COMPANION_THREADS"):
        threads()


def test_validate_parameters_lists_the_declared_ones():
    declared = {"profile": "cpu", "device": "auto", "seed": 0}
    validate_parameters("x", declared, {"profile": "smoke", "seed": 3})
    with pytest.raises(ParameterError, match="valid parameters: profile, device, seed"):
        validate_parameters("x", declared, {"lr": 1})


def test_departures_lists_nested_fields():
    from companion.experiments import grokking

    d = {name: (paper, here) for name, paper, here in departures(grokking.PROFILES["cpu"], grokking.PAPER)}
    assert d["p"] == (113, 47) and d["train.lr"] == (1e-3, 1e-2) and d["model.p"] == (113, 47)
    assert departures(grokking.PROFILES["paper"], grokking.PAPER) == []


def test_settings_the_paper_does_not_state_are_marked_at_every_profile():
    from companion.experiments import grokking
    from companion.profiles import departures, departures_table, unstated_fields

    stated = unstated_fields(grokking.PAPER)
    assert ("train.n_evals", 200) in stated and ("p", 113) not in stated
    paper = departures_table({"run": (grokking.PROFILES["paper"], grokking.PAPER)}, "paper").data
    assert "0 setting(s) depart" in paper and "| `train.n_evals` | not stated (ours: 200) | 200 |" in paper
    cpu = departures_table({"run": (grokking.PROFILES["cpu"], grokking.PAPER)}, "cpu").data
    # the table counts the stated settings the diff finds changed; unstated ones are listed apart
    n_depart = len([d for d in departures(grokking.PROFILES["cpu"], grokking.PAPER) if d[:2] not in stated])
    assert n_depart >= 5 and f"{n_depart} setting(s) depart" in cpu
    assert "| `train.n_evals` | not stated (ours: 200) | 120 |" in cpu
    assert "| `p` | 113 | 47 |" in cpu


def test_a_substituted_dataset_is_a_departure_even_at_the_paper_profile(monkeypatch):
    from companion.experiments import lazy_rich
    from companion.profiles import departures_table

    monkeypatch.delenv("COMPANION_MNIST_DIR", raising=False)
    table = departures_table({}, "paper", {"Fig. 6a": [("dataset", "MNIST", "8×8 digits")]}).data
    assert "1 setting(s) depart" in table and "| Fig. 6a | `dataset (substituted)` | MNIST | 8×8 digits |" in table
    assert "`dataset (substituted)` | MNIST | scikit-learn 8×8 digits" in lazy_rich.departures_table("paper").data
    monkeypatch.setenv("COMPANION_MNIST_DIR", "/somewhere/mnist")  # MNIST given: nothing substituted
    assert "substituted" not in lazy_rich.departures_table("paper").data


@pytest.mark.slow
def test_run_fills_the_cache_and_a_second_run_computes_nothing(tmp_path):
    env = {"COMPANION_CACHE_DIR": str(tmp_path / "cache")}
    first = companion("run", "grokking", "--profile", "smoke", env=env)
    assert first.returncode == 0, first.stderr
    assert "9 experiment(s) computed" in first.stdout  # the grokking run and its two controls, at 3 seeds each
    second = companion("run", "grokking", "--profile", "smoke", env=env)
    assert "0 experiment(s) computed" in second.stdout


def test_claims_without_a_build_says_so(tmp_path):
    proc = companion("claims", "--out", str(tmp_path))
    assert proc.returncode == 1 and "run `companion build` first" in proc.stdout


@pytest.mark.parametrize("ref, items", [
    ("Figs. 12–19 / Table 1", [f"Fig. {n}" for n in range(12, 20)] + ["Table 1"]),
    ("Fig. 1b / 6", ["Fig. 1", "Fig. 6"]),
    ("Theorem 3.2 / Fig. 9", ["Fig. 9", "Theorem 3.2"]),
    ("Thm 3.12", ["Theorem 3.12"]),
    ("A.4.1", ["A.4.1"]),  # unparsed references are their own report item, never dropped
    ("Eq. 11 / §3.1.3", ["Eq. 11", "§3.1.3"]),  # a section after an equation is not more equations (Eq. 3, Eq. 1)
    ("§3.3.2 / Eq. 15", ["Eq. 15", "§3.3.2"]),
])
def test_report_items_of_a_paper_reference(ref, items):
    from companion.pipeline.report import paper_items

    assert paper_items(ref) == items


def test_report_thumbnails_take_each_items_first_figure_from_its_caption_or_heading(tmp_path):
    """A figure belongs to the items its caption names, else to those of the heading above it;
    numbers after the heading's dash are not figures; a paper-scale twin is skipped."""
    import base64

    import nbformat

    from companion.pipeline.report import figure_thumbnails, items_named, report_markdown

    assert items_named("Fig. 5 — MED tracks the test loss for p = 97") == ["Fig. 5"]
    assert items_named("The task and the model") == []
    png = base64.b64encode(b"\x89PNG fake").decode()

    def fig(tags=(), caption=None):
        c = nbformat.v4.new_code_cell("fig", metadata={"tags": list(tags)})
        if caption:
            c.metadata["mystnb"] = {"figure": {"caption": caption}}
        c.outputs = [nbformat.v4.new_output("display_data", data={"image/png": png})]
        return c

    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("## Fig. 2 — two panels, 3 seeds"), fig(["paper-scale"]), fig(),
        fig(caption="Paper Fig. 7 and Table 1"), nbformat.v4.new_markdown_cell("## Setup"), fig()])
    nbformat.write(nb, tmp_path / "demo.ipynb")
    thumbs = figure_thumbnails({"demo": tmp_path / "demo.ipynb"}, tmp_path / "static")
    assert set(thumbs) == {("demo", "Fig. 2"), ("demo", "Fig. 7"), ("demo", "Table 1")}
    assert (tmp_path / "static" / "thumbs" / "demo-fig-2.png").read_bytes() == b"\x89PNG fake"
    from companion.claims import Claim

    rec = Claim("c", "Fig. 2", "s", 1.0, "≥ 0", "held", "cpu", "demo")
    report = report_markdown([rec], ["demo"], {}, "cpu", thumbnails=thumbs)
    assert '<a href="demo.html"><img class="thumb" src="../_static/thumbs/demo-fig-2.png"' in report

    # a named figure of no paper item (the synthesis chapter's) is shown beside the hypotheses
    named = fig()
    named.metadata["mystnb"] = {"figure": {"caption": "The four clocks", "name": "synth-clocks"}}
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("## Runs"), named]),
                   tmp_path / "synth.ipynb")
    more = figure_thumbnails({"synth": tmp_path / "synth.ipynb"}, tmp_path / "static")
    assert more == {("synth", "figure:synth-clocks"): "../_static/thumbs/synth-synth-clocks.png"}
    from companion.claims import Prediction, at_most
    from companion.claims.hypotheses import decide_hypothesis

    hyp = decide_hypothesis("synth", "cpu", "h", ref="Levi et al.", setting="linear", quantity="q",
                            prediction=Prediction("Levi et al.", "says", at_most(1.0), "ratio > 1"),
                            per_seed=[0.5, 0.6, 0.7], basis="b")
    report = report_markdown([rec, hyp], ["demo", "synth"], {}, "cpu", thumbnails={**thumbs, **more})
    assert '<a href="synth.html"><img class="thumb" src="../_static/thumbs/synth-synth-clocks.png"' in report


def test_chapters_start_longest_path_first_and_the_synthesis_after_the_chapters_it_reuses(tmp_path):
    import json

    from companion.pipeline.build import REUSES, longest_first
    from companion.pipeline.execute import next_startable

    assert REUSES["synthesis"] == ("linear_estimators",)
    chapters = ["grokking", "synthesis", "lazy_rich", "groktransfer", "linear_estimators"]
    # by the cpu budgets (minutes): linear estimators 4 + the synthesis 8 that waits for it = 12 > 8 > 7 > 6 > 3
    assert longest_first(chapters, tmp_path / "none.json", "cpu") == ["linear_estimators", "synthesis", "groktransfer",
                                                                       "lazy_rich", "grokking"]
    last = tmp_path / "build.json"
    last.write_text(json.dumps({"profile": "cpu", "chapters": {"grokking": {"seconds": 900}, "groktransfer":
                                                               {"seconds": 2000}}}))
    # seconds: groktransfer 2000 > grokking 900 > linear estimators 240 + synthesis 480 > synthesis > lazy_rich 360
    assert longest_first(chapters, last, "cpu") == ["groktransfer", "grokking", "linear_estimators", "synthesis",
                                                    "lazy_rich"]
    after = {"synthesis": ["linear_estimators"]}
    pending = [("synthesis", False), ("lazy_rich", False), ("synthesis", True)]
    assert next_startable(pending, set(), after, idle=False) == 1  # the synthesis waits; the next goes
    assert next_startable(pending, {"linear_estimators"}, after, idle=False) == 0
    assert next_startable(pending[:1], set(), after, idle=False) is None  # waits while what it reuses runs
    assert next_startable(pending[:1], set(), after, idle=True) == 0  # nothing running that it could wait for
    assert next_startable([("synthesis", True)], set(), after, idle=False) == 0  # a kept-results view never waits
