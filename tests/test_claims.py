"""Claims: expectations, the verdict table (strict known deviations) and the sidecar."""

import json
import math

import numpy as np
import pytest

from companion.claims import (
    ALL_SEEDS,
    MEDIAN,
    Claims,
    at_least,
    at_most,
    between,
    close_to,
    greater_than,
    is_infinite,
    is_true,
    item_status,
    load_claims,
    markdown_table,
    never,
    seeds_at_least,
    verdict,
    within,
)
from companion.claims.text import diff, diff_text, weak
from companion.events import NOT_OBSERVED, first_crossing, observed, ratio


@pytest.mark.parametrize("holds, deviation, expected", [
    (True, None, "held"),
    (False, None, "failed"),
    (False, "the paper's Eq. 15 is 2x too large", "known-deviation"),
    (True, "the paper's Eq. 15 is 2x too large", "failed"),  # strict: a deviation that holds fails
])
def test_verdict_table(holds, deviation, expected):
    assert verdict(holds, deviation) == expected


def test_expectations():
    assert at_least(5).holds(5) and not at_least(5).holds(4.99)
    assert at_most(1).holds(1) and not at_most(1).holds(1.01)
    assert between(0, 1).holds(0.5) and not between(0, 1).holds(1.5)
    assert within(10, 0.15).holds(11.4) and not within(10, 0.15).holds(11.6)
    assert close_to(1, 0.1).holds(0.95) and not close_to(1, 0.1).holds(1.2)
    assert is_true().holds(True) and not is_true().holds(False) and is_true().holds(np.bool_(True))
    assert is_infinite().holds(math.inf) and not is_infinite().holds(1e300)


def test_nan_and_wrong_types_never_hold():
    for e in (at_least(0), at_most(1e9), between(-1e9, 1e9), within(1, 10), close_to(0, 1e9)):
        assert not e.holds(math.nan)
        assert not e.holds("3")
        assert not e.holds(None)
    assert not within(1, 10).holds(math.inf)


def test_sidecar_records_every_check_at_once(tmp_path):
    c = Claims("demo", "cpu", directory=tmp_path)
    c.check("a", "Fig. 1", "ratio at least 5", np.float64(7.0), at_least(5))
    on_disk = json.loads((tmp_path / "demo.json").read_text())
    assert on_disk[0]["verdict"] == "held" and on_disk[0]["measured"] == 7.0
    c.check("b", "Eq. 15", "late loss", 2.0, within(1.0, 0.1), known_deviation="factor 2")
    c.check("c", "Table 1", "monotone", False, is_true("monotone"))
    recs = load_claims(tmp_path)
    assert [r.verdict for r in recs] == ["held", "known-deviation", "failed"]
    assert {"id", "paper_ref", "statement", "measured", "expected", "verdict", "profile"} <= set(on_disk[0])
    assert c.summary() == {"held": 1, "failed": 1, "known-deviation": 1, "undecided": 0, "vacuous": 0}
    assert "known deviation</span> — factor 2" in markdown_table(recs)


def test_duplicate_claim_ids_are_refused(tmp_path):
    c = Claims("demo", "cpu", directory=tmp_path)
    c.check("a", "Fig. 1", "s", 1, at_least(0))
    with pytest.raises(ValueError):
        c.check("a", "Fig. 1", "s", 1, at_least(0))


# ----------------------------------------------------------------------------- claims that can fail

QUOTE, BASIS = "the paper's words", "the argument for the bound"


def test_an_event_that_never_happens_is_not_observed_and_passes_nothing_but_never():
    steps, acc = np.array([0, 10, 100]), np.array([0.1, 0.5, 0.7])
    t = first_crossing(steps, acc, 0.99)
    assert t is NOT_OBSERVED and not observed(t) and first_crossing(steps, acc, 0.5) == 10.0
    # arithmetic keeps it not observed; a delay built from it is not observed
    assert t / 10 is NOT_OBSERVED and 3 - t is NOT_OBSERVED and ratio(t, 10.0) is NOT_OBSERVED
    assert ratio(100.0, 10.0) == 10.0
    with pytest.raises(TypeError):
        t > 5  # a comparison has no answer
    for e in (at_least(0), at_most(1e9), greater_than(-math.inf), between(-1e9, 1e9), is_infinite()):
        assert not e.holds(t)
    assert never().holds(t) and not never().holds(3.0) and not never().holds(math.inf)
    assert f"{t:.1f}" == "not observed"


