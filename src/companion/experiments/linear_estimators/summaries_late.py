"""What the linear-estimators chapter reports and checks for Figs. 4–8, §3.1.3 and the statements
the exact theory decides (pure functions of plain result dicts, each returning a small frozen
dataclass); Figs. 1–3 and Eq. 11 are in :mod:`.summaries`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.claims.expectations import bootstrap_interval
from companion.events import NOT_OBSERVED, first_crossing, observed, worst
from companion.experiments.linear_estimators.networks import exponent_profile, fit_divergence
from companion.experiments.linear_estimators.summaries import LATE_T, increasing, seen
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
    gen_over_tr_rel: list  # per seed: max over runs of |(t*_gen/t*_tr) / Eq. 18's − 1|
    gen_over_tr_theory: tuple  # Eq. 18's t*_gen/t*_tr over the runs (min, max)
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
        gen_over_tr_rel=[NOT_OBSERVED if any(not observed(t) for p in per.values() for t in p[s])
                         else float(max(abs(p[s][1] / p[s][0] / _delay(res["runs"][d]["theory_t"]) - 1)
                                        for (d, _), p in per.items())) for s in range(n)],
        gen_over_tr_theory=(float(min(r["theory_t"][1] / r["theory_t"][0] for r in res["runs"].values())),
                            float(max(r["theory_t"][1] / r["theory_t"][0] for r in res["runs"].values()))),
        h0=[float(h[s, 0, 0]) for s in range(n)],
        h_drift=[float(np.max(np.abs(h[s] / h[s][:, :1] - 1))) for s in range(n)],
        step_resolution=float(max(gaps, default=float("nan"))), d_in=res.get("d_in"))


def _delay(theory_t) -> float:
    """t*_gen / t*_tr of a theory (t*_tr, t*_gen, …)."""
    return theory_t[1] / theory_t[0]


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

    @property
    def train_floor_interval(self) -> tuple:
        """95% interval of the mean late train loss over the draws (:func:`mean_interval`)."""
        return mean_interval(self.train_floor_per_seed)

    @property
    def test_floor_interval(self) -> tuple:
        """95% interval of the mean late generalisation loss over the draws (:func:`mean_interval`)."""
        return mean_interval(self.test_floor_per_seed)


def mean_interval(values: list, level: float = 0.95) -> tuple:
    """Student-t interval of the mean of a few draws: mean ± t_{n−1}·s/√n (a bootstrap of three draws would
    be far too narrow)."""
    from scipy import stats

    x = np.asarray(values, float)
    half = stats.t.ppf((1 + level) / 2, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x)) if len(x) > 1 else np.inf
    return float(x.mean() - half), float(x.mean() + half)


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
    exponent: float  # k of the free-exponent fit C(λ* − λ)^(−k) to every draw's Δt
    exponent_interval: tuple  # its 95% profile-likelihood interval
    exponent_open: bool = False  # the interval reaches the top of the fit's grid of k: the data bound k below only

    @property
    def n_finite(self) -> int:
        """Finite Δt over all draws and α (the points of the exponent's fit)."""
        return int(np.isfinite(self.dt).sum())


@np.errstate(invalid="ignore")
def fig8(res: dict) -> Fig8Summary:
    """Summary of :func:`~companion.experiments.linear_estimators.networks.fig8`."""
    from scipy import stats

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
        lam_star=[f["fit"]["lam_star"] for f in res["forms"]], fit=fit_divergence(lam, mean), steps=res["steps"],
        **dict(zip(("exponent", "exponent_interval", "exponent_open"),
                   (lambda e: (e["k"], e["interval"], e["open"]))(exponent_profile(lam, dt)))))


@dataclass(frozen=True)
class Fig8BelowSummary:
    """App. G below α = 0.5: whether the test accuracy reaches the threshold within Fig. 8's budget."""

    alpha: np.ndarray
    lam: np.ndarray  # λ = 2/(αp)
    first_gen: list  # per seed: the earliest step over α at which test accuracy ≥ thr (NOT_OBSERVED: none)
    control_alpha: np.ndarray  # α ≥ gen_from trained beside them (the paper's lowest, which it says generalise)
    control_first_gen: list  # per seed: the same over the control α
    worst_test_err: list  # per seed: the highest over the α below gen_from of the lowest test error reached
    best_test_acc: list  # per seed: the highest over α of the best test accuracy reached
    best_train_acc: list  # per seed: the lowest over α of the best train accuracy reached (the net does fit)
    steps: int
    thr: float
    p: int  # modulus


