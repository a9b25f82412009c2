"""Hypotheses (the synthesis chapter's claims): verdicts, the verdict table, the report; and the
trainer's parameter snapshots that the synthesis diagnostics read after a run."""

import numpy as np
import pytest
import torch

from companion.claims import Claims, Prediction, at_least, between, less_than, load_claims, markdown_table
from companion.claims.hypotheses import verdict_table, written_verdict

LAZY = Prediction("Kumar et al.", "the kernel moves before test accuracy rises", less_than(1.0),
                  "the kernel moves only after test accuracy has risen")
UNIFORM = Prediction("Gu et al.", "normalised MED falls", at_least(0.1), "MED does not fall")


def test_hypotheses_are_supported_refuted_or_undecided_and_never_fail(tmp_path):
    c = Claims("synthesis", "cpu", directory=tmp_path)
    s = c.hypothesis("lead", ref="Kumar et al. §5", setting="transformer", quantity="t_kernel / t_test",
                     prediction=LAZY, per_seed=[0.5, 0.6, 0.7], basis="a cause precedes its effect")
    r = c.hypothesis("lead_mlp", ref="Kumar et al. §5", setting="quadratic MLP", quantity="t_kernel / t_test",
                     prediction=LAZY, per_seed=[1.5, 1.6, 1.7], basis="a cause precedes its effect")
    u = c.hypothesis("lead_fnn", ref="Kumar et al. §5", setting="FNN", quantity="t_kernel / t_test",
                     prediction=LAZY, per_seed=[0.5, 1.6, 0.7], basis="a cause precedes its effect")
    few = c.hypothesis("lead_two", ref="Kumar et al. §5", setting="FNN", quantity="t_kernel / t_test",
                       prediction=LAZY, per_seed=[0.5, 0.6], basis="a cause precedes its effect")
    assert (s.verdict, r.verdict, u.verdict, few.verdict) == ("supported", "refuted", "undecided", "undecided")
    assert "both sides" in u.undecided and "at least 3" in few.undecided
    assert s.explanation == "Kumar et al." and s.refuted_if == LAZY.refuted_if and s.kind == "hypothesis"
    # counted apart from the paper's claims: a refuted hypothesis is not a failed claim
    assert c.summary() == {"held": 0, "failed": 0, "known-deviation": 0, "undecided": 0, "vacuous": 0}
    assert all(x.verdict != "failed" for x in load_claims(tmp_path))
    with pytest.raises(ValueError, match="basis"):
        c.hypothesis("nobasis", ref="Kumar et al.", setting="x", quantity="q", prediction=LAZY, measured=0.5)


def test_verdict_table_by_explanation_and_setting(tmp_path):
    c = Claims("synthesis", "cpu", directory=tmp_path)
    for frac, v in (("half", [0.5, 0.6, 0.7]), ("quarter", [0.5, 0.6, 0.7]), ("three_quarters", [1.2, 1.3, 1.4])):
        c.hypothesis(f"lead_{frac}", ref="Kumar et al. §5", setting="transformer", quantity="t_kernel / t_test",
                     prediction=LAZY, per_seed=v, basis="b", group="lead")
    c.hypothesis("med", ref="Gu et al. §3", setting="quadratic MLP", quantity="MED drop",
                 prediction=UNIFORM, per_seed=[0.3, 0.4, 0.5], basis="b")
    table = verdict_table(c.records)
    rows = {line.split(" | ")[0].strip("| "): line for line in table.splitlines()[2:]}
    assert list(rows) == ["Kumar et al.", "Gu et al."]  # the explanations' fixed order
    head = table.splitlines()[0]
    assert head.index("transformer") < head.index("quadratic MLP")
    kumar, gu = rows["Kumar et al."].split(" | ")[1:], rows["Gu et al."].split(" | ")[1:]
    assert "definition-dependent" in kumar[0] and "`lead_half`" in kumar[0] and "not applicable" in kumar[1]
    assert "not applicable" in gu[0] and "supported" in gu[1] and "`med`" in gu[1]
    shown = markdown_table(c.records, with_chapter=False)
    assert "Hypotheses" in shown and LAZY.refuted_if in shown and "*No claims of the paper" not in shown


def test_the_written_verdict_says_per_explanation_what_survived_what_was_refuted_and_what_could_not_tell(tmp_path):
    c = Claims("synthesis", "cpu", directory=tmp_path)
    c.hypothesis("lead", ref="Kumar et al. §5", setting="transformer (Nanda et al.)", quantity="t_kernel / t_test",
                 prediction=LAZY, per_seed=[0.5, 0.6, 0.7], basis="b")
    c.hypothesis("lead_mlp", ref="Kumar et al. §5", setting="quadratic MLP", quantity="t_kernel / t_test",
                 prediction=LAZY, per_seed=[1.5, 1.6, 1.7], basis="b")
    c.hypothesis("lead_fnn", ref="Kumar et al. §5", setting="FNN", quantity="t_kernel / t_test",
                 prediction=LAZY, per_seed=[0.5, 1.6, 0.7], basis="b")
    c.hypothesis("med", ref="Gu et al. §3", setting="quadratic MLP", quantity="MED drop",
                 prediction=UNIFORM, per_seed=[0.3, 0.4, 0.5], basis="b")
    text = written_verdict(c.records)
    kumar, gu = text.split("\n\n")
    assert kumar.startswith("**Kumar et al.** is mixed: supported by 1 and refuted by 1 of 3 tests")
    assert f"Supported: “{LAZY.says}” — transformer (`lead`)" in kumar  # the setting without its source
    assert "Refuted: " in kumar and "quadratic MLP (`lead_mlp`)" in kumar
    assert "Could not tell in 1: 1 undecided (the seeds fell on both sides of the bound)" in kumar
    assert gu.startswith("**Gu et al.** survives every test that could decide (1 of 1 tests)")
    assert "Refuted" not in gu and "Could not tell" not in gu


