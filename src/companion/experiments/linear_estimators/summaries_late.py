"""What the linear-estimators chapter reports and checks for Figs. 4–8, §3.1.3 and the statements
the exact theory decides (pure functions of plain result dicts, each returning a small frozen
dataclass); Figs. 1–3 and Eq. 11 are in :mod:`.summaries`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.events import NOT_OBSERVED, first_crossing, observed
from companion.expectations import bootstrap_interval
from companion.experiments.linear_estimators.summaries import LATE_T, increasing, seen, worst
from companion.theory import linear_estimators as theory

BIG_DOUT = 1200  # Fig. 7: d_out ≥ BIG_DOUT starts below the loss threshold


@dataclass(frozen=True)
class Fig4Run:
    """One two-layer run (seed 0): simulated and theory t*, initial loss."""

    t_tr: float
    t_gen: float
    theory: tuple  # (t*_tr, t*_gen) of the corrected Eq. 18
    loss0: float
    loss0_theory: float
    rel_err: float  # max over t*_tr, t*_gen of |sim/theory − 1|


@dataclass(frozen=True)
class Fig4Summary:
    """Fig. 4: every run (seed 0 in ``runs``) and, per seed, the numbers checked."""

    runs: dict  # (d_h, activation) -> Fig4Run of seed 0
    d_h_big: int
    d_h_small: int
    rel_err_big: list  # per seed: max over activations and t* of |sim/theory − 1| at d_h_big
    rel_err_small: list  # the same at d_h_small
    tanh_vs_linear: list  # per seed: max over d_h and t* of |t*_tanh/t*_linear − 1|
    loss0_big: list  # per seed: initial loss of the linear run at d_h_big
    loss0_theory_big: float
    gen_over_tr: list  # per seed: min over runs of t*_gen/t*_tr
    h0: list  # per seed: h(0) = ½(‖S₀‖² + ‖S₁‖²) of the linear run at d_h_big (Eq. 17)
    h_drift: list  # per seed: max over t and runs of |h(t)/h(0) − 1| at d_h_big
    step_resolution: float  # the largest relative gap between evaluation steps near the t* checked
    d_in: int | None  # input dimension of the runs (None: not recorded)


def _t(step, acc, thr):
    """First evaluation step with accuracy ≥ thr, or NOT_OBSERVED."""
    return first_crossing(step, acc, thr)


def fig4(res: dict) -> Fig4Summary:
    """Summary of :func:`~companion.experiments.linear_estimators.networks.fig4`."""
    thr = res["thr"]
    per: dict = {}  # (d_h, act) -> list over seeds of (t_tr, t_gen)
    runs = {}
    for d_h, r in res["runs"].items():
        tr, te = np.asarray(r["train_acc"]), np.asarray(r["test_acc"])  # (S, A, n)
        for i, act in enumerate(r["activations"]):
            per[(d_h, act)] = [(_t(r["step"], tr[s, i], thr), _t(r["step"], te[s, i], thr)) for s in range(tr.shape[0])]
            t_tr, t_gen = per[(d_h, act)][0]
            runs[(d_h, act)] = Fig4Run(t_tr=t_tr, t_gen=t_gen, theory=r["theory_t"][:2],
                                      loss0=float(np.asarray(r["train_loss"])[0, i, 0]),
                                      loss0_theory=r["loss0_theory"],
                                      rel_err=_rel(per[(d_h, act)][0], r["theory_t"]))
    big, small = max(res["runs"]), min(res["runs"])
    n = len(per[(big, "linear")])
    acts = ("linear", "tanh")

    def rel_at(d_h):
        return [worst([_rel(per[(d_h, a)][s], res["runs"][d_h]["theory_t"]) for a in acts]) for s in range(n)]
    tanh_lin = [worst([abs(per[(d, "tanh")][s][k] / per[(d, "linear")][s][k] - 1)
                       if observed(per[(d, "tanh")][s][k]) and observed(per[(d, "linear")][s][k]) else NOT_OBSERVED
                       for d in res["runs"] for k in (0, 1)]) for s in range(n)]
    rb = res["runs"][big]
    loss, h = np.asarray(rb["train_loss"]), np.asarray(rb["h"])  # (S, A, n)
    steps = np.asarray(rb["step"], float)
    ts = [t for v in per.values() for pair in v for t in pair if observed(t) and t > 0]
    gaps = [np.min(steps[steps >= t]) / max(np.max(steps[steps < t]), 1) - 1 for t in ts if (steps < t).any()]
    return Fig4Summary(
        runs=runs, d_h_big=big, d_h_small=small, rel_err_big=rel_at(big), rel_err_small=rel_at(small),
        tanh_vs_linear=tanh_lin, loss0_big=[float(loss[s, 0, 0]) for s in range(n)],
        loss0_theory_big=rb["loss0_theory"],
        gen_over_tr=[NOT_OBSERVED if any(not observed(t) for p in per.values() for t in p[s])
                     else float(min(p[s][1] / p[s][0] for p in per.values())) for s in range(n)],
        h0=[float(h[s, 0, 0]) for s in range(n)],
        h_drift=[float(np.max(np.abs(h[s] / h[s][:, :1] - 1))) for s in range(n)],
        step_resolution=float(max(gaps, default=float("nan"))), d_in=res.get("d_in"))


def _rel(pair: tuple, theory_t) -> float:
    """max over (t*_tr, t*_gen) of |sim/theory − 1|, NOT_OBSERVED if either was not reached."""
    if not all(observed(t) for t in pair):
        return NOT_OBSERVED
    return float(max(abs(pair[0] / theory_t[0] - 1), abs(pair[1] / theory_t[1] - 1)))


@dataclass(frozen=True)
class Fig5Summary:
    """Fig. 5: late-time forms against the exact losses."""

    eq21: float  # max rel. error for t ≥ LATE_T
    eq22: float
    eq10_below_rising: bool
    eq10_ratio_end: float
    eq10_ratio_end_if_below_rising: float  # nan unless exact/Eq. 10 stays below 1 and rises


def fig5(res: dict) -> Fig5Summary:
    """Summary of :func:`~companion.experiments.linear_estimators.teacher_student.fig5`."""
    late = res["t"] >= LATE_T
    r10 = res["gen"] / res["eq10"]
    below_rising = bool(np.all(r10 < 1) and increasing(r10))
    return Fig5Summary(eq21=float(np.max(np.abs(res["train"][late] / res["eq21"][late] - 1))),
                       eq22=float(np.max(np.abs(res["gen"][late] / res["eq22"][late] - 1))),
                       eq10_below_rising=below_rising, eq10_ratio_end=float(r10[-1]),
                       eq10_ratio_end_if_below_rising=float(r10[-1]) if below_rising else float("nan"))


@dataclass(frozen=True)
class Fig6Summary:
    """Fig. 6: the loss floors at the largest σ², simulated against the corrected theory."""

    sigma2: float
    train_floor: float
    test_floor: float
    train_floor_theory: float  # σ²(1−λ)
    test_floor_theory: float  # σ²λ/(1−λ)
    train_floor_over_sigma2: float
    test_floor_over_sigma2: float
    train_floor_per_seed: list  # per seed: late train loss at σ²
    test_floor_per_seed: list  # per seed: late generalisation loss at σ²
    rel_err_all_t: float
    test_acc_end: float
    test_acc_theory: float


def fig6(res: dict) -> Fig6Summary:
    """Summary of :func:`~companion.experiments.linear_estimators.teacher_student.fig6`."""
    s2 = max(res["runs"])
    r = res["runs"][s2]
    tr, gen = float(r["sim"]["train_loss"][:, -1].mean()), float(r["sim"]["test_loss"][:, -1].mean())
    ftr, fgen = r["floors"]
    ok = r["corrected"]["train_loss"] > 0
    rel_all = max(float(np.max(np.abs(r["sim"][f"{q}_loss"].mean(0)[ok] / r["corrected"][f"{q}_loss"][ok] - 1)))
                  for q in ("train", "test"))
    return Fig6Summary(sigma2=s2, train_floor=tr, test_floor=gen, train_floor_theory=ftr, test_floor_theory=fgen,
                       train_floor_over_sigma2=tr / s2, test_floor_over_sigma2=gen / s2, rel_err_all_t=rel_all,
                       train_floor_per_seed=[float(v) for v in r["sim"]["train_loss"][:, -1]],
                       test_floor_per_seed=[float(v) for v in r["sim"]["test_loss"][:, -1]],
                       test_acc_end=float(r["sim"]["test_acc"][:, -1].mean()),
                       test_acc_theory=float(theory.accuracy(fgen, res["eps"])))


@dataclass(frozen=True)
class Fig7Summary:
    """Fig. 7: the no-grokking region and the shape of Δt(d_out)."""

    white_fraction_centre: float
    gamma_c: np.ndarray  # per λ: first γ with Δt = ∞
    gamma_c_nonincreasing: bool
    zero_big_dout: bool
    right_unimodal: bool
    unimodal_and_zero_big: bool


@np.errstate(invalid="ignore")
def fig7(res: dict) -> Fig7Summary:
    """Summary of :func:`~companion.experiments.linear_estimators.teacher_student.fig7`."""
    inf = ~np.isfinite(res["centre"])
    gc = [res["gamma"][np.argmax(row)] if row.any() else np.inf for row in inf]
    r = res["right"]
    big = res["dout"] >= BIG_DOUT
    unimodal = all(increasing(row[:np.argmax(row) + 1]) and bool(np.all(np.diff(row[np.argmax(row):]) <= 0))
                   for row in r)
    zero_big = bool(np.all(r[:, big] == 0)) if big.any() else False
    return Fig7Summary(white_fraction_centre=float(inf.mean()), gamma_c=np.array(gc),
                       gamma_c_nonincreasing=bool(np.all(np.diff(gc) <= 0)), zero_big_dout=zero_big,
                       right_unimodal=unimodal, unimodal_and_zero_big=bool(unimodal and zero_big))


@dataclass(frozen=True)
class Fig8Summary:
    """Fig. 8: modular-addition grokking times per draw against α, their trend and the test of the
    (λ* − λ)⁻² form against an exponential and a power law."""

    alpha: np.ndarray  # ascending
    lam: np.ndarray  # λ = 2/(αp) per α
    dt: np.ndarray  # (S, n_α) Δt per draw and α (NaN: not observed)
    dt_mean: np.ndarray  # per α, over the draws where observed
    best_test_acc: list  # per seed: the lowest over α of the best test accuracy reached
    worst_test_err: list  # per seed: the highest over α of the lowest test error (1 − accuracy) reached
    trend_p: list  # per seed: one-sided p-value of Spearman's ρ(λ, Δt) > 0 (NOT_OBSERVED: a Δt missing)
    delta_aic: list  # per seed: n·ln(SSE_rival/SSE_paper) of the log fits (NOT_OBSERVED: too few Δt)
    lam_star: list  # per seed: fitted λ*
    fit: dict  # the (λ* − λ)⁻² fit of the seed-mean Δt (for the figure)
    steps: int  # the run budget


@np.errstate(invalid="ignore")
def fig8(res: dict) -> Fig8Summary:
    """Summary of :func:`~companion.experiments.linear_estimators.networks.fig8`."""
    from scipy import stats

    from companion.experiments.linear_estimators.networks import fit_divergence

    m = res["mod"]
    order = np.argsort(m["alpha"])
    dt = np.asarray(res["dt"], float)[:, order]
    lam = np.asarray(m["lam"])[order]
    trend = []
    for row in dt:
        trend.append(NOT_OBSERVED if not np.all(np.isfinite(row))
                     else float(stats.spearmanr(lam, row, alternative="greater").pvalue))
    mean = np.array([np.nanmean(c) if np.isfinite(c).any() else np.nan for c in dt.T])
    return Fig8Summary(
        alpha=np.asarray(m["alpha"])[order], lam=lam, dt=dt, dt_mean=mean,
        best_test_acc=[float(np.min(np.max(a, -1))) for a in np.asarray(m["test_acc"])],
        worst_test_err=[float(np.max(1 - np.max(a, -1))) for a in np.asarray(m["test_acc"])],
        trend_p=trend, delta_aic=[seen(f["delta_aic"]) for f in res["forms"]],
        lam_star=[f["fit"]["lam_star"] for f in res["forms"]], fit=fit_divergence(lam, mean), steps=res["steps"])


@dataclass(frozen=True)
class Fig8BelowSummary:
    """App. G below α = 0.5: whether the test accuracy reaches the threshold within Fig. 8's budget."""

    alpha: np.ndarray
    lam: np.ndarray  # λ = 2/(αp)
    first_gen: list  # per seed: the earliest step over α at which test accuracy ≥ thr (NOT_OBSERVED: none)
    best_test_acc: list  # per seed: the highest over α of the best test accuracy reached
    best_train_acc: list  # per seed: the lowest over α of the best train accuracy reached (the net does fit)
    steps: int
    thr: float
    p: int  # modulus


