"""What the linear-estimators chapter reports and checks, one summary per figure, computed from
the results of the experiments (pure functions of plain result dicts, each returning a small
frozen dataclass)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.claims.expectations import bootstrap_interval
from companion.events import NOT_OBSERVED, observed, worst
from companion.theory import linear_estimators as theory

LOW_LAM = 0.8  # Fig. 1: λ ≤ LOW_LAM is "low λ" (finite-size scatter of the lowest eigenvalues above it)
LOSS_FLOOR_PER_EPS = 1 / 40  # Fig. 2: losses compared only where theory ≥ ε/40
SMALL_DOUT = 0.1  # Fig. 2: d_out ≤ SMALL_DOUT·d_in, where Eq. 12's χ²_{d_out} accuracy (DᵀD ∝ I) can apply
BIG_DOUT = 1200  # Figs. 2, 7: d_out ≥ BIG_DOUT starts below the loss threshold (1/d_out < ε)
LATE_T = 1e3  # Fig. 5: "late" times for Eqs. 21, 22
EQ11_EPS = 1e-3  # Eq. 11 check: the paper's ε
EQ11_LAM = 0.5  # Eq. 11 check: the λ of the claims


def max_log_ratio(sim: np.ndarray, thy: np.ndarray, floor: float) -> float:
    """max |log₁₀(sim/theory)| over points where theory ≥ floor (and t > 0)."""
    ok = (thy >= floor) & (sim > 0)
    ok[0] = False
    return float(np.max(np.abs(np.log10(sim[ok] / thy[ok])))) if ok.any() else float("nan")


def listing(values, spec: str = ".3g") -> str:
    """Per-draw values as text for the chapter's prose: ``"0.1, 0.2, 0.3"``."""
    return ", ".join(format(v, spec) for v in values)


def seen(x):
    """A simulated event time or a quantity built from it: ∞ or NaN (never reached) → NOT_OBSERVED."""
    return float(x) if np.isfinite(x) else NOT_OBSERVED


def ratio_or_not(a: float, b: float):
    """a/b − 1 … as a/b, NOT_OBSERVED when a was never reached."""
    return float(a / b) if np.isfinite(a) else NOT_OBSERVED


def increasing(x) -> bool:
    """Strictly increasing."""
    x = np.asarray(x, float)
    return bool(np.all(np.diff(x) > 0))


@dataclass(frozen=True)
class Fig1Summary:
    """Fig. 1: simulated against exact Δt per λ (seed means) at the main ε, and the λ > 1 plateau."""

    lams: list
    sim_dt: np.ndarray
    theory_dt: np.ndarray
    eq11_ratio: np.ndarray  # Eq. 11 / exact Δt per λ
    max_rel_err_low: float  # λ ≤ LOW_LAM
    max_rel_err_high: float  # λ > LOW_LAM
    sim_increasing: bool
    theory_increasing: bool
    lam_hi: float  # the largest λ of the curves
    rel_err_low_per_seed: list  # per seed: max over λ ≤ LOW_LAM and both ε of |Δt_sim/Δt_exact − 1|
    rel_err_low_mean: float  # max over λ ≤ LOW_LAM and both ε of |mean over seeds of Δt_sim / Δt_exact − 1|
    plateau_per_seed: list  # per seed: late generalisation loss at lam_hi
    min_step_ratio: float  # smallest ratio of neighbouring exact Δt on the λ grid (how steeply it rises)
    plateau: float  # its late generalisation loss (seed mean)
    plateau_theory: float  # 1 − 1/λ
    eq25_nan_from: float | None  # the first λ where Eq. 25 is undefined (None: none)
    n_seeds: int  # draws per λ
    sim_dt_ratio: dict  # λ -> per draw Δt_sim / exact Δt at the paper's ε (finite draws only)


