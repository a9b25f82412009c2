"""The synthesis chapter's library: configs and profiles, the one quadratic MLP of two papers, the
squared-error trainer, the clocks and criteria on synthetic histories, the figures, and one
smoke-size run's shapes."""

from dataclasses import replace

import numpy as np
import pytest
import torch

from companion.claims import Claims
from companion.events import NOT_OBSERVED, observed
from companion.experiments import synthesis as ex
from companion.experiments.synthesis import record, settings
from companion.figures import synthesis as figures


def test_every_profile_has_every_setting_and_validates():
    for profile, table in ex.PROFILES.items():
        assert set(ex.CLOCK_SETTINGS) <= set(table), profile
        for name, cfg in table.items():
            assert cfg.kind in name or name == "transformer" and cfg.kind == "transformer"
    with pytest.raises(ValueError, match="setting kind"):
        ex.Setting(kind="resnet")
    with pytest.raises(ValueError, match="weak model"):
        ex.Setting(kind="fnn_transfer")  # a transfer target needs the weak model it transfers from
    with pytest.raises(ValueError, match="task"):
        replace(ex.PAPER["fnn_transfer"], p=97)  # the weak model's task must be the target's


def test_quadratic_mlp_is_levi_eq43_at_alpha_1_and_kumar_scaling_otherwise():
    """Levi et al. Eq. 43: W₂(W₁x/√(2p))²/d_h; Kumar et al. App. 8.3: s²/(D N) W₂(W₁x)²."""
    from companion.models.quadratic_mlp import QuadraticMLP, quadratic_mlp

    p, d_h = 7, 5
    m = QuadraticMLP(p, d_h, alpha=1.0, seed=3)
    x = torch.tensor([[0, 1], [3, 6], [2, 2]])
    levi = quadratic_mlp(m.W1[None], m.W2[None], x[:, 0], x[:, 1], p)[0].T  # (n, p)
    torch.testing.assert_close(m(x), levi)
    s = 3.0
    k = QuadraticMLP(p, d_h, alpha=s, seed=3)
    onehot = torch.cat([torch.nn.functional.one_hot(x[:, 0], p), torch.nn.functional.one_hot(x[:, 1], p)], 1).float()
    kumar = s ** 2 / (2 * p * d_h) * ((onehot @ k.W1.T) ** 2) @ k.W2.T
    torch.testing.assert_close(k(x), kumar)


def test_mse_trainer_matches_closed_form_gd_on_the_linear_student():
    """One GD step on L = (1/N)Σ‖Sᵀx − y‖² is S − η(2/N)Xᵀ(XS − Y)."""
    from companion.models.linear_teacher_student import LinearStudent
    from companion.train import TrainConfig
    from companion.train.synthesis import train_mse_batched

    g = torch.Generator().manual_seed(0)
    X, Y, S0 = torch.randn(6, 4, generator=g), torch.randn(6, 1, generator=g), torch.randn(4, 1, generator=g)
    split = settings.Regression(X, Y, X, Y)
    model = LinearStudent(S0)
    cfg = TrainConfig(steps=1, lr=0.1, weight_decay=0.0, optimizer="sgd", warmup=0, n_evals=2)
    h = train_mse_batched([model], [split], cfg, n_classes=None, acc_eps=1e-3)[0]
    S1 = S0 - 0.1 * (2 / 6) * X.T @ (X @ S0 - Y)
    torch.testing.assert_close(model.S.detach(), S1)
    assert h["train_loss"][0] == pytest.approx(float(((X @ S0 - Y) ** 2).sum(1).mean()), rel=1e-6)


def _hist(t_grok: float, steps=None, moves=True, lead=2.0) -> dict:
    """A synthetic grokking run: train accuracy at step 10, test accuracy at ``t_grok`` (0.9 at
    1.32·t_grok); a diagnostic that jumps at t_grok/lead (or never moves)."""
    s = np.unique(np.round(np.logspace(0, 4, 60))).astype(float) if steps is None else steps
    sig = 1 / (1 + np.exp(-(np.log(s) - np.log(t_grok)) * 8))
    diag = 1 / (1 + np.exp(-(np.log(s) - np.log(t_grok / lead)) * 8)) if moves else np.ones_like(s)
    return {"step": s, "train_acc": np.minimum(1, s / 10), "test_acc": sig,
            "train_loss": np.exp(-s / 10) + 1e-3, "test_loss": 1 - 0.9 * sig + 1e-3,
            "kernel_distance": diag, "alignment": diag, "param_sq": 10 - 5 * diag}