def fig8_below(res: dict) -> Fig8BelowSummary:
    """Summary of :func:`~companion.experiments.linear_estimators.networks.fig8_below`."""
    m = res["mod"]
    t_te = np.asarray(m["t_te"], float)  # (S, n_α), NaN: not observed
    return Fig8BelowSummary(
        alpha=np.asarray(m["alpha"]), lam=np.asarray(m["lam"]),
        first_gen=[float(np.nanmin(row)) if np.isfinite(row).any() else NOT_OBSERVED for row in t_te],
        best_test_acc=[float(np.max(a)) for a in np.asarray(m["test_acc"])],
        best_train_acc=[float(np.min(np.max(a, -1))) for a in np.asarray(m["train_acc"])],
        steps=res["steps"], thr=res["thr"], p=res["p"])


@dataclass(frozen=True)
class InitSummary:
    """§3.1.3: the student initialised at αS₀ against the paper's rescaling of the losses."""

    alpha: float
    factor: float  # (1 + α²)/2
    loss_dev: list  # per seed: max over t, train and test of |L_α/L_1 / factor − 1|
    loss_dev_mean: float  # the same for the ratio of the seed-mean losses
    loss_dev_mean_interval: tuple  # its 95% bootstrap interval over the draws
    dt_ratio: list  # per seed: simulated Δt at αS₀ / exact Δt at ε' = 2ε/(1 + α²)
    dt_eff: float  # exact Δt at ε'
    dt_unscaled: float  # exact Δt at ε