def fig1(res: dict) -> Fig1Summary:
    """Summary of :func:`~companion.experiments.linear_estimators.teacher_student.fig1`."""
    e = res["eps"]
    lams = sorted(res["sim_dt"])
    sim = np.array([np.mean(res["sim_dt"][lam][e]["dt"]) for lam in lams])
    thy = np.array([res["theory_at"][e][lam][2] for lam in lams])
    low = np.array(lams) <= LOW_LAM
    lam_hi = max(res["curves"])
    n_seeds = len(res["sim_dt"][lams[0]][e]["dt"])
    per_seed = [worst([abs(seen(res["sim_dt"][lam][ee]["dt"][s]) / res["theory_at"][ee][lam][2] - 1)
                       if np.isfinite(res["sim_dt"][lam][ee]["dt"][s]) else NOT_OBSERVED
                       for lam in lams if lam <= LOW_LAM for ee in res["sim_dt"][lam]]) for s in range(n_seeds)]
    eq25 = [theory.dt_eq25(lam, EQ11_EPS) for lam in lams]
    return Fig1Summary(
        lams=lams, sim_dt=sim, theory_dt=thy, eq11_ratio=theory.dt_eq11(np.array(lams)) / thy,
        max_rel_err_low=float(np.max(np.abs(sim[low] / thy[low] - 1))),
        max_rel_err_high=float(np.max(np.abs(sim[~low] / thy[~low] - 1))) if (~low).any() else float("nan"),
        sim_increasing=increasing(sim), theory_increasing=increasing(res["theory_dt"][e]), lam_hi=lam_hi,
        rel_err_low_per_seed=per_seed,
        rel_err_low_mean=float(max(abs(np.mean(res["sim_dt"][lam][ee]["dt"]) / res["theory_at"][ee][lam][2] - 1)
                                   for lam in lams if lam <= LOW_LAM for ee in res["sim_dt"][lam])),
        plateau_per_seed=[float(v) for v in res["curves"][lam_hi]["sim"]["test_loss"][:, -1]],
        min_step_ratio=float(np.min(thy[1:] / thy[:-1])),
        plateau=float(np.mean(res["curves"][lam_hi]["sim"]["test_loss"][:, -1])), plateau_theory=1 - 1 / lam_hi,
        eq25_nan_from=min((lam for lam, v in zip(lams, eq25) if not np.isfinite(v)), default=None), n_seeds=n_seeds,
        sim_dt_ratio={lam: [float(v / res["theory_at"][e][lam][2]) for v in res["sim_dt"][lam][e]["dt"]
                            if np.isfinite(v)] for lam in lams})