def test_a_diagnostic_whose_test_clock_never_arrives_is_not_applicable(tmp_path):
    flat = _hist(300)
    flat["test_acc"] = np.full_like(flat["test_acc"], 0.05)  # never generalises
    clocks = ex.all_clocks({"never": [flat] * 3})
    claims = Claims("synthesis", "cpu", directory=tmp_path)
    record.record_hypotheses(claims, clocks, ["never"], {"never": "never"})
    v = {c.id: c.verdict for c in claims.records}
    assert v["kernel_distance_never_50"] == "not applicable" and v["forecast_never"] == "not applicable"


def test_signed_diagnostics_do_not_cross_when_they_move_the_wrong_way():
    h = _hist(300)
    h["param_sq"] = 10 + h["kernel_distance"]  # Σ‖θ‖² grows: no fall to cross
    (c,) = ex.all_clocks({"grows": [h]})
    assert not observed(c.crossing[("param_sq", 0.5)]) and observed(c.crossing[("kernel_distance", 0.5)])


def test_clocks_and_pooled_criteria_on_synthetic_runs():
    runs = {"a": [_hist(300), _hist(1000), _hist(3000)], "b": [_hist(500, moves=False)] * 3}
    clocks = ex.all_clocks(runs)
    first = clocks[0]
    assert first.t_tr == 9 or first.t_tr == 10
    assert first.ratio("kernel_distance") == pytest.approx(0.5 / 1.32, rel=0.15)  # halfway at t_grok / 2
    assert not observed(clocks[3].crossing[("kernel_distance", 0.5)])  # a flat diagnostic never crosses
    c = ex.criteria(clocks, "kernel_distance")
    assert (c.n_grokking, c.n_crossed) == (6, 3)
    assert c.rank == pytest.approx(1.0)
    assert c.lead_upper < 0  # it leads by a factor 2 in every crossed run
    assert ex.per_seed(clocks, "a", "", "kernel_distance") == [x.ratio("kernel_distance") for x in clocks[:3]]


def test_hypotheses_are_recorded_for_every_setting_and_the_verdict_table_renders(tmp_path):
    # early groks in long runs (the null clocks, which know only t_tr = 10 and the end at 10⁴, land far from
    # t_test), late groks (the log-midpoint √(10·10⁴) ≈ 316 sits near t_test), and a diagnostic that never moves
    runs = {"transformer": [_hist(t, lead=1 / 1.32) for t in (30, 40, 50)],
            "late": [_hist(t, lead=1 / 1.32) for t in (240, 250, 260)], "linear": [_hist(500, moves=False)] * 3}
    clocks = ex.all_clocks(runs)
    claims = Claims("synthesis", "cpu", directory=tmp_path)
    labels = {k: k for k in runs}
    record.record_hypotheses(claims, clocks, list(runs), labels)
    record.record_pooled(claims, clocks)
    v = {c.id: c.verdict for c in claims.records}
    assert v["kernel_distance_transformer_50"] == "supported"  # halfway at t_test, every null ×4 or more away
    assert v["kernel_distance_late_50"] == "vacuous"  # on t_test too, but so is the log-midpoint null clock
    assert v["kernel_distance_linear_50"] == "refuted"  # never moves (its test clock arrived)
    assert all(c.kind == "hypothesis" for c in claims.records)
    assert "Kumar et al." in claims.verdict_table().data


def test_figures_take_points_with_not_observed_values():
    points = [{"setting": "a", "seed": 0, "diagnostic": "kernel_distance", "t_test": 100.0, "t_cross": 50.0,
               "hollow": False},
              {"setting": "a", "seed": 0, "diagnostic": "alignment", "t_test": 100.0, "t_cross": NOT_OBSERVED,
               "hollow": True},
              {"setting": "b", "seed": 1, "diagnostic": "param_sq", "t_test": NOT_OBSERVED, "t_cross": 30.0,
               "hollow": False}]
    assert figures.four_clocks(points, ["a", "b"]) is not None
    assert figures.setting_curves({"a": [_hist(300)]}) is not None


def test_smoke_runs_have_every_diagnostic_at_every_step(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path))
    cfg = replace(ex.setting("smoke", "quadratic"), n_seeds=2, train=replace(ex.setting("smoke", "quadratic").train,
                                                                              steps=20))
    hists = ex.clock_runs(cfg)
    assert len(hists) == 2
    for h in hists:
        n = len(h["step"])
        assert {"kernel_distance", "alignment", "med_invariant", "param_sq"} <= set(h)
        assert all(len(h[k]) == n for k in ex.DIAGNOSTICS)
        assert h["kernel_distance"][0] == pytest.approx(0.0, abs=1e-6)  # K₀ against itself