def max_abs_mean_dev(draws: np.ndarray) -> float:
    """max over columns of |mean over draws (rows) − 1|: a ratio's largest departure from 1 in the mean."""
    return float(np.max(np.abs(draws.mean(0) - 1)))


def init_rescaling(res: dict) -> InitSummary:
    """Summary of :func:`~companion.experiments.linear_estimators.teacher_student.init_rescaling`."""
    dev = np.maximum(np.abs(res["ratio_train"] / res["factor"] - 1), np.abs(res["ratio_test"] / res["factor"] - 1))
    dt = res["sim_scaled"]["dt"]
    draws = np.concatenate([res["ratio_train"], res["ratio_test"]], axis=1) / res["factor"]
    return InitSummary(alpha=res["alpha"], factor=res["factor"], loss_dev=[float(v) for v in dev.max(1)],
                       loss_dev_mean=max_abs_mean_dev(draws),
                       loss_dev_mean_interval=bootstrap_interval(draws, max_abs_mean_dev),
                       dt_ratio=[seen(v / res["theory_eff"][2]) if np.isfinite(v) else NOT_OBSERVED for v in dt],
                       dt_eff=res["theory_eff"][2], dt_unscaled=res["theory_unscaled"][2])


@dataclass(frozen=True)
class TheorySummary:
    """Statements decided by the exact theory (see ``teacher_student.theory_checks``)."""

    over_lam: float
    over_gamma: float
    over_gen_inf: float  # Eq. 38 at λ > 1: L_gen(t → ∞)
    over_half_null: float  # ½(1 − 1/λ)
    over_t_gen: object  # t*_gen there (NOT_OBSERVED: never)
    wd_lam: float
    eq15_dt: float  # the paper's Eq. 15 Δt
    wd_dt0: float  # exact Δt without WD
    wd_dt_range: tuple  # exact Δt over γ below γ_c (min, max)
    eq15_best_ratio: float  # Eq. 15 / exact Δt, the value closest to 1 over γ < γ_c
    wd_rise: float  # exact Δt at the largest γ < γ_c / Δt(γ = 0)
    gamma_c: float
    flat_small: float  # max over γ ≤ 1e-4 of |Δt(γ)/Δt(0) − 1|
    lam1_t_gen: object  # exact t*_gen at λ = 1 (NOT_OBSERVED: never)
    lam1_dt: object
    lambert_err: float  # max over λ and (tr, gen) of |t_W/t_exact − 1|
    dout_zero: int  # smallest d_out with Δt = 0 (λ = 0.5)
    dout_zero_chi2: int  # smallest d_out whose accuracies start above thr (χ²)
    dt_dout1000: float  # exact Δt at d_out = 1000
    eps: float
    thr: float


