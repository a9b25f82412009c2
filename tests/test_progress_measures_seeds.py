"""The progress_measures chapter's commutativity split, onsets and per-seed claim values, on
synthetic histories and a tiny split (no training)."""

import numpy as np
import pytest
import torch

from companion.events import NOT_OBSERVED


def _hist(test_acc, **kw):
    step = np.arange(0, 10 * len(test_acc), 10)
    test_acc = np.asarray(test_acc, float)
    return {"step": step, "train_acc": np.r_[0.5, np.ones(len(step) - 1)], "test_acc": test_acc,
            "test_loss": 1 - test_acc, **kw}


def test_mirror_split_marks_exactly_the_test_pairs_whose_mirror_trained():
    from companion.data.modular import modular_split
    from companion.experiments import progress_measures as ex

    run = ex.Run(p=11, op="add", train_frac=0.5)
    data = modular_split(11, "add", 0, "random", 0, 0.5, 0)
    mask = ex.mirror_split(run, data)
    train = set(map(tuple, data.train_x[:, :2].tolist()))
    want = [(b, a) in train for a, b in data.test_x[:, :2].tolist()]
    assert mask.tolist() == want and 0.3 < mask.float().mean() < 0.7  # about α of the test pairs
    assert ex.mirror_split(ex.Run(p=11, op="sub"), data) is None  # x − y is not commutative
    assert ex.mirror_split(ex.Run(p=11, op="add", offset=3), data) is None  # tokens (i, j + k): no mirror pair


def test_onset_reads_the_mirror_untrained_pairs_and_is_not_observed_when_never_reached():
    from companion.experiments import progress_measures as ex

    plateau = _hist([0, 0.5, 0.96, 0.97, 0.98], acc_mirror_out=np.array([0, 0.1, 0.3, 0.96, 1.0]))
    assert ex.onset(plateau) == 30.0  # not 20, where plain test accuracy (commutativity included) crosses
    assert ex.onset(_hist([0, 0.5, 0.96])) == 20.0  # no split (x − y): every test pair
    assert ex.onset(_hist([0, 0.5, 0.6], acc_mirror_out=np.zeros(3))) is NOT_OBSERVED


def test_fig5_claims_read_the_seeds_that_grok_and_the_prime_with_the_most_seeds(monkeypatch):
    """A seed that never reaches the onset is a control, never a case; a kept page with fewer seeds at some primes
    claims the prime that has the most; the control pool counts a run two figures share once and skips a figure
    with no kept runs."""
    from companion.experiments import progress_measures as ex
    from companion.experiments.progress_measures import sweeps
    from companion.store import kept

    loss = np.array([1.0, 0.9, 0.8, 0.7])
    groks, stalls = _hist([0, 0.5, 0.96, 0.99], train_loss=loss), _hist([0, 0.3, 0.4, 0.5], train_loss=loss)
    assert ex.grokked([groks, stalls, groks]) == [groks, groks]
    assert ex.grokked([groks, stalls, groks], False) == [stalls]
    assert ex.most_seeded({47: [groks], 97: [groks, stalls, groks], 211: [stalls]}) == 97
    other = _hist([0, 0.2, 0.1, 0.3], train_loss=loss / 2)

    def not_kept(*a):
        raise kept.NotKept("widths", None)

    nodecay = _hist([0, 0.01, 0.02, 0.01], train_loss=loss / 3)
    monkeypatch.setattr(sweeps, "without_weight_decay", lambda base, seeds, device, p=None: [nodecay, groks])
    monkeypatch.setattr(sweeps, "primes_seeded", lambda cfg, device: {97: [groks, stalls], 47: [other]})
    monkeypatch.setattr(sweeps, "widths_seeded", not_kept)
    monkeypatch.setattr(sweeps, "structured_seeded",
                        lambda cfg, device: {("random", 0.2): [dict(stalls), other], ("toeplitz", 0.2): [other]})
    cfg = {"fig5": ex.config("fig5", "cpu"), "widths": ex.config("widths", "cpu"),
           "fig20": sweeps.replace(ex.config("fig20", "cpu"), base=ex.Run(p=97))}
    pool = ex.nongrokking_at(97, cfg, "cpu")
    # the runs without weight decay that never grok first; the shared run once, the toeplitz arm never
    assert len(pool) == 3 and pool[0] is nodecay and pool[1] is stalls and pool[2] is other


def test_downward_steps_ignore_the_trend():
    from companion.experiments import progress_measures as ex

    assert ex.downward_steps(_hist([0, 0.5, 0.9, 0.95, 1.0]), 10) == 0.0  # a monotone climb
    assert ex.downward_steps(_hist([0, 0.9, 0.7, 1.0, 0.8]), 10) == pytest.approx(0.4)
    assert ex.downward_steps(_hist([0, 0.5, 0.6]), 10) is NOT_OBSERVED