def test_per_seed_rules_and_what_the_claim_records(tmp_path):
    c = Claims("demo", "smoke", directory=tmp_path)
    a = c.claim("all", ref="Fig. 1", quantity="delay", per_seed=[8.0, 6.0, 20.0], expected=at_least(5))
    assert a.verdict == "held" and a.seeds == "3/3" and a.measured == 6.0  # the seed nearest the bound
    assert a.margin == pytest.approx(0.2)
    b = c.claim("one_fails", ref="Fig. 1", quantity="delay", per_seed=[8.0, 4.0, 20.0], expected=at_least(5))
    assert b.verdict == "failed" and b.seeds == "2/3" and b.measured == 4.0
    m = c.claim("median", ref="Fig. 1", quantity="delay", per_seed=[8.0, 4.0, 20.0], expected=at_least(5),
                rule=MEDIAN)
    assert m.verdict == "held" and m.measured == 8.0
    k = c.claim("two_of_three", ref="Fig. 1", quantity="delay", per_seed=[8.0, 4.0, 20.0], expected=at_least(5),
                rule=seeds_at_least(2))
    assert k.verdict == "held" and k.rule == "at least 2 seeds"
    n = c.claim("unobserved", ref="Fig. 2", quantity="delay", per_seed=[8.0, NOT_OBSERVED, 20.0],
                expected=at_least(5), rule=MEDIAN)
    assert n.verdict == "failed" and n.measured is NOT_OBSERVED
    allseeds = c.claim("unobserved_all", ref="Fig. 2", quantity="delay", per_seed=[8.0, NOT_OBSERVED, 20.0],
                       expected=at_least(5), rule=ALL_SEEDS)
    assert allseeds.verdict == "failed" and allseeds.seeds == "2/3"
    back = {r.id: r for r in load_claims(tmp_path)}
    assert back["unobserved"].measured is NOT_OBSERVED and back["unobserved"].per_seed[1] is NOT_OBSERVED
    assert back["all"].per_seed == [8.0, 6.0, 20.0] and back["all"].seeds_held == 3


def test_a_known_deviation_that_starts_to_hold_fails_with_seeds(tmp_path):
    c = Claims("demo", "smoke", directory=tmp_path)
    r = c.claim("dev", ref="Eq. 15", quantity="late loss / predicted", per_seed=[1.0, 1.05, 0.98],
                expected=within(1.0, 0.1), known_deviation="the paper's factor of 2")
    assert r.verdict == "failed"


def test_seeds_on_both_sides_of_the_bound_need_five_seeds_at_strict_profiles(tmp_path):
    """The median of 3 seeds holds at smoke when one seed is on the other side, but at cpu it cannot
    decide: the claim is undecided (not held, not failed) and says why; a known deviation too."""
    straddle = dict(ref="Fig. 20", quantity="speed-up", expected=at_most(0.7), rule=MEDIAN, quote=QUOTE, basis=BASIS)
    smoke = Claims("demo", "smoke", directory=tmp_path)
    assert smoke.claim("s", per_seed=[0.57, 1.69, 0.43], **straddle).verdict == "held"
    c = Claims("demo", "cpu", directory=tmp_path)
    three = c.claim("three", per_seed=[0.57, 1.69, 0.43], **straddle)
    assert three.verdict == "undecided" and "at least 5 seeds" in three.undecided and three.seeds == "2/3"
    assert "at least 5 seeds" in markdown_table([three])
    five = c.claim("five", per_seed=[0.57, 1.69, 0.43, 0.5, 0.6], **straddle)  # the median's interval: the range
    assert five.verdict == "undecided" and "95% interval of the median (0.43 to 1.69)" in five.undecided
    twelve = [0.4, 0.45, 0.5, 0.5, 0.55, 0.6, 0.6, 0.62, 0.65, 0.66, 0.68, 1.69]  # ranks 3 and 10: 0.5 to 0.66
    assert c.claim("twelve", per_seed=twelve, **straddle).verdict == "held"
    same_side = c.claim("same_side", per_seed=[0.5, 0.6, 0.4], **straddle)
    assert same_side.verdict == "held" and same_side.undecided is None
    dev = c.claim("dev", per_seed=[0.57, 1.69, 0.43], known_deviation="a reduced profile", **straddle)
    assert dev.verdict == "undecided" and dev.ok  # a deviation in some seeds only is no deviation