def test_forecast_ratio_is_infinite_when_the_test_loss_rises_at_t_tr_and_findings_count_it():
    """Levi et al.'s forecast needs a decaying test loss at t_tr; a rising one (memorisation) gives
    Δt̂ = inf, a ratio above 1: a dynamical transition, not a missing value."""
    h = _hist(1000)
    s = h["step"]
    h["test_loss"] = np.where(s < 300, 1 + s / 100, 1e-3 + 4 * np.exp(-(s - 300) / 500))
    c = ex.run_clocks(h, "transformer", 0)
    assert c.forecast == np.inf and c.forecast_ratio == np.inf and c.test_loss_rising
    pooled = [ex.criteria([c], "kernel_distance")]
    text = ex.findings([c], pooled)
    assert "Of the 1 grokking runs" in text and "1 show a dynamical transition" in text


def test_shifts_criterion_pairs_each_intervention_seed_with_its_base():
    """An intervention that halves t_grok: a diagnostic that moves with it shifts the right way in
    every pair; a flat one never does; pairs whose test clock does not move are not counted."""
    runs = {"base": [_hist(1000)] * 3, "faster": [_hist(300)] * 3, "same": [_hist(1000)] * 3,
            "flat": [_hist(300, moves=False)] * 3}
    clocks = ex.all_clocks(runs, {"faster": "base", "same": "base", "flat": "base"})
    share, n = ex.summaries.shifts(clocks, "kernel_distance", 0.5, {"faster": "base", "same": "base"})
    assert (share, n) == (1.0, 3)
    share, n = ex.summaries.shifts(clocks, "kernel_distance", 0.5, {"flat": "base"})
    assert (share, n) == (0.0, 3)
    assert not observed(ex.summaries.shifts(clocks, "kernel_distance", 0.5, {"same": "base"})[0])
    c = ex.criteria(clocks, "kernel_distance", interventions={"faster": "base", "flat": "base"})
    assert (c.shifts, c.n_shift_pairs, c.n_grokking) == (0.5, 6, 3)  # interventions are not grokking runs
    pts = ex.figure_points(clocks, hollow=("flat",))
    assert {p["setting"] for p in pts if p["hollow"]} == {"flat"}


def _with_med(h: dict) -> dict:
    return {**h, "med_invariant": h["alignment"] + 1}


def test_weight_decay_and_lazy_hypotheses_are_recorded_from_their_runs(tmp_path):
    runs = {"quadratic": [_with_med(_hist(t)) for t in (300, 1000, 3000)],
            "quadratic_alpha_small": [_with_med(_hist(t / 2)) for t in (300, 1000, 3000)],
            "quadratic_wd": [_with_med(_hist(t)) for t in (300, 1000, 3000)],
            "transformer": [_with_med(_hist(t)) for t in (300, 1000, 3000)],
            "transformer_wd0": [_with_med(_hist(1e6))] * 3,  # never reaches 0.9 in its 10⁴ steps
            "transformer_alpha_small": [_with_med(_hist(t * 2)) for t in (300, 1000, 3000)],  # a longer delay
            "transformer_wd0_alpha_small": [_with_med(_hist(t)) for t in (300, 1000, 3000)]}  # generalises
    clocks = ex.all_clocks(runs, ex.INTERVENTIONS)
    claims = Claims("synthesis", "cpu", directory=tmp_path)
    labels = {n: n for n in runs} | {"fnn_transfer": "transfer", "fnn_scratch": "scratch"}
    record.record_weight_decay(claims, runs, clocks, labels)
    lazy = {"fnn_transfer": {"test_acc": [0.03, 0.04, 0.05], "train_acc": [1.0] * 3, "chance": 1 / 113},
            "fnn_scratch": {"test_acc": [0.0] * 3, "train_acc": [1.0] * 3, "chance": 1 / 113}}
    record.record_lazy(claims, lazy, labels)
    v = {c.id: c.verdict for c in claims.records}
    assert v["wd_needed"] == "refuted"  # test accuracy reaches 0.9 without weight decay
    assert v["wd_norm_falls"] == "supported"  # param_sq = 10 − diag falls between the clocks
    assert v["wd_norm_grows"] == "refuted"
    assert v["wd_speeds"] == "refuted"  # the same runs: t_test(wd)/t_test = 1
    assert v["wd_alpha_shortens"] == "supported"
    assert v["wd_needed_transformer"] == "supported"  # the transformer never generalises without weight decay
    needed = next(c for c in claims.records if c.id == "wd_needed_transformer")
    assert "(runs of 10000 steps)" in needed.quantity  # "never" is read over the run's budget, and says so
    assert v["wd_norm_falls_transformer"] == "supported"
    assert v["wd_needed_transformer_alpha_small"] == "refuted"  # at the small α it generalises without weight decay
    assert v["wd_alpha_shortens_transformer"] == "refuted"  # the small α doubled every clock, the delay with it
    assert v["wd_norm_falls_transformer_alpha_small"] == "supported"
    assert not any(k.startswith("wd_speeds_t") or k.startswith("wd_norm_grows_t") for k in v)  # no clock to read
    assert (v["lazy_transfer_aligned"], v["lazy_transfer_features"], v["lazy_scratch_misaligned"]) == (
        "refuted", "supported", "supported")
    assert ex.norm_ratio(runs, clocks, "quadratic")[0] < 1
    table = ex.weight_decay_table(ex.profile_settings("cpu"), runs, clocks)
    assert "| quadratic_wd |" in table and "| transformer_wd0 | 0 | 1 (not centred) | 4000 |" in table
    assert "| transformer_alpha_small | 0.25 | 0.5 (centred) | 2000 |" in table  # λ·α²: the base's decay per step
    assert "kernel regression" in ex.lazy_summary(lazy, {})