def test_med_tracking_compares_with_the_baselines_and_checks_the_level():
    from companion.experiments import progress_measures as ex

    acc = np.array([0, 0, 0.2, 0.6, 0.96, 1.0, 1.0])
    loss = 1 - acc
    h = _hist(acc, test_loss=loss, med=np.array([1, 2, 1.8, 1.5, 1.2, 1.1, 1.05]), wnorm2=loss ** 2 + 1,
              gini=acc.copy())
    t = ex.med_tracking([h])
    assert t["gini_full"][0] == pytest.approx(1.0)  # the Gini rises as the loss falls: its −r counts
    assert t["margin_full"][0] == pytest.approx(t["med_full"][0] - 1.0)
    assert t["end_over_start"][0] == pytest.approx(1.05)  # ends above its start
    assert t["recovered"][0] == pytest.approx((2 - 1.05) / (2 - 1))
    assert ex.tracking(h, "missing") != ex.tracking(h, "missing")  # nan for a measure a kept result lacks


def test_plateau_gain_is_the_last_quarters_trend_not_its_endpoint_difference():
    """On a ramp the last quarter's trend gain is the ramp's rise over that quarter, with or
    without alternating ±0.04 evaluation noise; on a flat curve with that noise it is near zero,
    although single points 0.08 apart lie in the quarter."""
    from companion.experiments.progress_measures.holes import last_quarter_gain

    step = np.arange(0, 820, 20.0)
    noise = 0.04 * (-1.0) ** np.arange(len(step))
    assert last_quarter_gain(step, 0.001 * step) == pytest.approx(0.001 * (800 - 600))
    assert last_quarter_gain(step, 0.001 * step + noise) == pytest.approx(0.2, abs=0.02)
    assert abs(last_quarter_gain(step, 0.5 + noise)) < 0.01


def test_plateau_criterion_discounts_the_trends_own_noise():
    """The trend's standard error against numpy's covariance of the fit; a steady climb stays
    'rising' (its error is tiny), while a flat curve with ±0.04 noise whose last points happen
    to be high is not: its gain is within twice its error."""
    from companion.experiments.progress_measures.holes import last_quarter_trend, rising_beyond_noise

    step = np.arange(0, 820, 20.0)
    rng = np.random.default_rng(0)
    noisy = 0.4 + 0.04 * rng.standard_normal(len(step))
    gain, se = last_quarter_trend(step, noisy)
    last = step >= 600
    (slope, _), cov = np.polyfit(step[last], noisy[last], 1, cov=True)
    assert gain == pytest.approx(slope * 200) and se == pytest.approx(np.sqrt(cov[0, 0]) * 200)
    assert rising_beyond_noise(step, 0.001 * step) == pytest.approx(0.2)
    flat_high_end = 0.4 + 0.04 * (-1.0) ** np.arange(len(step))
    flat_high_end[-2:] += 0.06
    assert last_quarter_trend(step, flat_high_end)[0] > 0.02 > rising_beyond_noise(step, flat_high_end)


def test_a_ceiling_is_read_only_from_runs_that_levelled_off():
    """Fig. 10's ceiling: a run whose best mirror-untrained accuracy still rose by more than 0.01 over its
    last quarter has no ceiling yet, so the width gain is not observed; two levelled runs give the
    difference of their bests. Thm 3.5's control contrasts the width that generalised with the one that
    did not, whichever it is, and has no value where both or neither did."""
    from companion.experiments import progress_measures as ex

    def run(untrained, spread_end):
        a = np.asarray(untrained, float)
        return _hist(a, acc_mirror_out=a, class_spread=np.linspace(1.0, spread_end, len(a)))

    climbing = run(np.linspace(0, 0.8, 9), 0.5)
    flat_low = run([0, .02, .03, .03, .03, .03, .03, .03, .03], 0.9)
    flat_high = run([0, .3, .7, .97, .99, .99, .99, .99, .99], 0.2)
    assert not ex.levelled(climbing) and ex.levelled(flat_low) and ex.levelled(flat_high)
    widths = {("Fig. 10", 32): [flat_low, flat_low, flat_high], ("Fig. 10", 64): [climbing, flat_high, flat_high]}
    w = ex.width_ceilings(widths, "Fig. 10")
    assert w["gain"][0] is NOT_OBSERVED and w["gain"][1] == pytest.approx(0.96) and w["gain"][2] == 0
    assert w["spread_gap"][0] is NOT_OBSERVED  # neither generalised (0.8 < 0.95)
    assert w["spread_gap"][1] == pytest.approx(0.9 - 0.2)  # d 64 generalised, d 32 did not
    assert w["spread_gap"][2] is NOT_OBSERVED  # both generalised: no contrast
    swapped = ex.width_ceilings({("Fig. 10", 32): [flat_high], ("Fig. 10", 64): [flat_low]}, "Fig. 10")
    assert swapped["spread_gap"][0] == pytest.approx(0.9 - 0.2)  # the narrow one generalised: still non − gen
    # the chapter's texts, formatted from these numbers
    from companion.figures import progress_measures_seeds as sfigs

    text = sfigs.ceiling_deviation(w, 800)
    assert "in 800 epochs 3 of 3 d_model 32 runs and 2 d_model 64 runs levelled off" in text
    note = sfigs.thm35_control_note(w, w["spread"][32], w["spread"][64]).data
    assert "d_model 32 no, no, yes, d_model 64 no, yes, yes" in note and "not observed, 0.7, not observed" in note