def test_a_claim_on_too_few_seeds_is_an_error_at_cpu_and_undecided_when_the_runs_chose_them(tmp_path):
    """Fewer than 3 seeds: a code defect at cpu, unless the claim reads a subset of the seeds that the runs
    decide (the seeds that generalise), or a paper-scale page reads a kept result of fewer seeds; both are
    undecided, saying why, whichever side of the bound the values fall on."""
    kw = dict(ref="Fig. 11", quantity="rise", expected=at_least(1.1), quote=QUOTE, basis=BASIS)
    c = Claims("demo", "cpu", directory=tmp_path)
    with pytest.raises(ValueError, match="at least 3"):
        c.claim("few", per_seed=[1.5, 1.6], **kw)
    sub = c.claim("sub", per_seed=[1.5, 1.6], subset="the seeds that generalise, 2 of 8", **kw)
    assert sub.verdict == "undecided" and "the seeds that generalise, 2 of 8" in sub.undecided
    assert c.claim("sub3", per_seed=[1.5, 1.6, 1.7], subset="the seeds that generalise, 3 of 8", **kw).verdict \
        == "held"
    paper = Claims("demo", "paper", directory=tmp_path)
    one = paper.claim("one", per_seed=[0.9], **kw)
    assert one.verdict == "undecided" and "kept result" in one.undecided


def test_a_finding_of_the_reproduction_is_decided_like_a_claim_and_counted_apart(tmp_path):
    """A result the paper does not state (kind 'finding'): no quote needed, 3 seeds, decided and gating like a
    claim of the paper, shown in a table of its own and not counted among the paper's claims."""
    c = Claims("demo", "cpu", directory=tmp_path)
    kw = dict(ref="Fig. 4", quantity="share explained", expected=at_least(0.8), basis="our explanation", kind="finding")
    with pytest.raises(ValueError, match="at least 3"):
        c.claim("few", per_seed=[0.9, 0.95], **kw)
    f = c.claim("mirror", per_seed=[0.9, 0.95, 0.92], **kw)
    assert f.verdict == "held" and c.summary()["held"] == 0
    assert c.claim("miss", per_seed=[0.5, 0.6, 0.55], **kw).verdict == "failed"
    table = markdown_table(c.records)
    assert "Findings of this reproduction" in table and "`mirror`" in table


def test_a_known_deviation_must_lie_outside_the_seeds_spread(tmp_path):
    """Every seed misses 'at least 1', but the nearest by 5% against a spread of ~33%: another seed set
    could meet it, so it is undecided; the same spread far below the bound is the known deviation."""
    kw = dict(ref="Fig. 6a", quantity="gain", expected=at_least(1.0), quote=QUOTE, basis=BASIS,
              known_deviation="a reduced profile")
    c = Claims("demo", "cpu", directory=tmp_path)
    near = c.claim("near", per_seed=[0.3, 0.6, 0.95], **kw)
    assert near.verdict == "undecided" and "within the seeds' spread" in near.undecided
    far = c.claim("far", per_seed=[0.1, 0.2, 0.3], **kw)  # nearest misses by 70%, spread 10%
    assert far.verdict == "known-deviation" and far.undecided is None
    # without a known deviation a miss is a failure: the rule guards deviations from flipping to 'holds'
    assert c.claim("plain", per_seed=[0.3, 0.6, 0.95], **{**kw, "known_deviation": None}).verdict == "failed"
    assert [r.verdict for r in c.records if not r.ok] == ["failed"]


