"""What the linear-estimators chapter reports and checks from its many-draw experiments: Fig. 1's single
draws of data, teacher and student (``fig1_seeds``), and the expected losses over many training spectra
(``expected_losses``) behind Figs. 1–3 — each a pure function of a result dict returning a frozen dataclass,
with 95% bootstrap intervals over the draws."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.claims.expectations import bootstrap_interval
from companion.experiments.linear_estimators.summaries import LOSS_FLOOR_PER_EPS, LOW_LAM, log_ratios
from companion.theory import linear_estimators as theory


@dataclass(frozen=True)
class Fig1SeedsSummary:
    """Fig. 1 over many draws of data, teacher and student: single draws' curves against Eq. 8, and Eq. 9 —
    the accuracy as a function of the loss — checked on each draw's own loss."""

    lams: list  # λ of the curves
    eps: tuple
    floor: float  # losses compared where theory ≥ floor = ε · LOSS_FLOOR_PER_EPS (the paper's ε, the first)
    loss_dev: dict  # λ -> per draw: max over t, train and test of |log₁₀(L_sim/L_Eq.8)|
    acc_dev: dict  # λ -> per draw: max over t, train and test, both ε of |A_sim − Eq. 9(L_sim)|
    acc_dev_mean: dict  # λ -> max over t, train and test, both ε of |mean over draws of (A_sim − Eq. 9(L_sim))|
    acc_dev_mean_interval: dict  # λ -> its 95% bootstrap interval over the draws
    lam_hi: float  # the largest λ of the curves (> 1: the generalisation plateau)
    plateau_per_seed: list  # per draw: late generalisation loss at lam_hi (the paper's ε)
    plateau_theory: float  # 1 − 1/λ (Eq. 8 at t → ∞)
    below_plateau_per_seed: list  # per draw: late generalisation loss at the largest λ < 1 (no null space)


def max_abs_mean(draws: np.ndarray) -> float:
    """max over every axis but the first of |mean over the first (the draws)|."""
    return float(np.max(np.abs(draws.mean(0))))


def fig1_seeds(res: dict) -> Fig1SeedsSummary:
    """Summary of :func:`~companion.experiments.linear_estimators.teacher_student.fig1_seeds`."""
    eps = tuple(res["eps"])
    floor = eps[0] * LOSS_FLOOR_PER_EPS
    loss_dev, acc_dev, acc_mean, acc_int = {}, {}, {}, {}
    for lam, by_eps in res["curves"].items():
        c = by_eps[eps[0]]
        r = np.stack([log_ratios(c["sim"][f"{q}_loss"], c["theory"][f"{q}_loss"], floor) for q in ("train", "test")])
        loss_dev[lam] = [float(np.nanmax(r[:, s])) for s in range(r.shape[1])]
        gap = np.stack([v["sim"][f"{q}_acc"] - theory.accuracy(v["sim"][f"{q}_loss"], e)
                        for e, v in by_eps.items() for q in ("train", "test")], axis=1)  # (S, ε·q, T)
        acc_dev[lam] = [float(np.max(np.abs(g))) for g in gap]
        acc_mean[lam] = max_abs_mean(gap)
        acc_int[lam] = bootstrap_interval(gap, max_abs_mean)
    lam_hi = max(res["curves"])
    late_gen = res["curves"][lam_hi][eps[0]]["sim"]["test_loss"][:, -1]
    return Fig1SeedsSummary(lams=sorted(res["curves"]), eps=eps, floor=floor, loss_dev=loss_dev, acc_dev=acc_dev,
                            acc_dev_mean=acc_mean, acc_dev_mean_interval=acc_int, lam_hi=float(lam_hi),
                            plateau_theory=1 - 1 / lam_hi, plateau_per_seed=[float(v) for v in late_gen],
                            below_plateau_per_seed=[float(v) for v in res["curves"][max(lam for lam in res["curves"]
                                                                                       if lam < 1)][eps[0]]["sim"]
                                                    ["test_loss"][:, -1]])