def test_censored_fit_recovers_lambda_star_and_respects_censoring():
    """The (λ* − λ)⁻² fit of the critical-fraction test: exact data give λ* back; a run censored below
    the fit's prediction pulls λ* towards it (a longer delay there), one censored beyond λ* changes nothing."""
    import numpy as np

    from companion.events import observed
    from companion.experiments.synthesis.critical import censored_fit

    lam = np.array([0.10, 0.12, 0.14, 0.16])
    dt = 3.0 * (0.2 - lam) ** -2
    nan = np.full(4, np.nan)
    f = censored_fit(lam, dt, nan)
    assert abs(f["lam_star"] - 0.2) < 2e-3 and abs(f["C"] - 3.0) / 3.0 < 0.05
    beyond = censored_fit(np.r_[lam, 0.25], np.r_[dt, np.nan], np.r_[nan, 100.0])
    assert abs(beyond["lam_star"] - f["lam_star"]) < 1e-3  # (the λ* grid spans the λ run, so it moves slightly)
    noisy = dt * np.array([1.1, 0.9, 1.1, 0.9])
    base = censored_fit(lam, noisy, nan)
    pulled = censored_fit(np.r_[lam, 0.17], np.r_[noisy, np.nan], np.r_[nan, 1e6])
    assert 0.16 < pulled["lam_star"] < base["lam_star"]  # the run at 0.17 never generalising: λ* just above it
    assert not observed(censored_fit(lam[:2], dt[:2], nan[:2])["lam_star"])


def test_output_scaled_module_is_alpha_times_f_with_alpha_times_its_gradient():
    """Kumar et al. §3's output rescaling: α·f, the same parameters, the parameter gradient of any
    linear read-out of the output scaled by α (checked against f's own autograd)."""
    from companion.models.lazy_rich import OutputScaled

    f = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    g = OutputScaled(f, 3.0)
    x = torch.randn(5, 3, generator=torch.Generator().manual_seed(0))
    torch.testing.assert_close(g(x), 3.0 * f(x))
    assert [id(p) for p in g.parameters()] == [id(p) for p in f.parameters()]  # α is a buffer, not trained
    gf = torch.autograd.grad(f(x).sum(), list(f.parameters()))
    gg = torch.autograd.grad(g(x).sum(), list(g.parameters()))
    for a, b in zip(gf, gg):
        torch.testing.assert_close(b, 3.0 * a)