def test_a_median_is_decided_only_when_its_interval_clears_the_bound(tmp_path):
    """16 draws whose median (0.90) is inside ±15% of 1 but whose 95% interval (ranks 4 and 13: 0.849 to 1.09)
    reaches across 0.85: undecided; the same draws shifted up by 0.05 clear it."""
    draws = [0.745, 0.803, 0.849, 0.849, 0.859, 0.878, 0.881, 0.886, 0.913, 0.931, 1.053, 1.091, 1.092, 1.109,
             1.324, 1.541]
    kw = dict(ref="Fig. 1", quantity="Δt ratio", expected=within(1.0, 0.15), rule=MEDIAN, quote=QUOTE, basis=BASIS)
    c = Claims("demo", "cpu", directory=tmp_path)
    r = c.claim("dt", per_seed=draws, **kw)
    assert r.verdict == "undecided" and "0.849 to 1.09" in r.undecided
    assert c.claim("dt_up", per_seed=[d + 0.05 for d in draws], **kw).verdict == "held"
    assert Claims("demo", "smoke", directory=tmp_path).claim("s", per_seed=draws, **kw).verdict == "held"
    # no seed inside the band, yet the median of an even count falls inside it: undecided, not held
    apart = c.claim("apart", per_seed=[0.5, 0.6, 0.7, 1.3, 1.4, 1.5], **kw)
    assert apart.verdict == "undecided" and apart.seeds == "0/6" and "95% interval" in apart.undecided


def test_the_median_interval_covers_the_median_at_its_level():
    """Coverage by simulation (an independent route to the binomial order statistics): uniform draws,
    true median ½; the interval must contain it in at least 95% of 4000 samples for n = 6 … 40."""
    import numpy as np

    from companion.claims.expectations import median_interval

    rng = np.random.default_rng(0)
    for n in (6, 9, 16, 25, 40):
        hits = [lo <= 0.5 <= hi for lo, hi in (median_interval(list(rng.random(n))) for _ in range(4000))]
        assert np.mean(hits) >= 0.94, n  # ≥ 0.95 up to the Monte-Carlo error (sd 0.0035)
    assert median_interval([1.0, 2.0, 3.0, 4.0, 5.0]) == (1.0, 5.0)  # n < 6: the range (coverage 15/16)


def test_strict_profiles_need_quote_basis_and_three_seeds(tmp_path):
    c = Claims("demo", "cpu", directory=tmp_path)
    with pytest.raises(ValueError, match="quote"):
        c.claim("a", ref="Fig. 1", quantity="q", per_seed=[1, 2, 3], expected=at_least(0))
    with pytest.raises(ValueError, match="at least 3"):
        c.claim("b", ref="Fig. 1", quantity="q", per_seed=[1, 2], expected=at_least(0), quote=QUOTE, basis=BASIS)
    with pytest.raises(ValueError, match="exactly one"):
        c.claim("c", ref="Fig. 1", quantity="q", expected=at_least(0), quote=QUOTE, basis=BASIS)
    ok = c.claim("d", ref="Fig. 1", quantity="q", per_seed=[1, 2, 3], expected=at_least(0), quote=QUOTE, basis=BASIS)
    assert ok.verdict == "held"
    # at smoke the same claim may rest on one seed and no quote
    Claims("demo", "smoke", directory=tmp_path).claim("e", ref="Fig. 1", quantity="q", per_seed=[1],
                                                      expected=at_least(0))


def test_consistency_checks_are_counted_apart(tmp_path):
    c = Claims("demo", "cpu", directory=tmp_path)
    c.claim("paper", ref="Fig. 1", quantity="q", per_seed=[1, 2, 3], expected=at_least(0), quote=QUOTE, basis=BASIS)
    c.claim("identity", ref="Eq. 3", quantity="|lhs − rhs|", measured=1e-15, expected=at_most(1e-9),
            kind="consistency", basis="Eq. 3 is an identity of the model's definition")
    assert c.summary() == {"held": 1, "failed": 0, "known-deviation": 0, "undecided": 0, "vacuous": 0}
    table = markdown_table(c.records)
    assert "Consistency checks" in table and table.index("| `identity`") > table.index("Consistency checks")
    assert "the paper's words" in table and "the argument for the bound" in table
    with pytest.raises(ValueError, match="kind"):
        c.claim("x", ref="Fig. 1", quantity="q", measured=1, expected=at_least(0), kind="tautology", basis=BASIS)