def test_thm310_near_minus_far_is_read_at_the_best_epoch_and_at_memorisation():
    """The best epoch is where mirror-untrained accuracy peaks (not the end); memorisation where train accuracy
    first reaches 0.99; the bins of one hole run split its mirror-untrained test pairs without overlap."""
    from dataclasses import replace

    from companion.experiments import progress_measures as ex
    from companion.experiments.progress_measures.runs import NEAR_BINS

    h = {"step": np.array([0.0, 10, 20, 30]), "train_acc": np.array([0.1, 1.0, 1.0, 1.0]),
         "acc_mirror_out": np.array([0.0, 0.05, 0.9, 0.4]), "acc_near_2": np.array([0.0, 0.1, 1.0, 0.5]),
         "acc_near_4": np.array([0.0, 0.0, 0.8, 0.4]), "acc_near_6-8": np.array([0.0, 0.0, 0.5, 0.3]),
         "acc_near_10+": np.array([0.0, 0.02, 0.1, 0.2])}
    assert ex.near_profile(h) == {"2": 1.0, "4": 0.8, "6-8": 0.5, "10+": 0.1}
    assert ex.near_profile(h, "fit")["2"] == 0.1 and ex.near_profile(h, "fit")["10+"] == 0.02
    run = replace(ex.config("table1", "smoke").base, p=13, shape="square", hole=6)
    data, _, _, extra = ex.setup_run(run, "cpu")
    untrained = int((~ex.mirror_split(run, data)).sum())
    assert sum(extra[f"n_near_{n}"] for n, _, _ in NEAR_BINS) == untrained  # every pair in one bin (even distances)


def test_table1_claims_leave_out_a_seed_whose_largest_hole_still_climbs():
    """A U-Acc read mid-climb is a lower bound: the fall from the smallest to the largest square keeps a seed whose
    smallest square still rises (that only widens the fall) and drops one whose largest still rises."""
    from companion.experiments import progress_measures as ex

    step = np.arange(0, 410, 10.0)

    def run(final, climbing):
        acc = np.where(step < 300, final, final + (0.1 * (step - 300) / 100 if climbing else 0.0))
        return {"step": step, "train_acc": np.r_[0.5, np.ones(len(step) - 1)], "test_acc": acc,
                "acc_mirror_out": acc, "acc_hole": acc / 2, "acc_rest_out": np.ones(len(step)),
                "mirror_in_share": 0.4, "hole_mirror_in_share": 0.0}

    holes = {("square", 10): [run(0.8, True), run(0.8, False), run(0.8, False)],
             ("square", 20): [run(0.2, False), run(0.2, True), run(0.2, False)]}
    t = ex.holes_seeds(holes)
    assert t["levelled"][("square", 10)] == [False, True, True]
    assert t["levelled"][("square", 20)] == [True, False, True]
    lo, hi, fall = t["falls"]["square"]
    assert (lo, hi) == (10, 20) and fall == pytest.approx([0.9 - 0.2, 0.6])  # seed 1 (largest climbing) left out
    assert len(t["hole_minus_rest"]) == 2 and t["hole_minus_rest_sym"] == [0.0, 0.0]
    assert {(k, i) for k, i, _ in t["still_rising"]} == {(("square", 10), 0), (("square", 20), 1)}


@pytest.mark.parametrize("model", ["mlp", "transformer"])
def test_a_run_trained_alone_has_the_bits_it_has_in_a_batch(isolated, model):
    """A build's values must not depend on its cache's history or its worker count: a modular run
    computed alone (a worker, a figure that needs only it) equals the same run trained beside others
    (a figure's batch), bit for bit. With companion.train.train for the lone run they differed in the
    last bits of the losses (cpu profile, Fig. 4's DNN: best test accuracy 0.04606 against 0.04458)."""
    from dataclasses import replace

    from companion.experiments import progress_measures as ex
    from companion.experiments.progress_measures.runs import modular_run, modular_runs

    base = ex.configs("cpu", 0)["fig4"].base
    run = replace(base, model=model, train=replace(base.train, steps=40), eval_every=10)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as every process of a build (profiles.threads)
    try:
        alone = modular_run.__wrapped__(replace(run, seed=1))
        batch = modular_runs([replace(run, seed=s) for s in (0, 1, 2)])[1]
    finally:
        torch.set_num_threads(threads)
    for key in ("train_loss", "test_loss", "test_acc", "med"):
        assert np.array_equal(alone[key], batch[key]), key