def test_small_alpha_transformer_is_centred_scaled_and_keeps_the_decay_per_step():
    """The transformer's small-α settings: α·(f − f₀) around the base's transformer (zero logits at
    initialisation, α times the base's logit change after a parameter change), AdamW's η/α² and λα²
    (ηλ unchanged), and the diagnostics read the inner model's embedding; the base is the plain
    transformer's function (tabulated), not centred."""
    from companion.experiments.synthesis.configs import ALPHA_SMALL
    from companion.experiments.synthesis.settings import build, embedding
    from companion.models.transformer import Transformer, TransformerConfig

    base, small = (ex.setting("smoke", n) for n in ("transformer", "transformer_alpha_small"))
    wd0 = ex.setting("smoke", "transformer_wd0_alpha_small")
    assert small.alpha == ALPHA_SMALL < 1 and wd0.alpha == ALPHA_SMALL and wd0.train.weight_decay == 0
    assert small.train.lr == pytest.approx(base.train.lr / ALPHA_SMALL ** 2)
    assert small.train.lr * small.train.weight_decay == pytest.approx(base.train.lr * base.train.weight_decay)
    (m_base, *_), (data, *_) = build(base)
    (m_small, *_), _ = build(small)
    plain = Transformer(TransformerConfig(p=base.p, d_model=base.width, d_mlp=4 * base.width), seed=base.seed)
    x = data.train_x[:32]
    assert torch.allclose(m_base(x), plain(x), atol=1e-5)  # the base: Nanda et al.'s function
    assert m_small(x).abs().max() < 1e-5  # centred: zero logits at initialisation
    assert torch.equal(embedding(m_small, small.p), m_small.model.W_E.detach()[:small.p])
    with torch.no_grad():
        f0 = m_small.model(x)
        m_small.model.W_U.mul_(1.5)
        assert torch.allclose(m_small(x), ALPHA_SMALL * (m_small.model(x) - f0), atol=1e-5)


def test_scaled_fnn_scales_the_learning_rate_by_one_over_alpha_and_keeps_the_decay_per_step():
    base = ex.setting("cpu", "fnn_scratch")
    for alpha in (0.3, 3.0):
        t = ex.ScaledFNN(base, alpha).train
        assert t.lr == pytest.approx(base.train.lr / alpha)
        assert t.lr * t.weight_decay == pytest.approx(base.train.lr * base.train.weight_decay)  # AdamW's ηλ
        assert (t.steps, t.n_evals, t.stop_after_test_acc, t.stop_patience) == (base.train.steps, base.train.n_evals,
                                                                                0.9, 0.0)
    with pytest.raises(ValueError, match="arm"):
        ex.ScaledFNN(ex.setting("cpu", "quadratic"), 3.0)
    with pytest.raises(ValueError, match="positive"):
        ex.ScaledFNN(base, 0.0)


def test_scaled_run_at_alpha_1_is_the_clock_run_up_to_its_stop(tmp_path, monkeypatch):
    """The α = 1 arm of laziness × transfer is the clock run: training the wrapped module at α = 1
    gives the clock run's history (the diagnostics do not touch training) on the steps both logged."""
    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path))
    cfg = replace(ex.setting("smoke", "fnn_scratch"), train=replace(ex.setting("smoke", "fnn_scratch").train, steps=30))
    clock = ex.clock_runs(cfg)
    scaled = ex.scaled_runs(ex.ScaledFNN(cfg, 1.0))
    for c, s in zip(clock, scaled):
        n = len(s["step"])
        np.testing.assert_array_equal(s["step"], c["step"][:n])
        np.testing.assert_allclose(s["train_loss"], c["train_loss"][:n], rtol=1e-5)
        np.testing.assert_allclose(s["test_acc"], c["test_acc"][:n])
        assert 0.0 <= s["kernel_distance_end"] <= 2.0
    i = len(scaled[0]["step"]) - 1  # where seed 0 stopped, the clock run's kernel distance at that step
    if i == len(clock[0]["step"]) - 1:
        assert scaled[0]["kernel_distance_end"] == pytest.approx(float(clock[0]["kernel_distance"][i]), abs=1e-4)


def test_laziness_hypotheses_are_recorded_seed_against_seed(tmp_path):
    """A lazier scratch arm (later test clock) and transfer arms that stay ×4 faster: Kumar et al.'s
    delay predictions and Xu et al.'s transfer ones are all supported; an arm that never reaches 0.9
    is not observed, never a long delay."""
    t = {("fnn_scratch", 0.3): 300, ("fnn_scratch", 1.0): 1000, ("fnn_scratch", 3.0): 3000,
         ("fnn_transfer", 0.3): 60, ("fnn_transfer", 1.0): 200, ("fnn_transfer", 3.0): 600}
    lruns = {k: [_hist(v), _hist(v), _hist(v)] for k, v in t.items()}
    clocks = ex.laziness_clocks(lruns)
    claims = Claims("synthesis", "cpu", directory=tmp_path)
    labels = {"fnn_scratch": "scratch", "fnn_transfer": "transfer"}
    record.record_laziness(claims, clocks, labels)
    v = {c.id: c.verdict for c in claims.records}
    assert v == {f"alpha_{k}": "supported" for k in ex.LAZINESS}
    assert "| fnn_transfer | 3 |" in ex.laziness_table(lruns, clocks, "cpu")
    lruns[("fnn_scratch", 3.0)] = [_hist(1e6)] * 3  # never reaches 0.9 within the logged steps
    claims = Claims("synthesis", "cpu", directory=tmp_path / "b")
    record.record_laziness(claims, ex.laziness_clocks(lruns), labels)
    c = {c.id: c for c in claims.records}["alpha_lazier_delays"]
    assert c.per_seed == [NOT_OBSERVED] * 3 and c.verdict != "supported"