def test_paper_item_status_from_its_claims(tmp_path):
    c = Claims("demo", "smoke", directory=tmp_path)
    h = c.claim("h", ref="Fig. 1", quantity="q", measured=1.0, expected=at_least(0))
    f = c.claim("f", ref="Fig. 1", quantity="q", measured=-1.0, expected=at_least(0))
    u = c.claim("u", ref="Fig. 2", quantity="q", per_seed=[NOT_OBSERVED], expected=at_least(0))
    k = c.claim("k", ref="Eq. 1", quantity="q", measured=1.0, expected=at_least(0), kind="consistency")
    assert item_status([h]) == "reproduced" and item_status([h, f]) == "partly"
    assert item_status([f]) == "not reproduced" and item_status([u]) == "not observed"
    assert item_status([]) == "absent" and item_status([k]) == "absent"


def test_weak_lists_fragile_held_claims(tmp_path):
    c = Claims("demo", "cpu", directory=tmp_path)
    c.claim("close", ref="Fig. 1", quantity="q", per_seed=[1.02, 1.5, 2.0], expected=at_least(1.0),
            quote=QUOTE, basis=BASIS)
    c.claim("sturdy", ref="Fig. 1", quantity="q", per_seed=[3.0, 4.0, 5.0], expected=at_least(1.0),
            quote=QUOTE, basis=BASIS, no_control="a property no run lacks")
    c.claim("split", ref="Fig. 1", quantity="q", per_seed=[3.0, 0.5, 5.0, 4.0, 6.0], expected=at_least(1.0),
            quote=QUOTE, basis=BASIS, rule=seeds_at_least(4))  # 5 seeds: a straddle may decide
    c.check("old", "Fig. 2", "older form", 3.0, at_least(1.0))
    c.claim("found", ref="Fig. 4", quantity="q", per_seed=[3.0, 4.0, 5.0], expected=at_least(1.0), kind="finding",
            basis=BASIS, no_control="a share, not an effect")  # a finding quotes no paper: not fragile for that
    fragile = {cl.id: why for cl, why in weak(c.records)}
    assert set(fragile) == {"close", "split", "old"}
    assert "within 5%" in fragile["close"][0] and "other side" in fragile["split"][0]
    assert any("no quote" in w for w in fragile["old"])


def test_the_chapter_table_opens_with_each_paper_items_status(tmp_path):
    from companion.claims import item_statuses

    c = Claims("ch", "smoke", tmp_path)
    c.claim("a", ref="Fig. 1", quantity="x", measured=1.0, expected=at_least(0.5))
    c.claim("b", ref="Fig. 2 / Table 1", quantity="y", measured=0.1, expected=at_least(0.5))
    c.claim("c", ref="Fig. 2", quantity="z", measured=1.0, expected=at_least(0.5))
    c.claim("d", ref="Fig. 3", quantity="identity", measured=1.0, expected=at_least(0.5), kind="consistency")
    text = item_statuses(c.records)
    lines = {line.split("</span> ")[0].rsplit(">", 1)[1]: line.split("</span> ")[1] for line in text.splitlines()
             if line.startswith("- ")}
    assert lines == {"reproduced": "Fig. 1", "partly": "Fig. 2", "not reproduced": "Table 1"}
    assert "Fig. 3" not in text  # consistency checks alone give an item no status
    assert text in c.table().data