BAND = Prediction("Kumar et al.", "the kernel moves when the network groks", between(0.5, 2.0),
                  "it moves more than ×2 away from the test clock")


def test_a_hypothesis_whose_test_clock_never_arrived_is_not_applicable_not_refuted(tmp_path):
    from companion.events import NOT_OBSERVED

    c = Claims("synthesis", "cpu", directory=tmp_path)
    none = c.hypothesis("none", ref="r", setting="s", quantity="t_cross / t_test", prediction=BAND, basis="b",
                        per_seed=[NOT_OBSERVED] * 3, applicable=[False] * 3)
    assert none.verdict == "not applicable" and "never arrived" in none.undecided
    # the same values with no word on the test clock read as a refutation: that is what `applicable` prevents
    assert c.hypothesis("blind", ref="r", setting="s", quantity="q", prediction=BAND, basis="b",
                        per_seed=[NOT_OBSERVED] * 3).verdict == "refuted"
    some = c.hypothesis("some", ref="r", setting="s", quantity="q", prediction=BAND, basis="b",
                        per_seed=[1.0, NOT_OBSERVED, 1.1, 0.9], applicable=[True, False, True, True])
    assert some.verdict == "supported" and some.seeds_held == 3  # the seed without a test clock is left out
    two = c.hypothesis("two", ref="r", setting="s", quantity="q", prediction=BAND, basis="b",
                       per_seed=[1.0, NOT_OBSERVED, 1.1], applicable=[True, False, True])
    # two seeds with a test clock of three: the premise is missing, not the evidence — not applicable, as with none
    assert two.verdict == "not applicable" and "arrived in 2 of 3 seeds" in two.undecided
    assert "at least 3" in two.undecided
    # two seeds run in all (none without a clock): too few seeds, undecided
    short = c.hypothesis("short", ref="r", setting="s", quantity="q", prediction=BAND, basis="b", per_seed=[1.0, 1.1])
    assert short.verdict == "undecided" and "2 seed(s)" in short.undecided


def test_a_diagnostic_that_does_not_beat_the_null_clock_is_not_supported(tmp_path):
    from companion.claims.hypotheses import NULL_FACTOR, null_beaten

    c = Claims("synthesis", "cpu", directory=tmp_path)
    close = [1.0, 1.1, 0.95]  # within the band, and the crossing sits on t_test
    far_nulls = {"midpoint": [1.8, 1.9, 1.7], "log-midpoint": [1.6, 0.55, 1.5]}
    near_nulls = {"midpoint": [1.2, 1.9, 1.7], "log-midpoint": [1.6, 1.0, 1.5]}  # seeds 0, 1: a null as close
    beat = c.hypothesis("beat", ref="r", setting="s", quantity="q", prediction=BAND, basis="b", per_seed=close,
                        nulls=far_nulls)
    tie = c.hypothesis("tie", ref="r", setting="s", quantity="q", prediction=BAND, basis="b", per_seed=close,
                       nulls=near_nulls)
    assert beat.verdict == "supported" and tie.verdict == "vacuous" and "2 of 3 seeds" in tie.vacuous
    assert [b for b, _, _ in null_beaten(close, near_nulls)] == [False, False, True]
    # the margin: a crossing must be closer than the best null by ×√2 on the log axis
    assert NULL_FACTOR == pytest.approx(2 ** 0.5)
    assert null_beaten([1.0], {"n": [1.45]})[0][0] and not null_beaten([1.0], {"n": [1.35]})[0][0]
    # a refuted band stays refuted whatever the nulls do
    assert c.hypothesis("out", ref="r", setting="s", quantity="q", prediction=BAND, basis="b",
                        per_seed=[3.0, 2.5, 4.0], nulls=far_nulls).verdict == "refuted"
    assert "null clock (midpoint): 3/3 meet the bound" in markdown_table(c.records)


def test_a_group_of_definitions_none_applicable_is_not_applicable():
    from companion.claims import Claim
    from companion.claims.hypotheses import group_verdict

    def rec(v):
        return Claim("x", "r", "s", 1.0, "e", v, "cpu", "synthesis", kind="hypothesis")

    assert group_verdict([rec("not applicable")] * 3) == "not applicable"
    assert group_verdict([rec("not applicable"), rec("supported")]) == "supported"
    assert group_verdict([rec("vacuous"), rec("supported")]) == "definition-dependent"