def test_laziness_grid_runs_every_cell_at_cpu_and_paper_and_names_what_smoke_leaves_out():
    assert ex.laziness.not_run("paper") == [] and "Every cell" in ex.laziness_note("paper")
    assert ex.laziness.not_run("cpu") == [] and "Every cell" in ex.laziness_note("cpu")
    assert ex.laziness.not_run("smoke") == [("fnn_scratch", 0.3), ("fnn_transfer", 0.3)]
    note = ex.laziness_note("smoke")
    assert "`α: transfer_rich`" in note and "`α: richer_shortens`" in note
    assert "`α: transfer_lazy`" not in note and "`α: lazier_delays`" not in note


def test_a_pooled_criterion_a_null_clock_also_meets_is_vacuous(tmp_path):
    # every run groks at ~1.32·t and its diagnostic jumps exactly there: rank ρ = 1; the runs all end at 10⁴, so the
    # midpoint and log-midpoint nulls stand at one step and order nothing (ρ undefined), and the seeded random null
    # of setting "gu" orders them against the test clock (ρ = −0.7)
    runs = {"gu": [_hist(t, lead=1 / 1.32) for t in (30, 100, 300, 1000, 3000)]}
    clocks = ex.all_clocks(runs)
    nulls = ex.summaries.null_criteria(clocks, "kernel_distance", 0.5)
    assert set(nulls) == set(ex.summaries.NULLS) and nulls["midpoint"].defined == 1.0
    claims = Claims("synthesis", "cpu", directory=tmp_path)
    record.record_pooled(claims, clocks)
    v = {c.id: c for c in claims.records}
    assert v["defined_kernel_distance_50"].verdict == "vacuous"  # a null clock crosses in every run too
    assert "null clock" in v["defined_kernel_distance_50"].vacuous
    rank = v["rank_kernel_distance_50"]
    assert rank.measured == pytest.approx(1.0) and rank.verdict == "supported"  # no null orders the runs


def test_spearman_gives_ties_their_average_rank_as_scipy_does():
    from scipy.stats import spearmanr

    from companion.experiments.synthesis.summaries import _spearman

    rng = np.random.default_rng(0)
    for _ in range(50):
        a, b = rng.integers(0, 4, 9).astype(float), rng.integers(0, 5, 9).astype(float)
        expected = spearmanr(a, b).statistic
        got = _spearman(a, b)
        assert (np.isnan(got) and np.isnan(expected)) or got == pytest.approx(expected)
    assert np.isnan(_spearman([5.0, 5.0, 5.0], [1.0, 2.0, 3.0]))  # a clock at one step orders nothing


def test_uniformity_reads_each_med_where_the_finding_says():
    """The uniformity finding reads the transferred target's MED at its last step and the scratch target's at
    step 0 and at its own test clock (the step at which test accuracy first reaches 0.9), seed i against seed
    i; a scratch seed whose clock never arrived gives no ratio."""
    steps = np.array([0, 10, 20, 30])

    def run(acc, med):
        return {"step": steps, "test_acc": np.array(acc), "med_invariant": np.array(med)}

    scratch = [run([0.0, 0.2, 0.95, 1.0], [1.4, 1.3, 0.8, 0.7]), run([0.0, 0.1, 0.2, 0.3], [1.2, 1.2, 1.1, 1.0])]
    transfer = [run([0.0, 0.5, 0.8, 0.85], [0.3, 0.2, 0.1, 0.08]), run([0.0, 0.5, 0.92, 0.95], [0.4, 0.2, 0.1, 0.1])]
    no = NOT_OBSERVED
    clocks = [ex.RunClocks("fnn_scratch", 0, False, 20, 20, {}, no, 0, no, no, no, False),
              ex.RunClocks("fnn_scratch", 1, False, 20, no, {}, no, no, no, no, no, False),
              ex.RunClocks("fnn_transfer", 0, True, 20, no, {}, no, no, no, no, no, False),
              ex.RunClocks("fnn_transfer", 1, True, 20, 20, {}, no, 0, no, no, no, False)]
    u = ex.uniformity({"fnn_scratch": scratch, "fnn_transfer": transfer}, clocks)
    assert u.grokked[0] == 0.8 and not observed(u.grokked[1])
    assert u.transfer_ratio[0] == pytest.approx(0.08 / 0.8) and not observed(u.transfer_ratio[1])
    assert u.random_ratio[0] == pytest.approx(1.4 / 0.8)
    assert u.transfer_final_acc == [0.85, 0.95] and not observed(u.transfer_t_test[0]) and u.transfer_t_test[1] == 20
    assert "1 of 2 transferred targets reached 0.9" in ex.uniformity_summary(u)