def test_diff_of_two_builds_puts_gating_flips_first(tmp_path):
    """Two seed sets of one chapter: a held claim that fails in B is a gating flip; one that is undecided
    in B is a gating flip too (it was decided in A); a value that moved with its verdict is listed apart."""
    kw = dict(ref="Fig. 1", quantity="q", expected=at_least(1.0), quote=QUOTE, basis=BASIS)
    a, b = Claims("demo", "cpu", directory=tmp_path / "a"), Claims("demo", "cpu", directory=tmp_path / "b")
    a.claim("flip", per_seed=[1.2, 1.3, 1.4], **kw)
    b.claim("flip", per_seed=[0.2, 0.3, 0.4], **kw)
    a.claim("straddle", per_seed=[1.2, 1.3, 1.4], **kw)
    b.claim("straddle", per_seed=[1.2, 0.3, 1.4], **kw)
    a.claim("moved", per_seed=[1.2, 1.3, 1.4], **kw)
    b.claim("moved", per_seed=[1.5, 1.3, 1.4], **kw)
    a.claim("same", per_seed=[1.2, 1.3, 1.4], **kw)
    b.claim("same", per_seed=[1.2, 1.3, 1.4], **kw)
    a.claim("nan", per_seed=[float("nan")] * 3, **kw)  # the same nothing measured twice has not moved
    b.claim("nan", per_seed=[float("nan")] * 3, **kw)
    changes = {c.id: c for c in diff(a.records, b.records)}
    assert changes["flip"].verdicts == ("held", "failed") and changes["flip"].gating_flip
    assert changes["straddle"].verdicts == ("held", "undecided") and changes["straddle"].gating_flip
    assert changes["moved"].moved and not changes["moved"].flipped
    assert not (changes["same"].moved or changes["same"].flipped)
    assert not changes["nan"].moved
    text, gating = diff_text(tmp_path / "a", tmp_path / "b")
    assert gating == 2 and text.index("demo/flip") < text.index("demo/moved")
    assert "5 claims: 2 gating flips, 0 other flips, 1 moved, 2 identical" in text


def test_a_value_from_draws_whose_interval_crosses_the_bound_is_undecided(tmp_path):
    """One value computed from draws (a mean) with its 95% interval over them: deciding needs the interval
    on one side of the bound; a known deviation too (it would flip with another set of draws)."""
    kw = dict(ref="§3.1.3", quantity="dev", expected=at_most(0.10), quote=QUOTE, basis=BASIS)
    c = Claims("demo", "cpu", directory=tmp_path)
    assert c.claim("clear", measured=0.05, interval=(0.03, 0.08), **kw).verdict == "held"
    crossing = c.claim("crossing", measured=0.05, interval=(0.03, 0.16), **kw)
    assert crossing.verdict == "undecided" and "0.03 to 0.16" in crossing.undecided
    dev = c.claim("dev", measured=0.2, interval=(0.008, 0.3), known_deviation="a reduced profile", **kw)
    assert dev.verdict == "undecided"
    assert c.claim("fail", measured=0.2, interval=(0.15, 0.3), **kw).verdict == "failed"
    assert Claims("demo", "smoke", directory=tmp_path).claim("s", measured=0.05, interval=(0.03, 0.16),
                                                            **kw).verdict == "held"
    # a two-sided bound: an interval with both ends outside it that spans it is undecided, not failed
    two = dict(kw, expected=within(2.0, 0.25))
    assert c.claim("spans", measured=4.2, interval=(1.0, 8.0), **two).verdict == "undecided"
    assert c.claim("beyond", measured=4.2, interval=(3.0, 8.0), **two).verdict == "failed"


def test_the_bootstrap_interval_of_a_mean_covers_it_at_about_its_level():
    """Coverage by simulation against the known mean of normal draws (n = 30 draws, 200 samples): a
    percentile bootstrap of the mean covers the true mean in about 95% of samples (here ≥ 88%)."""
    from companion.claims.expectations import bootstrap_interval

    rng = np.random.default_rng(1)
    hits = 0
    for i in range(200):
        draws = 2.0 + rng.standard_normal(30)
        lo, hi = bootstrap_interval(draws, np.mean, n=400, seed=i)
        hits += lo <= 2.0 <= hi
    assert hits >= 176