def fig8_below(res: dict) -> Fig8BelowSummary:
    """Summary of :func:`~companion.experiments.linear_estimators.networks.fig8_below`."""
    m = res["mod"]
    alpha = np.asarray(m["alpha"])
    below = alpha < res.get("gen_from", np.inf)
    t_te = np.asarray(m["t_te"], float)  # (S, n_α), NaN: not observed

    def first(rows):
        return [float(np.nanmin(row)) if np.isfinite(row).any() else NOT_OBSERVED for row in rows]
    return Fig8BelowSummary(
        alpha=alpha[below], lam=np.asarray(m["lam"])[below], first_gen=first(t_te[:, below]),
        control_alpha=alpha[~below], control_first_gen=first(t_te[:, ~below]),
        worst_test_err=[float(np.max(1 - np.max(a[below], -1))) for a in np.asarray(m["test_acc"])],
        best_test_acc=[float(np.max(a[below])) for a in np.asarray(m["test_acc"])],
        best_train_acc=[float(np.min(np.max(a[below], -1))) for a in np.asarray(m["train_acc"])],
        steps=res["steps"], thr=res["thr"], p=res["p"])


@dataclass(frozen=True)
class InitSummary:
    """§3.1.3: the student initialised at αS₀ against the paper's rescaling of the losses, and the shifts of
    t*_tr and t*_gen that the rescaling predicts (ε → ε' = 2ε/(1 + α²))."""

    alpha: float
    factor: float  # (1 + α²)/2
    n: int  # runs
    loss_dev: float  # max over t, train and test of |mean L_αS₀ / mean L_S₀ / factor − 1|
    loss_dev_interval: tuple  # its 95% bootstrap interval over the runs
    shift: dict  # "t_tr"|"t_gen" -> t* of the αS₀ arm's mean loss / t* of the S₀ arm's (at ε)
    shift_interval: dict  # "t_tr"|"t_gen" -> its 95% bootstrap interval
    predicted: dict  # "t_tr"|"t_gen" -> exact t* at ε' / exact t* at ε
    agreement: float  # the shift / predicted farthest from 1 (t_tr or t_gen)
    agreement_interval: tuple  # its 95% interval (the farther of the two, per resample)
    ignored: float  # the same for a run that ignored α (shift 1): 1/predicted, farthest from 1


def ratio_of_means_dev(draws: np.ndarray) -> float:
    """max over trailing axes of |mean over draws of the first half / mean of the second − 1| for draws stacked
    (S, 2, …): arm 0 over arm 1."""
    return float(np.max(np.abs(draws[:, 0].mean(0) / draws[:, 1].mean(0) - 1)))


def init_rescaling(res: dict) -> InitSummary:
    """Summary of :func:`~companion.experiments.linear_estimators.teacher_student.init_rescaling`."""
    draws = np.stack([np.stack([res["scaled"][q] / res["factor"], res["base"][q]], axis=1)
                      for q in ("train", "test")], axis=2)  # (S, arm, q, T)
    shift, interval, pred = {}, {}, {}
    for k, key in enumerate(("t_tr", "t_gen")):
        s = np.asarray(res["cross_scaled"][key]) / np.asarray(res["cross_base"][key])  # (1 + B,)
        shift[key], interval[key] = float(s[0]), tuple(float(x) for x in np.quantile(s[1:], [0.025, 0.975]))
        pred[key] = res["theory_eff"][k] / res["theory"][k]
    per = np.stack([np.asarray(res["cross_scaled"][k]) / np.asarray(res["cross_base"][k]) / pred[k]
                    for k in pred])  # (2, 1 + B)
    far = per[np.argmax(np.abs(per - 1), axis=0), np.arange(per.shape[1])]  # per resample, the one farther from 1
    return InitSummary(alpha=res["alpha"], factor=res["factor"], n=len(res["base"]["train"]),
                       loss_dev=ratio_of_means_dev(draws),
                       loss_dev_interval=bootstrap_interval(draws, ratio_of_means_dev),
                       shift=shift, shift_interval=interval, predicted=pred, agreement=float(far[0]),
                       agreement_interval=tuple(float(x) for x in np.quantile(far[1:], [0.025, 0.975])),
                       ignored=float(min((1 / v for v in pred.values()), key=lambda r: -abs(r - 1))))


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