def test_every_setting_of_the_four_clocks_gets_its_own_colour():
    """tab10 sampled at twelve points gave the transformer and Gu et al.'s run one blue."""
    colours = figures.distinct_colours(len(ex.ALL_SETTINGS))
    assert len(set(colours)) == len(ex.ALL_SETTINGS)
    assert figures.COLOURS["param_sq"] != figures.COLOURS["med_invariant"]


def test_linearised_quadratic_mlp_is_the_first_order_expansion_by_jvp():
    """f₀ + ∇f(θ₀)·Δ computed by forward-mode autodiff of the full net (torch.func.jvp), against the class's
    closed form; at θ₀ both nets agree and so do their gradients (the same tangent kernel)."""
    from torch.func import functional_call, jvp

    from companion.models.quadratic_mlp import LinearisedQuadraticMLP, QuadraticMLP

    p, d_h = 7, 12
    full, lin = QuadraticMLP(p, d_h, alpha=0.7, seed=3).double(), LinearisedQuadraticMLP(p, d_h, 0.7, seed=3).double()
    x = torch.cartesian_prod(torch.arange(p), torch.arange(p))
    torch.testing.assert_close(lin(x), full(x))
    g_full = torch.autograd.grad(full(x).square().sum(), [full.W1, full.W2])
    g_lin = torch.autograd.grad(lin(x).square().sum(), [lin.W1, lin.W2])
    for a, b in zip(g_full, g_lin):
        torch.testing.assert_close(a, b)
    theta0 = {k: v.detach().clone() for k, v in full.named_parameters()}
    delta = {k: 0.3 * torch.randn_like(v, generator=torch.Generator().manual_seed(1)) for k, v in theta0.items()}
    f0, df = jvp(lambda th: functional_call(full, th, (x,)), (theta0,), (delta,))
    with torch.no_grad():
        lin.W1 += delta["W1"]
        lin.W2 += delta["W2"]
    torch.testing.assert_close(lin(x), f0 + df)
    assert not torch.allclose(lin(x), functional_call(full, {k: theta0[k] + delta[k] for k in theta0}, (x,)))


def test_fourier_rows_are_a_regular_polygon_per_pair_and_the_shuffled_rows_the_same_cloud():
    import math

    from companion.measures.embedding import med_normalised
    from companion.models.quadratic_mlp import QuadraticMLP, fourier_rows

    p, d_h = 11, 9
    W = fourier_rows(p, d_h, seed=5).double()
    assert W.shape == (d_h, 2 * p) and W.square().mean().item() == pytest.approx(1.0, abs=0.07)
    U = W[: d_h - 1, :p]  # whole (cos, sin) pairs
    steps = (U.roll(-1, dims=1) - U).norm(dim=0)  # ‖u(a+1) − u(a)‖, a + 1 mod p
    assert torch.allclose(steps, steps[0].expand_as(steps))  # every token equidistant from its neighbour
    assert steps[0].item() == pytest.approx(math.sqrt(d_h - 1) * 2 * math.sin(math.pi / p))  # chord of the p-gon
    S = fourier_rows(p, d_h, seed=5, shuffled=True).double()
    torch.testing.assert_close(torch.linalg.svdvals(S[:, :p]), torch.linalg.svdvals(W[:, :p]))
    assert med_normalised(S[:, :p].T, p) > 2 * med_normalised(W[:, :p].T, p)
    random, uniform = QuadraticMLP(p, d_h, seed=2), QuadraticMLP(p, d_h, seed=2, init="fourier")
    torch.testing.assert_close(random.W2, uniform.W2)  # seed i against seed i: only the first layer differs
    with pytest.raises(ValueError, match="unit"):
        fourier_rows(12, 4, 0, k=2)
    with pytest.raises(ValueError, match="init"):
        ex.Setting(kind="transformer", init="fourier")