def max_log_dev_of_mean(draws: np.ndarray, thy: np.ndarray) -> float:
    """max over the trailing axes of |log₁₀(mean over draws (axis 0) / thy)| (NaN in thy: not compared)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.nanmax(np.abs(np.log10(draws.mean(0) / thy))))


@dataclass(frozen=True)
class ExpectedSummary:
    """Figs. 1 and 3 against the expected loss at finite d_in (many spectra; ``expected_losses``)."""

    d_in: int
    lams: list
    n: dict  # λ -> spectra
    floor: float  # losses compared where theory ≥ floor (ε/40 at the paper's ε)
    loss_dev: dict  # λ -> max over t (theory ≥ floor), train and test of |log₁₀(mean L / Eq. 8)|
    loss_dev_interval: dict  # λ -> its 95% bootstrap interval over the spectra
    worst: dict  # λ -> (t, "train"|"test", mean L / Eq. 8 − 1) where loss_dev is reached
    dt_ratio: dict  # λ -> ε -> Δt of the mean loss / exact Δt (NaN where Δt is ∞, λ > 1)
    dt_interval: dict  # λ -> ε -> its 95% bootstrap interval
    dt_worst: dict  # λ -> (ratio, interval) of the ε farther from 1
    low_lams: list  # λ ≤ LOW_LAM
    low_dev: float  # max over λ ≤ LOW_LAM and ε of |Δt ratio − 1|
    low_dev_interval: tuple  # its 95% bootstrap interval (the max recomputed per resample)
    sweep: dict  # λ -> d_in -> (max |log₁₀(mean L_gen / Eq. 8)| in the window, interval, t, signed rel. dev there)
    sweep_draws: dict  # λ -> d_in -> spectra
    wd_lam: float
    wd_t: float
    gammas: list
    wd_ratio: dict  # d_in -> "train"|"test" -> γ -> mean late L / Eq. 38
    wd_dev: dict  # d_in -> "train"|"test" -> max over γ of |log₁₀(mean late L / Eq. 38)|
    wd_dev_interval: dict  # d_in -> "train"|"test" -> its 95% bootstrap interval
    wd_mean: dict  # "train"|"test" -> γ -> mean late L at d_in
    marker_lam: float
    marker_ratio: dict  # γ -> Δt of the mean loss / exact Δt with weight decay (NaN where the exact Δt is ∞)
    marker_interval: dict  # γ -> its 95% bootstrap interval
    marker_dev: float  # max over finite γ of |ratio − 1|
    marker_dev_interval: tuple  # its 95% interval
    marker_inf: dict  # γ -> whether the mean loss's test accuracy reaches 95% on the grid, where the exact Δt is ∞
    dout_lam: float
    dout_dev: dict  # d_out -> max over t (Eq. 12 ≥ ε/40), train and test of |log₁₀(mean L / Eq. 12)|
    dout_dev_interval: dict  # d_out -> its 95% bootstrap interval

    @property
    def dt_max_gap(self) -> float:
        """The largest |Δt of the expected loss / exact − 1| over λ < 1 (the ε farther from 1)."""
        return max(abs(self.dt_worst[lam][0] - 1) for lam in self.lams if lam < 1)


def _window(thy: np.ndarray, floor: float) -> np.ndarray:
    """Theory where it is compared (≥ floor, t > 0), NaN elsewhere."""
    ok = (thy >= floor) & (np.arange(len(thy)) > 0)
    return np.where(ok, thy, np.nan)


def expected(res: dict) -> ExpectedSummary:
    """Summary of :func:`~companion.experiments.linear_estimators.teacher_student.expected_losses`."""
    eps = tuple(res["eps"])
    floor = eps[0] * LOSS_FLOOR_PER_EPS
    steps = res["steps"]
    dev, dev_int, worst_at, ratio, interval, dt_worst = {}, {}, {}, {}, {}, {}
    for lam, v in res["lams"].items():
        thy = np.stack([_window(v["theory"][q], floor) for q in ("train", "test")])  # (2, T)
        draws = np.stack([v["sim"]["train"], v["sim"]["test"]], axis=1)  # (S, 2, T)
        dev[lam] = max_log_dev_of_mean(draws, thy)
        dev_int[lam] = bootstrap_interval(draws, lambda d, thy=thy: max_log_dev_of_mean(d, thy))
        with np.errstate(divide="ignore", invalid="ignore"):
            r = draws.mean(0) / thy
        q, j = np.unravel_index(np.nanargmax(np.abs(np.log10(r))), r.shape)
        worst_at[lam] = (float(steps[j]), ("train", "test")[q], float(r[q, j] - 1))
        ratio[lam], interval[lam] = {}, {}
        for e in eps:
            sim, thy_dt = v["cross"][e]["dt"], v["theory_t"][e][2]
            fin = np.isfinite(thy_dt) and thy_dt > 0
            ratio[lam][e] = float(sim[0] / thy_dt) if fin else float("nan")
            interval[lam][e] = (tuple(float(x) for x in np.quantile(sim[1:] / thy_dt, [0.025, 0.975])) if fin
                                else (float("nan"), float("nan")))
        far = max(eps, key=lambda e: abs(ratio[lam][e] - 1) if np.isfinite(ratio[lam][e]) else -1)
        dt_worst[lam] = (ratio[lam][far], interval[lam][far])
    low = [lam for lam in res["lams"] if lam <= LOW_LAM]
    per_resample = np.max([np.abs(res["lams"][lam]["cross"][e]["dt"] / res["lams"][lam]["theory_t"][e][2] - 1)
                           for lam in low for e in eps], axis=0)  # (1 + B,)
    sweep = {}
    joined = {lam: by | {res["d_in"]: res["lams"][lam]["sim"]} for lam, by in res["sweep"].items()}  # with d_in
    for lam, by_d in joined.items():
        thy = _window(res["lams"][lam]["theory"]["test"], floor)
        sweep[lam] = {}
        for d_in, c in sorted(by_d.items()):
            with np.errstate(divide="ignore", invalid="ignore"):
                r = c["test"].mean(0) / thy
            j = int(np.nanargmax(np.abs(np.log10(r))))
            sweep[lam][d_in] = (max_log_dev_of_mean(c["test"], thy),
                                bootstrap_interval(c["test"], lambda d, thy=thy: max_log_dev_of_mean(d, thy)),
                                float(steps[j]), float(r[j] - 1))
    wd_ratio, wd_dev, wd_int = {}, {}, {}
    for d_in, by_g in res["wd"].items():
        wd_ratio[d_in], wd_dev[d_in], wd_int[d_in] = {}, {}, {}
        for i, q in enumerate(("train", "test")):
            thy = np.array([res["wd_theory"][g][i] for g in res["gammas"]])
            draws = np.stack([by_g[g][q] for g in res["gammas"]], axis=1)  # (S, γ)
            wd_ratio[d_in][q] = dict(zip(res["gammas"], (draws.mean(0) / thy).tolist()))
            wd_dev[d_in][q] = max_log_dev_of_mean(draws, thy)
            wd_int[d_in][q] = bootstrap_interval(draws, lambda d, thy=thy: max_log_dev_of_mean(d, thy))
    mk = res["markers"]
    fin = [g for g in mk if np.isfinite(mk[g]["theory"][2]) and mk[g]["theory"][2] > 0]
    m_ratio = {g: np.asarray(mk[g]["sim"]["dt"]) / mk[g]["theory"][2] if g in fin else None for g in mk}
    m_dev = np.max([np.abs(m_ratio[g] - 1) for g in fin], axis=0) if fin else np.full(2, np.nan)
    dout_dev, dout_int = {}, {}
    for o, c in res["douts"].items():
        thy = np.stack([_window(c["theory"][q], floor) for q in ("train", "test")])
        draws = np.stack([c["sim"]["train"], c["sim"]["test"]], axis=1)
        dout_dev[o] = max_log_dev_of_mean(draws, thy)
        dout_int[o] = bootstrap_interval(draws, lambda d, thy=thy: max_log_dev_of_mean(d, thy))
    return ExpectedSummary(
        wd_mean={q: {g: float(res["wd"][res["d_in"]][g][q].mean()) for g in res["gammas"]} for q in ("train", "test")},
        marker_lam=res["marker_lam"],
        marker_ratio={g: float(r[0]) if r is not None else float("nan") for g, r in m_ratio.items()},
        marker_interval={g: tuple(float(x) for x in np.quantile(r[1:], [0.025, 0.975])) if r is not None
                         else (float("nan"), float("nan")) for g, r in m_ratio.items()},
        marker_dev=float(m_dev[0]), marker_dev_interval=tuple(float(x) for x in np.quantile(m_dev[1:], [0.025, 0.975])),
        marker_inf={g: bool(np.isfinite(mk[g]["sim"]["dt"][0])) for g in mk if g not in fin},
        dout_lam=res["dout_lam"], dout_dev=dout_dev, dout_dev_interval=dout_int,
        d_in=res["d_in"], lams=sorted(res["lams"]), n={lam: v["n"] for lam, v in res["lams"].items()}, floor=floor,
        loss_dev=dev, loss_dev_interval=dev_int, worst=worst_at, dt_ratio=ratio, dt_interval=interval,
        dt_worst=dt_worst, low_lams=low, low_dev=float(per_resample[0]),
        low_dev_interval=tuple(float(x) for x in np.quantile(per_resample[1:], [0.025, 0.975])),
        sweep=sweep, sweep_draws={lam: {d: len(c["test"]) for d, c in by.items()} for lam, by in joined.items()},
        wd_lam=res["wd_lam"], wd_t=res["wd_t"], gammas=list(res["gammas"]), wd_ratio=wd_ratio, wd_dev=wd_dev,
        wd_dev_interval=wd_int)