def test_report_lists_hypotheses_apart(tmp_path):
    from companion.pipeline.report import report_markdown

    c = Claims("synthesis", "cpu", directory=tmp_path)
    c.hypothesis("med", ref="Gu et al. §3", setting="quadratic MLP", quantity="MED drop",
                 prediction=UNIFORM, per_seed=[0.01, 0.02, 0.03], basis="b")
    report = report_markdown(load_claims(tmp_path), ["synthesis"], {}, "cpu")
    assert "## Hypotheses" in report and "`med`" in report and "1 refuted" in report
    assert "**Total: 0 held (0 against a control that fails, 0 without one), 0 vacuous, 0 failed, 0 known " \
           "deviations, 0 undecided**" in report


@pytest.mark.parametrize("batched", [False, True])
def test_snapshots_hold_the_parameters_at_the_chosen_evaluation_steps(batched):
    from companion.data.modular import modular_arithmetic
    from companion.models.transformer import Transformer, TransformerConfig
    from companion.train import TrainConfig, train, train_batched

    cfg = TrainConfig(steps=6, lr=1e-2, warmup=0)
    data = modular_arithmetic(7, "add", 0.5, seed=0)
    torch.manual_seed(0)
    model = Transformer(TransformerConfig(p=7, d_model=8, n_heads=2, d_mlp=16))
    start = {k: v.detach().clone() for k, v in model.named_parameters()}
    at = np.arange(7)
    if batched:
        h = train_batched([model], [data], cfg, eval_at=at, snapshot_at=[0, 3, 6])[0]
        final = {k: v.detach().clone() for k, v in model.named_parameters()}  # refreshed at the last evaluation
    else:
        h = train(model, data, cfg, eval_at=at, snapshot_at=[0, 3, 6])
        final = {k: v.detach().clone() for k, v in model.named_parameters()}
    assert list(h["snapshot_step"]) == [0, 3, 6] and set(h["snapshots"]) == set(start)
    for k in start:
        assert h["snapshots"][k].shape == (3, *start[k].shape)
        np.testing.assert_array_equal(h["snapshots"][k][0], start[k].numpy())
        np.testing.assert_array_equal(h["snapshots"][k][-1], final[k].numpy())
    assert not np.array_equal(h["snapshots"]["W_E" if "W_E" in start else next(iter(start))][1],
                              h["snapshots"]["W_E" if "W_E" in start else next(iter(start))][0])
    with pytest.raises(ValueError, match="evaluation steps"):
        train(model, data, cfg, eval_at=at, snapshot_at=[100])


def test_a_hypothesis_whose_control_run_meets_it_too_is_vacuous(tmp_path):
    from companion.claims import ControlRun
    from companion.events import NOT_OBSERVED

    c = Claims("synthesis", "cpu", directory=tmp_path)
    sooner = Prediction("Gu et al.", "sooner", less_than(0.9), "not sooner")
    failing = ControlRun("relabelled", "no structure", per_seed=[1.1, 1.0, 1.2])
    passing = ControlRun("relabelled", "no structure", per_seed=[1.1, 0.5, 1.2])  # seed 1 meets it too
    held = c.hypothesis("held", ref="r", setting="s", quantity="q", prediction=sooner, basis="b",
                        per_seed=[0.5, 0.6, 0.4], controls=[failing])
    empty = c.hypothesis("empty", ref="r", setting="s", quantity="q", prediction=sooner, basis="b",
                         per_seed=[0.5, 0.6, 0.4], controls=[passing])
    assert held.verdict == "supported" and held.controls[0]["seeds_held"] == 0
    assert empty.verdict == "vacuous" and "relabelled" in empty.vacuous and "1 seed" in empty.vacuous
    # a seed that cannot decide does not let its control decide either
    skip = c.hypothesis("skip", ref="r", setting="s", quantity="q", prediction=sooner, basis="b",
                        per_seed=[0.5, NOT_OBSERVED, 0.4, 0.3], applicable=[True, False, True, True],
                        controls=[ControlRun("relabelled", "no structure", per_seed=[1.1, 0.5, 1.2, 1.0])])
    assert skip.verdict == "supported"
    # a refuted prediction stays refuted whatever the control does
    assert c.hypothesis("no", ref="r", setting="s", quantity="q", prediction=sooner, basis="b",
                        per_seed=[1.5, 1.6, 1.4], controls=[passing]).verdict == "refuted"
    # no deciding seed: not applicable, with the reason given
    none = c.hypothesis("none", ref="r", setting="s", quantity="q", prediction=sooner, basis="b",
                        per_seed=[NOT_OBSERVED] * 3, applicable=[False] * 3, why_not="the base is not positive")
    assert none.verdict == "not applicable" and none.undecided == "the base is not positive"
    with pytest.raises(ValueError, match="per_seed"):
        c.hypothesis("pooled", ref="r", setting="s", quantity="q", prediction=sooner, basis="b", measured=0.5,
                     controls=[failing])