def test_the_three_interventions_are_recorded_against_their_controls(tmp_path):
    jump = _hist(300)
    slow = dict(_hist(300), test_loss=np.exp(-jump["step"] / 40.0))  # a loss trend fast enough for the climb
    runs = {"quadratic": [_with_med(_hist(t)) for t in (300, 1000, 3000)],
            "quadratic_wd": [_with_med(_hist(t)) for t in (300, 1000, 3000)],
            "quadratic_linearised": [_with_med(dict(_hist(1e6)))] * 3,  # fits, never generalises
            "quadratic_fourier": [_with_med(_hist(t * 2)) for t in (300, 1000, 3000)],  # later, not sooner
            "quadratic_fourier_wd": [_with_med(_hist(t / 2)) for t in (300, 1000, 3000)],  # sooner
            "quadratic_fourier_shuffled": [_with_med(_hist(t)) for t in (300, 1000, 3000)],
            "quadratic_fourier_shuffled_wd": [_with_med(_hist(t / 2)) for t in (300, 1000, 3000)],  # sooner too
            "slow": [slow] * 3}
    for h in runs["quadratic"]:
        h["alignment"] = h["alignment"] - 2  # a negative initial alignment: no ratio can say "more aligned"
    clocks = ex.all_clocks(runs, ex.INTERVENTIONS)
    claims = Claims("synthesis", "cpu", directory=tmp_path)
    labels = {n: n for n in runs}
    ex.record_threshold(claims, clocks, ["quadratic", "slow"], labels)
    ex.record_linearised(claims, clocks, labels)
    ex.record_fourier(claims, runs, clocks, labels)
    v = {c.id: c for c in claims.records}
    assert v["threshold_quadratic"].verdict == "refuted"  # the test loss falls too slowly for so sharp a climb
    assert v["threshold_slow"].verdict in ("supported", "vacuous") and v["threshold_slow"].controls
    assert v["linearised_no_grok"].verdict == "supported"
    assert v["linearised_no_grok"].controls[0]["seeds_held"] == 0  # the full network does reach 0.9
    assert v["uniform_init_sooner"].verdict == "refuted"
    assert v["uniform_init_sooner_wd"].verdict == "vacuous"  # the relabelled rows are as much sooner
    assert v["uniform_init_aligned_init"].verdict == "not applicable"
    assert "not positive" in v["uniform_init_aligned_init"].undecided
    assert "| quadratic_linearised | 0 |" in ex.interventions_table(runs, clocks)


def test_kumar_et_al_s_own_rule_scales_by_alpha_squared_and_is_recorded_apart(tmp_path):
    base = ex.setting("cpu", "fnn_scratch")
    for alpha in (0.3, 3.0):
        t = ex.ScaledFNN(base, alpha, "kumar").train
        assert t.lr == pytest.approx(base.train.lr / alpha ** 2)
        assert t.lr * t.weight_decay == pytest.approx(base.train.lr * base.train.weight_decay)  # AdamW's ηλ
    with pytest.raises(ValueError, match="rule"):
        ex.ScaledFNN(base, 3.0, "sgd")
    t = {("fnn_scratch", 0.3): 300, ("fnn_scratch", 1.0): 1000, ("fnn_scratch", 3.0): 3000}
    kruns = {k: [_hist(v)] * 3 for k, v in t.items()}
    clocks = ex.laziness_clocks(kruns, lr_rule="kumar")
    assert {c.setting for c in clocks} == {"fnn_scratch α=0.3, η₀/α²", "fnn_scratch α=1", "fnn_scratch α=3, η₀/α²"}
    claims = Claims("synthesis", "cpu", directory=tmp_path)
    record.record_laziness(claims, clocks, {"fnn_scratch": "scratch", "fnn_transfer": "transfer"}, lr_rule="kumar")
    v = {c.id: c.verdict for c in claims.records}
    assert v == {"alpha_lazier_delays_kumar_lr": "supported", "alpha_richer_shortens_kumar_lr": "supported"}
    assert "| fnn_scratch | 3 | 0.00133, 27 |" in ex.laziness_table(kruns, clocks, "cpu", lr_rule="kumar")