def test_the_mean_over_seeds_is_their_mean_with_an_interval_inside_their_range_and_needs_every_seed():
    from companion.claims import mean_over_seeds
    from companion.events import NOT_OBSERVED

    mean, (lo, hi) = mean_over_seeds([0.5, -0.2, 0.4, 0.1, 0.7])
    assert mean == pytest.approx(0.3) and -0.2 <= lo < 0.3 < hi <= 0.7
    assert mean_over_seeds([0.5, NOT_OBSERVED, 0.4]) == (NOT_OBSERVED, None)  # a seed that never got there
    assert mean_over_seeds([0.5, 0.4]) == (NOT_OBSERVED, None)  # fewer than three seeds


# --------------------------------------------------------------------------- controls
def _controlled(tmp_path, run, control, rule=ALL_SEEDS, expected=None):
    from companion.claims import ControlRun

    claims = Claims("ch", "cpu", tmp_path)
    return claims.claim("c", ref="Fig. 1", quantity="delay", per_seed=run, rule=rule,
                        expected=expected or at_least(5), quote="well past", basis="an argument",
                        control=ControlRun("90% of the pairs", "no delay", per_seed=control))


def test_a_claim_whose_control_fails_in_every_seed_is_held(tmp_path):
    c = _controlled(tmp_path, [20, 31, 24], [3.4, 3.2, NOT_OBSERVED])
    assert c.verdict == "held" and c.controls[0]["seeds_held"] == 0 and not c.controls[0]["passes"]


def test_a_claim_whose_control_passes_too_is_vacuous_not_held(tmp_path):
    c = _controlled(tmp_path, [20, 31, 24], [6.0, 7.0, 8.0])
    assert c.verdict == "vacuous" and "does not need the paper's effect" in c.vacuous
    assert item_status([c]) == "not reproduced"  # a vacuous claim never counts as held
    assert _controlled(tmp_path / "m", [20, 31, 24], [1.0, 6.0, 7.0], rule=MEDIAN).verdict == "vacuous"


def test_a_control_that_meets_the_bound_in_some_seeds_leaves_the_claim_undecided(tmp_path):
    c = _controlled(tmp_path, [20, 31, 24], [3.0, 6.0, 2.0])
    assert c.verdict == "undecided" and "1 of 3 seeds" in c.undecided


def test_a_control_does_not_rescue_a_claim_that_fails(tmp_path):
    assert _controlled(tmp_path, [2, 3, 4], [1, 1, 1]).verdict == "failed"


def test_controls_survive_the_sidecar_and_show_in_the_table(tmp_path):
    _controlled(tmp_path, [20, 31, 24], [3.4, 3.2, NOT_OBSERVED])
    (c,) = load_claims(tmp_path)
    assert c.controls[0]["name"] == "90% of the pairs" and c.controls[0]["per_seed"][:2] == [3.4, 3.2]
    table = markdown_table([c])
    assert "control (90% of the pairs): 0/3 meet the bound" in table and "Control: 90% of the pairs — no delay" in table


def test_weak_lists_a_held_claim_from_trained_runs_with_no_control_and_no_reason(tmp_path):
    claims = Claims("ch", "cpu", tmp_path)
    kw = dict(ref="Fig. 1", quantity="q", per_seed=[1.0, 1.0, 1.0], expected=at_least(0.5), quote="q", basis="b")
    bare = claims.claim("bare", **kw)
    excused = claims.claim("excused", no_control="a property of the closed form: no run lacks it", **kw)
    reasons = {c.id: why for c, why in weak([bare, excused])}
    assert any("no control" in w for w in reasons["bare"]) and "excused" not in reasons


def test_signed_changes_fail_on_growth_and_on_a_wiggle_below_their_size():
    from companion.claims import falls_by, rises_by

    falls = falls_by(0.1)
    assert falls.holds(0.75) and falls.holds(0.9)
    assert not falls.holds(0.99) and not falls.holds(1.0) and not falls.holds(2.1)  # a wiggle, no change, growth
    assert not falls.holds(NOT_OBSERVED)
    rises = rises_by(0.1)
    assert rises.holds(2.1) and not rises.holds(1.05) and not rises.holds(0.5)
    assert str(falls) == "falls by ≥ 10% (ratio ≤ 0.9)"
    with pytest.raises(ValueError):
        falls_by(1.5)
