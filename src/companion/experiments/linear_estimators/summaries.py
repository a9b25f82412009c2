"""What the linear-estimators chapter reports and checks, one summary per figure, computed from
the results of the experiments (pure functions of plain result dicts, each returning a small
frozen dataclass)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.events import first_crossing
from companion.theory import linear_estimators as theory

LOW_LAM = 0.8  # Fig. 1: λ ≤ LOW_LAM is "low λ" (finite-size scatter of the lowest eigenvalues above it)
LOSS_FLOOR_PER_EPS = 1 / 40  # Fig. 2: losses compared only where theory ≥ ε/40
BIG_DOUT = 1200  # Figs. 2, 7: d_out ≥ BIG_DOUT starts below the loss threshold (1/d_out < ε)
LATE_T = 1e3  # Fig. 5: "late" times for Eqs. 21, 22
EQ11_EPS = 1e-3  # Eq. 11 check: the paper's ε
EQ11_LAM = 0.5  # Eq. 11 check: the λ of the claims


def max_log_ratio(sim: np.ndarray, thy: np.ndarray, floor: float) -> float:
    """max |log₁₀(sim/theory)| over points where theory ≥ floor (and t > 0)."""
    ok = (thy >= floor) & (sim > 0)
    ok[0] = False
    return float(np.max(np.abs(np.log10(sim[ok] / thy[ok])))) if ok.any() else float("nan")


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
    plateau: float  # its late generalisation loss (seed mean)
    plateau_theory: float  # 1 − 1/λ
    eq25_nan_from: float | None  # the first λ where Eq. 25 is undefined (None: none)


def fig1(res: dict) -> Fig1Summary:
    """Summary of :func:`~companion.experiments.linear_estimators.teacher_student.fig1`."""
    e = res["eps"]
    lams = sorted(res["sim_dt"])
    sim = np.array([np.mean(res["sim_dt"][lam][e]["dt"]) for lam in lams])
    thy = np.array([res["theory_at"][e][lam][2] for lam in lams])
    low = np.array(lams) <= LOW_LAM
    lam_hi = max(res["curves"])
    eq25 = [theory.dt_eq25(lam, EQ11_EPS) for lam in lams]
    return Fig1Summary(
        lams=lams, sim_dt=sim, theory_dt=thy, eq11_ratio=theory.dt_eq11(np.array(lams)) / thy,
        max_rel_err_low=float(np.max(np.abs(sim[low] / thy[low] - 1))),
        max_rel_err_high=float(np.max(np.abs(sim[~low] / thy[~low] - 1))) if (~low).any() else float("nan"),
        sim_increasing=increasing(sim), theory_increasing=increasing(res["theory_dt"][e]), lam_hi=lam_hi,
        plateau=float(np.mean(res["curves"][lam_hi]["sim"]["test_loss"][:, -1])), plateau_theory=1 - 1 / lam_hi,
        eq25_nan_from=min((lam for lam, v in zip(lams, eq25) if not np.isfinite(v)), default=None))


@dataclass(frozen=True)
class Eq11Summary:
    """Eq. 11 / exact Δt against ε (the table) and the two numbers the chapter checks."""

    eps: np.ndarray
    ratios: dict  # λ -> ratio per ε
    ratio_at_paper_eps: float  # λ = EQ11_LAM, ε = EQ11_EPS
    limit_ratio: float  # λ = EQ11_LAM at the smallest ε if the ratio falls monotonically, else nan


def eq11(q: dict) -> Eq11Summary:
    """Summary of :func:`~companion.experiments.linear_estimators.teacher_student.eq11_ratios`."""
    r = q[EQ11_LAM]
    i = int(np.argmin(np.abs(q["eps"] - EQ11_EPS)))
    return Eq11Summary(eps=q["eps"], ratios={lam: v for lam, v in q.items() if lam != "eps"},
                       ratio_at_paper_eps=float(r[i]),
                       limit_ratio=float(r[-1]) if bool(np.all(np.diff(r) < 0)) else float("nan"))


@dataclass(frozen=True)
class Fig2Summary:
    """Fig. 2: loss agreement per d_out, markers against theory, shape of Δt(d_out)."""

    log_ratio: dict  # d_out -> max |log₁₀(sim/theory)| (train and test, seed mean)
    marker_rel_err: float
    peaks: dict  # λ -> d_out of the largest Δt
    unimodal: bool
    zero_big: bool  # Δt = 0 for d_out ≥ BIG_DOUT
    unimodal_and_zero_big: bool


def fig2(res: dict) -> Fig2Summary:
    """Summary of :func:`~companion.experiments.linear_estimators.teacher_student.fig2`."""
    floor = res["eps"] * LOSS_FLOOR_PER_EPS
    log_ratio = {d: max(max_log_ratio(c["sim"][f"{q}_loss"].mean(0), c["theory"][f"{q}_loss"], floor)
                        for q in ("train", "test")) for d, c in res["curves"].items()}
    m = res["markers"]
    rel = max(abs(m[d]["sim"]["dt"][0] / m[d]["theory"][2] - 1) for d in m)
    peaks = {lam: float(res["dout_grid"][np.argmax(dt)]) for lam, dt in res["theory_dt"].items()}
    unimodal = all(increasing(dt[:np.argmax(dt) + 1]) or np.argmax(dt) == 0 for dt in res["theory_dt"].values())
    big = res["dout_grid"] >= BIG_DOUT
    zero_big = all(bool(np.all(dt[big] == 0)) for dt in res["theory_dt"].values())
    return Fig2Summary(log_ratio=log_ratio, marker_rel_err=float(rel), peaks=peaks, unimodal=unimodal,
                       zero_big=zero_big, unimodal_and_zero_big=bool(unimodal and zero_big))


@dataclass(frozen=True)
class Fig3Summary:
    """Fig. 3: plateaus against Eq. 38 and Eq. 15, markers, the critical γ_c(λ)."""

    plateaus: dict  # γ -> {"train"|"test": (sim, Eq. 38)}
    eq15_gen: dict  # γ -> the paper's Eq. 15 generalisation plateau
    rel_err_eq38: float
    limit_rel_err: float
    g15: float  # the γ of the Eq. 15 check (second smallest)
    eq15_over_sim: float
    marker_rel_err: float
    inf_gamma: float | None  # the first marker γ whose theory Δt is ∞
    sim_dt_at_inf: float
    gamma_c: dict  # λ -> first γ of the grid with Δt = ∞
    gamma_c_decreasing: bool
    gamma_c_marker: float  # γ_c at the markers' λ (nan if not on a curve)
    lam: float  # λ of the curves
    marker_lam: float  # λ of the markers
    marker_theory_dt: dict  # marker γ (ascending) -> finite theory Δt


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
    finite = [g for g in m if np.isfinite(m[g]["theory"][2])]
    inf_g = [g for g in m if not np.isfinite(m[g]["theory"][2])]
    gc = {lm: float(res["gamma_grid"][np.argmax(~np.isfinite(dt))]) if (~np.isfinite(dt)).any() else float("inf")
          for lm, dt in res["theory_dt"].items()}
    return Fig3Summary(
        plateaus=plat, eq15_gen={g: theory.wd_plateaus(lam, g)["gen_eq15"] for g in plat},
        rel_err_eq38=float(rel38), limit_rel_err=float(limit), g15=g15,
        eq15_over_sim=float(theory.wd_plateaus(lam, g15)["gen_eq15"] / plat[g15]["test"][0]),
        marker_rel_err=float(max(abs(np.mean(m[g]["sim"]["dt"]) / m[g]["theory"][2] - 1) for g in finite)),
        inf_gamma=inf_g[0] if inf_g else None,
        sim_dt_at_inf=float(np.min(m[inf_g[0]]["sim"]["dt"])) if inf_g else float("nan"),
        gamma_c=gc, gamma_c_decreasing=bool(np.all(np.diff([gc[lm] for lm in sorted(gc)]) <= 0)),
        gamma_c_marker=gc.get(res["marker_lam"], float("nan")), lam=lam, marker_lam=res["marker_lam"],
        marker_theory_dt={g: m[g]["theory"][2] for g in sorted(finite)})


@dataclass(frozen=True)
class Fig4Run:
    """One two-layer run: simulated and theory t*, initial loss."""

    t_tr: float
    t_gen: float
    theory: tuple  # (t*_tr, t*_gen) of the corrected Eq. 18
    loss0: float
    loss0_theory: float
    rel_err: float  # max over t*_tr, t*_gen of |sim/theory − 1|


@dataclass(frozen=True)
class Fig4Summary:
    """Fig. 4: every run, and the numbers checked at the widest and narrowest d_h."""

    runs: dict  # (d_h, activation) -> Fig4Run
    d_h_big: int
    d_h_small: int
    rel_err_big: float  # max over activations at d_h_big
    rel_err_small: float
    tanh_vs_linear: float  # max over d_h and t* of |t*_tanh/t*_linear − 1|
    loss0_big: float  # linear run at d_h_big
    loss0_theory_big: float
    all_grok: bool  # t*_gen > t*_tr in every run


def fig4(res: dict) -> Fig4Summary:
    """Summary of :func:`~companion.experiments.linear_estimators.networks.fig4`."""
    out = {}
    for d_h, r in res["runs"].items():
        for i, act in enumerate(r["activations"]):
            t_tr = first_crossing(r["step"], r["train_acc"][i], res["thr"], never=float("inf"))
            t_gen = first_crossing(r["step"], r["test_acc"][i], res["thr"], never=float("inf"))
            out[(d_h, act)] = Fig4Run(t_tr=t_tr, t_gen=t_gen, theory=r["theory_t"][:2],
                                      loss0=float(r["train_loss"][i, 0]), loss0_theory=r["loss0_theory"],
                                      rel_err=max(abs(t_tr / r["theory_t"][0] - 1), abs(t_gen / r["theory_t"][1] - 1)))
    big, small = max(res["runs"]), min(res["runs"])
    return Fig4Summary(
        runs=out, d_h_big=big, d_h_small=small,
        rel_err_big=max(out[(big, a)].rel_err for a in ("linear", "tanh")),
        rel_err_small=max(out[(small, a)].rel_err for a in ("linear", "tanh")),
        tanh_vs_linear=max(abs(getattr(out[(d, "tanh")], k) / getattr(out[(d, "linear")], k) - 1)
                           for d in res["runs"] for k in ("t_tr", "t_gen")),
        loss0_big=out[(big, "linear")].loss0, loss0_theory_big=out[(big, "linear")].loss0_theory,
        all_grok=all(v.t_gen > v.t_tr for v in out.values()))


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
    """Fig. 8: modular-addition grokking times against α and their (λ* − λ)⁻² fit."""

    all_grok: bool
    alpha: np.ndarray  # ascending
    dt: np.ndarray  # Δt per α
    dt_decreasing_in_alpha: bool
    C: float
    lam_star: float
    r2: float
    n: int
    lam_star_above: bool  # λ* beyond the largest λ studied
    alpha_star: float  # the α of λ*


def fig8(res: dict) -> Fig8Summary:
    """Summary of :func:`~companion.experiments.linear_estimators.networks.fig8`."""
    m = res["mod"]
    order = np.argsort(m["alpha"])
    dt = (m["t_te"] - m["t_tr"])[order]
    f = res["fit"]
    return Fig8Summary(all_grok=bool(np.all(np.isfinite(m["t_te"]))), alpha=m["alpha"][order], dt=dt,
                       dt_decreasing_in_alpha=bool(np.all(np.diff(dt) < 0)), C=f["C"], lam_star=f["lam_star"],
                       r2=f["r2"], n=f["n"], lam_star_above=bool(f["lam_star"] > m["lam"].max()),
                       alpha_star=float(2 / (f["lam_star"] * (2 / (m["lam"][0] * m["alpha"][0])))))