def log_ratios(sim: np.ndarray, thy: np.ndarray, floor: float) -> np.ndarray:
    """|log₁₀(sim/theory)| per seed (rows of ``sim``) and time, where theory ≥ floor (t > 0); NaN elsewhere."""
    ok = (thy >= floor) & (np.arange(len(thy)) > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.abs(np.log10(sim / thy))
    return np.where(ok, r, np.nan)


LOSS_TOL = 0.05  # Figs. 1, 2: losses agree when within 0.05 decades (12%)
DT_TOL = 0.15  # the chapter's agreement bound for simulated against exact grokking times


def draws_for_error(values, se: float) -> int:
    """How many draws make the standard error of the mean of ``values``-like draws ``se`` (sd²/se²)."""
    return int(np.ceil(np.var(values, ddof=1) / se ** 2)) if len(values) > 1 else 0


def worst_signed(ratios: list):
    """Of one seed's ratios (one per ε), the one farthest from 1; NOT_OBSERVED if any is not finite."""
    if not all(np.isfinite(r) for r in ratios):
        return NOT_OBSERVED
    return float(max(ratios, key=lambda r: abs(r - 1)))


@dataclass(frozen=True)
class Eq11Summary:
    """Eq. 11 / exact Δt against ε (the table) and the two numbers the chapter checks."""

    eps: np.ndarray
    ratios: dict  # λ -> ratio per ε
    ratio_at_paper_eps: float  # λ = EQ11_LAM, ε = EQ11_EPS
    limit_ratio: float  # λ = EQ11_LAM at the smallest ε if the ratio falls monotonically, else nan
    eq25_ratio: float  # Eq. 25 / exact Δt at λ = EQ11_LAM, ε = EQ11_EPS (NaN where Eq. 25 is undefined)

    @property
    def at_paper_eps(self) -> dict:
        """λ -> Eq. 11 / exact Δt at ε = EQ11_EPS."""
        i = int(np.argmin(np.abs(self.eps - EQ11_EPS)))
        return {lam: float(r[i]) for lam, r in self.ratios.items()}


def eq11(q: dict) -> Eq11Summary:
    """Summary of :func:`~companion.experiments.linear_estimators.teacher_student.eq11_ratios`."""
    r = q[EQ11_LAM]
    i = int(np.argmin(np.abs(q["eps"] - EQ11_EPS)))
    return Eq11Summary(eps=q["eps"], ratios={lam: v for lam, v in q.items() if lam not in ("eps", "eq25")},
                       eq25_ratio=float(q["eq25"][EQ11_LAM]),
                       ratio_at_paper_eps=float(r[i]),
                       limit_ratio=float(r[-1]) if bool(np.all(np.diff(r) < 0)) else float("nan"))


@dataclass(frozen=True)
class Fig2Summary:
    """Fig. 2: loss agreement per d_out (per seed), markers against theory, shape of Δt(d_out)."""

    log_ratio: dict  # d_out -> max |log₁₀(sim/theory)| (train and test, seed mean)
    log_ratio_per_seed: dict  # d_out -> per seed: max |log₁₀(sim/theory)| (train and test)
    marker_rel_err: float  # one draw per d_out (the figure's markers)
    peaks: dict  # λ -> d_out of the largest Δt
    unimodal: bool  # rises to one maximum, then does not rise again (every λ)
    zero_big: bool  # Δt = 0 for d_out ≥ BIG_DOUT
    unimodal_and_zero_big: bool
    worst_unimodal_step: float  # the largest relative rise after the maximum, or fall before it (0: none)
    peak_over_start: float  # min over λ of max Δt(d_out) / Δt(d_out = 1): how far the maximum rises


def unimodal_violation(dt: np.ndarray) -> float:
    """How far ``dt`` is from rising to one maximum and then not rising: the largest relative fall
    before the maximum or rise after it (0 when unimodal)."""
    k = int(np.argmax(dt))
    before, after = np.diff(dt[:k + 1]), np.diff(dt[k:])
    scale = max(float(np.max(dt)), 1e-300)
    return float(max([0.0, *(-before[before <= 0] / scale), *(after[after > 0] / scale)]))


def fig2(res: dict) -> Fig2Summary:
    """Summary of :func:`~companion.experiments.linear_estimators.teacher_student.fig2`."""
    floor = res["eps"] * LOSS_FLOOR_PER_EPS
    log_ratio = {d: max(max_log_ratio(c["sim"][f"{q}_loss"].mean(0), c["theory"][f"{q}_loss"], floor)
                        for q in ("train", "test")) for d, c in res["curves"].items()}
    per_seed = {d: [float(np.nanmax(np.stack([log_ratios(c["sim"][f"{q}_loss"], c["theory"][f"{q}_loss"], floor)[s]
                                              for q in ("train", "test")])))
                    for s in range(c["sim"]["train_loss"].shape[0])] for d, c in res["curves"].items()}
    m = res["markers"]
    rel = max((abs(m[d]["sim"]["dt"][0] / m[d]["theory"][2] - 1) for d in m), default=float("nan"))
    peaks = {lam: float(res["dout_grid"][np.argmax(dt)]) for lam, dt in res["theory_dt"].items()}
    viol = max(unimodal_violation(dt) for dt in res["theory_dt"].values())
    big = res["dout_grid"] >= BIG_DOUT
    zero_big = all(bool(np.all(dt[big] == 0)) for dt in res["theory_dt"].values())
    return Fig2Summary(log_ratio=log_ratio, log_ratio_per_seed=per_seed, marker_rel_err=float(rel), peaks=peaks,
                       unimodal=viol == 0, zero_big=zero_big, unimodal_and_zero_big=bool(viol == 0 and zero_big),
                       worst_unimodal_step=viol,
                       peak_over_start=float(min(np.max(dt) / dt[0] for dt in res["theory_dt"].values())))


@dataclass(frozen=True)
class Fig2MarkersSummary:
    """Fig. 2 (right) over several draws: simulated Δt(d_out) against Eq. 12."""

    lam: float
    douts: list
    ratio: dict  # d_out -> per seed Δt_sim/Δt_theory (NOT_OBSERVED if not reached)
    per_seed: list  # per seed: the ratio farthest from 1 over the d_out ≤ SMALL_DOUT·d_in
    small_douts: list  # those d_out
    median: dict  # d_out -> median ratio
    dt: dict  # d_out -> per seed simulated Δt
    peak: list  # per seed: the largest Δt of the inner d_out over the larger of Δt at the first and last d_out
    peak_control: list  # the same for the control (η ∝ d_out)
    control_dt: dict  # d_out -> per seed Δt of the control

    @property
    def dt_median(self) -> dict:
        """d_out -> median simulated Δt."""
        return {d: float(np.median(v)) for d, v in self.dt.items()}

    @property
    def control_median(self) -> dict:
        """d_out -> median Δt of the control."""
        return {d: float(np.median(v)) for d, v in self.control_dt.items()}


def fig2_markers(res: dict) -> Fig2MarkersSummary:
    """Summary of :func:`~companion.experiments.linear_estimators.teacher_student.fig2_markers`."""
    m = res["markers"]
    ratio = {d: [ratio_or_not(v, m[d]["theory"][2]) for v in m[d]["sim"]["dt"]] for d in m}
    n = len(next(iter(ratio.values())))
    small = [d for d in m if d <= SMALL_DOUT * res.get("d_in", np.inf)]
    return Fig2MarkersSummary(lam=res["lam"], douts=list(m), ratio=ratio, small_douts=small,
                              per_seed=[worst_signed([ratio[d][s] if observed(ratio[d][s]) else np.inf for d in small])
                                        for s in range(n)],
                              median={d: float(np.median([v if observed(v) else np.inf for v in r]))
                                      for d, r in ratio.items()},
                              dt={d: [float(v) for v in m[d]["sim"]["dt"]] for d in m},
                              peak=peak_over_ends([m[d]["sim"]["dt"] for d in m]),
                              peak_control=peak_over_ends([m[d]["control"]["dt"] for d in m if "control" in m[d]]),
                              control_dt={d: [float(v) for v in m[d]["control"]["dt"]] for d in m if "control" in m[d]})


def peak_over_ends(dts: list) -> list:
    """Per seed (columns of ``dts``, one row per d_out in ascending order): the largest Δt of the inner d_out
    over the larger of the Δt at the two ends — above 1 when Δt(d_out) has an interior maximum."""
    a = np.asarray(dts, float)
    return [float(np.max(a[1:-1, s]) / max(a[0, s], a[-1, s])) if np.all(np.isfinite(a[:, s])) else NOT_OBSERVED
            for s in range(a.shape[1])]


@dataclass(frozen=True)
class Fig3Summary:
    """Fig. 3: plateaus against Eq. 38 and Eq. 15, markers, the critical γ_c(λ)."""

    plateaus: dict  # γ -> {"train"|"test": (sim, Eq. 38)}
    eq15_gen: dict  # γ -> the paper's Eq. 15 generalisation plateau
    rel_err_eq38: float
    log_dev_eq38_mean: dict  # "train"|"test" -> max over γ of |log₁₀(mean over draws of L_sim(end) / Eq. 38)|
    log_dev_eq38_mean_interval: dict  # "train"|"test" -> its 95% bootstrap interval over the draws
    eq38_mean_ratio: dict  # "train"|"test" -> γ -> mean over draws of L_sim(end) / Eq. 38
    eq38_ratio_per_seed: dict  # "train"|"test" -> γ -> per draw L_sim(end) / Eq. 38
    eq38_test_draws_3pct: int  # draws whose mean test ratio has a standard error of 0.03, at the worst γ
    limit_rel_err: float
    g15: float  # the γ of the Eq. 15 check (second smallest)
    eq15_over_sim: float
    marker_rel_err: float
    rel_err_eq38_per_seed: list  # per seed: max over γ, train and test of |L_sim(end)/Eq. 38 − 1|
    marker_per_seed: list  # per seed: max over the finite marker γ of |Δt_sim/Δt_theory − 1|
    inf_gamma: float | None  # the first marker γ whose theory Δt is ∞
    below_inf_gamma: float | None  # the largest marker γ with a finite theory Δt
    dt_below_inf_per_seed: list  # per seed: simulated Δt there (the control of fig3_infinite)
    sim_dt_at_inf: float
    sim_dt_at_inf_per_seed: list  # per seed: simulated Δt there (NOT_OBSERVED: test accuracy never reached thr)
    gamma_c: dict  # λ -> first γ of the grid with Δt = ∞
    gamma_c_decreasing: bool
    gamma_c_marker: float  # γ_c at the markers' λ (nan if not on a curve)
    lam: float  # λ of the curves
    marker_lam: float  # λ of the markers
    marker_theory_dt: dict  # marker γ (ascending) -> finite theory Δt


def max_abs_log10_mean(draws: np.ndarray) -> float:
    """max over columns of |log₁₀(mean over draws (rows))|: a ratio's largest departure from 1, in decades."""
    return float(np.max(np.abs(np.log10(draws.mean(0)))))


@np.errstate(invalid="ignore")
def fig3(res: dict) -> Fig3Summary:
    """Summary of :func:`~companion.experiments.linear_estimators.teacher_student.fig3`."""
    lam = res["lam"]
    plat = {g: {q: (float(np.mean(c["sim"][f"{q}_loss"][:, -1])), float(c["theory"][f"{q}_loss"][-1]))
                for q in ("train", "test")} for g, c in res["curves"].items()}
    rel38 = max(abs(s / t - 1) for g in plat for s, t in plat[g].values())
    limit = max(max(abs(a / p["tr"] - 1), abs(b / p["gen"] - 1)) for a, b, p in res["plateau_check"].values())
    g15 = sorted(res["curves"])[1]
    m = res["markers"]
    n = next(iter(res["curves"].values()))["sim"]["train_loss"].shape[0]
    finite = [g for g in m if np.isfinite(m[g]["theory"][2])]
    inf_g = [g for g in m if not np.isfinite(m[g]["theory"][2])]
    far = max(res["curves"].values(),  # the γ whose mean late test loss is farthest from Eq. 38
                key=lambda c: abs(np.log10(c["sim"]["test_loss"][:, -1].mean() / c["theory"]["test_loss"][-1])))
    gc = {lm: float(res["gamma_grid"][np.argmax(~np.isfinite(dt))]) if (~np.isfinite(dt)).any() else float("inf")
          for lm, dt in res["theory_dt"].items()}
    return Fig3Summary(
        plateaus=plat, eq15_gen={g: theory.wd_plateaus(lam, g)["gen_eq15"] for g in plat},
        rel_err_eq38=float(rel38), limit_rel_err=float(limit), g15=g15,
        log_dev_eq38_mean={q: float(max(abs(np.log10(plat[g][q][0] / plat[g][q][1])) for g in plat))
                           for q in ("train", "test")},
        log_dev_eq38_mean_interval={q: bootstrap_interval(np.stack([c["sim"][f"{q}_loss"][:, -1] /
                                                                     c["theory"][f"{q}_loss"][-1]
                                                                     for c in res["curves"].values()], axis=1),
                                                           max_abs_log10_mean) for q in ("train", "test")},
        eq38_mean_ratio={q: {g: plat[g][q][0] / plat[g][q][1] for g in plat} for q in ("train", "test")},
        eq38_ratio_per_seed={q: {g: [float(v) for v in c["sim"][f"{q}_loss"][:, -1] / c["theory"][f"{q}_loss"][-1]]
                                 for g, c in res["curves"].items()} for q in ("train", "test")},
        eq38_test_draws_3pct=draws_for_error(far["sim"]["test_loss"][:, -1] / far["theory"]["test_loss"][-1], 0.03),
        eq15_over_sim=float(theory.wd_plateaus(lam, g15)["gen_eq15"] / plat[g15]["test"][0]),
        marker_rel_err=float(max(abs(np.mean(m[g]["sim"]["dt"]) / m[g]["theory"][2] - 1) for g in finite)),
        rel_err_eq38_per_seed=[float(max(abs(c["sim"][f"{q}_loss"][s, -1] / c["theory"][f"{q}_loss"][-1] - 1)
                                         for c in res["curves"].values() for q in ("train", "test")))
                               for s in range(n)],
        marker_per_seed=[worst([abs(seen(m[g]["sim"]["dt"][s]) / m[g]["theory"][2] - 1)
                                if np.isfinite(m[g]["sim"]["dt"][s]) else NOT_OBSERVED for g in finite])
                         for s in range(len(m[finite[0]]["sim"]["dt"]))],
        sim_dt_at_inf_per_seed=[seen(v) for v in m[inf_g[0]]["sim"]["dt"]] if inf_g else [],
        inf_gamma=inf_g[0] if inf_g else None, below_inf_gamma=max(finite) if finite else None,
        dt_below_inf_per_seed=[seen(v) for v in m[max(finite)]["sim"]["dt"]] if finite else [],
        sim_dt_at_inf=float(np.min(m[inf_g[0]]["sim"]["dt"])) if inf_g else float("nan"),
        gamma_c=gc, gamma_c_decreasing=bool(np.all(np.diff([gc[lm] for lm in sorted(gc)]) <= 0)),
        gamma_c_marker=gc.get(res["marker_lam"], float("nan")), lam=lam, marker_lam=res["marker_lam"],
        marker_theory_dt={g: m[g]["theory"][2] for g in sorted(finite)})