def theory_checks(r: dict) -> TheorySummary:
    """Summary of :func:`~companion.experiments.linear_estimators.teacher_student.theory_checks`."""
    o, w = r["overparam"], r["wd"]
    fin = np.isfinite(w["dt"])
    ratios = w["eq15"] / w["dt"][fin]
    return TheorySummary(
        over_lam=o["lam"], over_gamma=o["gamma"], over_gen_inf=o["gen_inf"], over_half_null=o["half_null"],
        over_t_gen=seen(o["t_gen"]), wd_lam=w["lam"], eq15_dt=w["eq15"], wd_dt0=w["dt0"],
        wd_dt_range=(float(w["dt"][fin].min()), float(w["dt"][fin].max())),
        eq15_best_ratio=float(ratios[np.argmin(np.abs(ratios - 1))]), wd_rise=float(w["last_finite"] / w["dt0"]),
        gamma_c=w["gamma_c"], flat_small=w["flat_small"], lam1_t_gen=seen(r["lam1"]["t_gen"]),
        lam1_dt=seen(r["lam1"]["dt"]), lambert_err=r["lambert_err"], dout_zero=r["dout_zero"],
        dout_zero_chi2=r["dout_zero_chi2"], dt_dout1000=r["dt_dout1000"], eps=r["eps"], thr=r["thr"])
