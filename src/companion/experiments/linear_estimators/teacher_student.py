"""The Gaussian teacher–student figures of Levi, Beck & Bar Sinai (ICLR 2024): Figs. 1–3, 5–7
and the Eq. 11 check, theory (:mod:`companion.theory.linear_estimators`) against exact
simulation (:class:`~companion.theory.linear_estimators.LinearGD`, all seeds batched)."""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy import stats

from companion.experiments.linear_estimators.configs import (
    ExpectedLossesConfig,
    Fig1Config,
    Fig1SeedsConfig,
    Fig2Config,
    Fig2MarkersConfig,
    Fig3Config,
    Fig6Config,
    Fig7Config,
    InitScaleConfig,
)
from companion.store.cache import experiment
from companion.theory import linear_estimators as theory
from companion.theory.linear_estimators import LinearGD
from companion.theory.spectral_gd import SpectralGD, bootstrap_weights, mean_loss_crossings
from companion.train.fit import log_steps

ERF2 = theory.grok_threshold_erf2()  # Fig. 1 threshold erf(√2) ⇔ L = ε/4


def curve_steps(t_end: float, n: int) -> np.ndarray:
    """The evaluation steps of a curve: about ``n`` log-spaced steps in [0, t_end], as floats."""
    return log_steps(int(t_end), n).astype(float)


def first_steps(sim: LinearGD, eps: float, thr: float, t_max: int) -> dict:
    """Simulated t*_tr, t*_gen and Δt per seed (∞ where not reached by ``t_max``)."""
    tr, gen = sim.first_steps(eps, thr, t_max)
    return {"t_tr": tr, "t_gen": gen, "dt": gen - tr}


def theory_curves(steps, lam, eta, eps, gamma=0.0, dout=1) -> dict:
    """Eqs. 8/9 (38 with γ, 12 with d_out): losses and accuracies at ``steps`` (t = 0 as 1e-3)."""
    ltr, lgen = theory.losses(np.maximum(steps, 1e-3), lam, eta, gamma, dout)
    return {"train_loss": ltr, "test_loss": lgen, "train_acc": theory.accuracy(ltr, eps, dout),
            "test_acc": theory.accuracy(lgen, eps, dout)}


@experiment
def fig1(cfg: Fig1Config, device: str = "cpu") -> dict:
    """Chapter Fig. 1 (paper Fig. 1): curves for λ ∈ curve_lams and simulated/theory Δt vs λ for two ε."""
    steps = curve_steps(cfg.t_end, cfg.n_points)
    curves, sim_dt = {}, {}
    for lam in sorted(set(cfg.curve_lams) | set(cfg.dt_lams)):
        sim = LinearGD.sample(cfg.d_in, 1, lam, cfg.n_seeds, cfg.seed + int(cfg.seed_per_lam * lam), cfg.n_gen,
                              cfg.lr, device=device)
        if lam in cfg.curve_lams:
            curves[lam] = {"sim": sim.curves(steps, cfg.eps),
                           "theory": theory_curves(steps, lam, cfg.lr, cfg.eps)}
        if lam in cfg.dt_lams:
            sim_dt[lam] = {e: first_steps(sim, e, ERF2, cfg.t_max) for e in cfg.eps_right}
    grid = np.linspace(*cfg.lam_grid_range, cfg.n_theory)
    theory_dt = {e: np.array([theory.grok_times(lam, e, ERF2, cfg.lr)[2] for lam in grid]) for e in cfg.eps_right}
    theory_at = {e: {lam: theory.grok_times(lam, e, ERF2, cfg.lr) for lam in cfg.dt_lams} for e in cfg.eps_right}
    return {"steps": steps, "curves": curves, "sim_dt": sim_dt, "lam_grid": grid, "theory_dt": theory_dt,
            "theory_at": theory_at, "eq11": theory.dt_eq11(grid, cfg.lr), "eps": cfg.eps}


@experiment
def fig1_seeds(cfg: Fig1SeedsConfig, device: str = "cpu") -> dict:
    """Fig. 1 over many draws of data, teacher and student: per-draw curves at λ ∈ curve_lams for each ε
    against Eqs. 8/9 (all draws of a λ batched)."""
    steps = curve_steps(cfg.t_end, cfg.n_points)
    curves = {}
    for lam, n_draws in zip(cfg.curve_lams, cfg.curve_seeds, strict=True):
        seed = cfg.seed + cfg.seed_offset + int(cfg.seed_per_lam * lam)
        sim = LinearGD.sample(cfg.d_in, 1, lam, n_draws, seed, cfg.n_gen, cfg.lr, device=device)
        curves[lam] = {e: {"sim": sim.curves(steps, e), "theory": theory_curves(steps, lam, cfg.lr, e)}
                       for e in cfg.eps}
    return {"steps": steps, "curves": curves, "eps": cfg.eps}


@experiment
def expected_losses(cfg: ExpectedLossesConfig, device: str = "cpu") -> dict:
    """Figs. 1–3 at the paper's d_in over many training spectra (:mod:`companion.theory.spectral_gd`): per
    spectrum, the loss averaged exactly over teacher and student — Fig. 1's curves, the grokking times of their
    mean (with bootstrap resamples of the spectra), Fig. 2's curves for d_out > 1, Fig. 3's late losses and
    markers per weight decay — and Fig. 1's curves at other d_in (the finite-size sweep). Exact theory beside
    each. Numpy on the CPU (``device`` unused: a tridiagonal eigenproblem per spectrum)."""
    steps = curve_steps(cfg.t_end, cfg.n_points)

    def spectra(d_in: int, lam: float, n: int, k: int) -> SpectralGD:
        return SpectralGD.sample(d_in, 1, lam, n, cfg.seed + cfg.seed_offset + 7919 * k + d_in, cfg.lr).expected()

    def curves(runs: SpectralGD) -> dict:  # float32: a kept result of thousands of spectra stays a few MB
        ltr, lgen = runs.losses(steps)
        return {"train": ltr.astype(np.float32), "test": lgen.astype(np.float32)}

    out, sweep, wd, markers, douts = {}, {}, {}, {}, {}
    dsteps = curve_steps(cfg.dout_t_end, cfg.n_points)
    for k, (lam, n) in enumerate(zip(cfg.lams, cfg.n_draws, strict=True)):
        runs = spectra(cfg.d_in, lam, n, k)
        w = bootstrap_weights(n, cfg.n_boot, seed=k)
        ltr, lgen = theory.losses(np.maximum(steps, 1e-3), lam, cfg.lr)
        out[lam] = {"sim": curves(runs), "theory": {"train": ltr, "test": lgen}, "n": n,
                    "cross": {e: mean_loss_crossings(runs, e, ERF2, cfg.grid, w) for e in cfg.eps},
                    "theory_t": {e: theory.grok_times(lam, e, ERF2, cfg.lr) for e in cfg.eps}}
        if lam in cfg.sweep_lams:
            sweep[lam] = {}  # and d_in itself: out[lam]["sim"] (the summary joins them)
        if lam == cfg.wd_lam:
            wd[cfg.d_in] = {g: runs.retune(gamma=g).losses([cfg.wd_t]) for g in cfg.gammas}
        if lam == cfg.marker_lam:  # Fig. 3's markers: Δt of the mean loss per weight decay
            markers = {g: {"sim": mean_loss_crossings(runs.retune(gamma=g), cfg.eps[0], 0.95, cfg.grid, w),
                           "theory": theory.grok_times(lam, cfg.eps[0], 0.95, cfg.lr, gamma=g)}
                       for g in cfg.marker_gammas}
        if lam == cfg.dout_lam:  # Fig. 2's d_out > 1: the same spectra (the expected moments do not depend on d_out)
            douts = {o: {"sim": dict(zip(("train", "test"), (x.astype(np.float32) for x in
                                                             dataclasses.replace(runs, dout=o).losses(dsteps)))),
                         "theory": dict(zip(("train", "test"),
                                            theory.losses(np.maximum(dsteps, 1e-3), lam, cfg.lr, dout=o)))}
                     for o in cfg.douts}
    for lam in cfg.sweep_lams:
        for j, (d_in, n) in enumerate(zip(cfg.sweep_d_ins, cfg.sweep_draws, strict=True)):
            runs = spectra(d_in, lam, n, 100 + j)
            sweep[lam][d_in] = curves(runs)
            if lam == cfg.wd_lam:
                wd[d_in] = {g: runs.retune(gamma=g).losses([cfg.wd_t]) for g in cfg.gammas}
    wd = {d: {g: {"train": v[0][:, 0], "test": v[1][:, 0]} for g, v in by_g.items()} for d, by_g in wd.items()}
    wd_theory = {g: tuple(float(x[0]) for x in theory.losses([cfg.wd_t], cfg.wd_lam, cfg.lr, g)) for g in cfg.gammas}
    return {"steps": steps, "lams": out, "sweep": sweep, "wd": wd, "wd_theory": wd_theory, "eps": cfg.eps,
            "d_in": cfg.d_in, "wd_lam": cfg.wd_lam, "gammas": cfg.gammas, "wd_t": cfg.wd_t, "markers": markers,
            "marker_lam": cfg.marker_lam, "dout_steps": dsteps, "douts": douts, "dout_lam": cfg.dout_lam}


@experiment
def fig2_markers(cfg: Fig2MarkersConfig, device: str = "cpu") -> dict:
    """Fig. 2 (right) over several draws: simulated t* and Δt per d_out at λ = cfg.lam against Eq. 12; and the
    control, the same draws with η ∝ d_out, which undoes the slowing of the loss by η₀ → η₀/d_out (one of the
    two competing effects behind the maximum), so that only the accuracy's d_out-dependence is left."""
    out = {}
    for i, d in enumerate(cfg.douts):
        sim = LinearGD.sample(cfg.d_in, d, cfg.lam, cfg.n_seeds, cfg.seed + cfg.seed_offset + i, cfg.n_gen, cfg.lr,
                              device=device)
        tr, gen = sim.first_steps(cfg.eps, cfg.thr, cfg.t_max, rtol=cfg.rtol)
        out[d] = {"sim": {"t_tr": tr, "t_gen": gen, "dt": gen - tr},
                  "theory": theory.grok_times(cfg.lam, cfg.eps, cfg.thr, cfg.lr, dout=d)}
        if d == 1 or d in cfg.control_douts:
            ctr, cgen = (tr, gen) if d == 1 else sim.retune(cfg.lr * d).first_steps(cfg.eps, cfg.thr, cfg.t_max,
                                                                                      rtol=cfg.rtol)
            out[d]["control"] = {"t_tr": ctr, "t_gen": cgen, "dt": cgen - ctr}
    return {"markers": out, "lam": cfg.lam, "d_in": cfg.d_in}


@experiment
def init_rescaling(cfg: InitScaleConfig, device: str = "cpu") -> dict:
    """§3.1.3: the same runs (spectra, teacher, student; :class:`~companion.theory.spectral_gd.SpectralGD`)
    with the student initialised at S₀ and at αS₀ — per-run losses over time, and the t* of each arm's mean
    loss (with bootstrap resamples of the runs, the same for both arms) — against the paper's
    L → (1 + α²)/2·L, i.e. ε → 2ε/(1 + α²). Numpy on the CPU (``device`` unused)."""
    steps = curve_steps(cfg.t_end, cfg.n_points)[1:]
    base = SpectralGD.sample(cfg.d_in, 1, cfg.lam, cfg.n_draws, cfg.seed + cfg.seed_offset, cfg.lr)
    scaled = dataclasses.replace(base, ss=cfg.alpha ** 2 * base.ss, st=cfg.alpha * base.st)  # the same runs, αS₀
    w = bootstrap_weights(cfg.n_draws, cfg.n_boot)
    eps_eff = 2 * cfg.eps / (1 + cfg.alpha ** 2)
    a, b = (tuple(x.astype(np.float32) for x in arm.losses(steps)) for arm in (base, scaled))  # float32: see above
    return {"steps": steps, "base": {"train": a[0], "test": a[1]}, "scaled": {"train": b[0], "test": b[1]},
            "factor": (1 + cfg.alpha ** 2) / 2, "alpha": cfg.alpha, "eps": cfg.eps, "eps_eff": eps_eff,
            "cross_base": mean_loss_crossings(base, cfg.eps, ERF2, cfg.grid, w),
            "cross_scaled": mean_loss_crossings(scaled, cfg.eps, ERF2, cfg.grid, w),
            "theory": theory.grok_times(cfg.lam, cfg.eps, ERF2, cfg.lr),
            "theory_eff": theory.grok_times(cfg.lam, eps_eff, ERF2, cfg.lr)}


def theory_checks(eta: float = 0.01, eps: float = 1e-3, thr: float = 0.95) -> dict:
    """Statements of the paper that the exact theory decides (each < 1 s): §3.3.2 for λ > 1 and the
    Δt of Eq. 15; flatness of Δt(γ) at small γ; Δt as λ → 1 at fixed ε (Eq. 11 diverges); the
    Lambert-W times of Eqs. 23/24; where Δt(d_out) reaches 0 (Eq. 12)."""
    # §3.3.2, λ > 1 with weight decay: the late-time generalisation loss and Δt
    lam_over, g_over = 1.5, 1e-3
    over = {"lam": lam_over, "gamma": g_over, "gen_inf": float(theory.losses([1e9], lam_over, eta, g_over)[1][0]),
            "half_null": 0.5 * (1 - 1 / lam_over), "t_gen": theory.grok_times(lam_over, eps, thr, eta, g_over)[1]}
    # Eq. 15's Δt, and the exact Δt(γ) at λ = 0.5 below γ_c
    lam = 0.5
    gammas = np.geomspace(1e-6, 1e-1, 26)
    dts = np.array([theory.grok_times(lam, eps, thr, eta, gamma=g, m=1024)[2] for g in gammas])  # converged at m = 1024
    dt0 = theory.grok_times(lam, eps, thr, eta)[2]
    fin = np.isfinite(dts)
    small = gammas <= 1e-4
    wd = {"lam": lam, "gammas": gammas, "dt": dts, "dt0": dt0, "eq15": float(theory.dt_eq15(lam, eta)),
          "gamma_c": float(gammas[np.argmax(~fin)]) if (~fin).any() else float("inf"),
          "last_finite": float(dts[fin][-1]), "flat_small": float(np.max(np.abs(dts[small] / dt0 - 1)))}
    # λ → 1 at fixed ε (erf(√2) threshold, as Eq. 11)
    t1 = theory.grok_times(1.0, eps, ERF2, eta, m=2 * theory.M_NODES)  # t ≈ 10⁸: converged at 2·M_NODES (not at 4096)
    # Eqs. 23/24 against the exact crossing times
    lams = (0.3, 0.5, 0.7, 0.9)
    lw = {lm: (theory.t_star_lambert(lm, eps, eta), theory.grok_times(lm, eps, ERF2, eta)[:2]) for lm in lams}
    lw_err = max(abs(a / b - 1) for (w, x) in lw.values() for a, b in zip(w, x))
    # Eq. 12: the smallest d_out with Δt = 0 (λ = 0.5), against "both accuracies start above thr" (χ²)
    lo, hi = 1000, 1200  # Δt > 0 at lo, = 0 at hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if theory.grok_times(lam, eps, thr, eta, dout=mid)[2] == 0 else (mid, hi)
    chi2_d = next(d for d in range(2, 5000) if stats.chi2.ppf(thr, d) <= d * d * eps)
    return {"overparam": over, "wd": wd, "lam1": {"t_tr": t1[0], "t_gen": t1[1], "dt": t1[2]},
            "lambert": lw, "lambert_err": float(lw_err), "dout_zero": hi,
            "dout_zero_chi2": int(chi2_d), "dt_dout1000": theory.grok_times(lam, eps, thr, eta, dout=1000)[2],
            "eps": eps, "thr": thr}


def eq11_ratios(lams=(0.5, 0.9), epss=(1e-2, 1e-3, 1e-4, 1e-6, 1e-9, 1e-12), eta: float = 0.01) -> dict:
    """Chapter table "Eq. 11 is the ε → 0 limit": Eq. 11 / exact Δt for several λ and ε (theory; fast)."""
    out = {lam: np.array([theory.dt_eq11(lam, eta) / theory.grok_times(lam, e, ERF2, eta)[2] for e in epss])
           for lam in lams}
    # App. B's Eq. 25, Eq. 11 with its first finite-ε correction, at the paper's ε
    eq25 = {lam: theory.dt_eq25(lam, 1e-3, eta) / theory.grok_times(lam, 1e-3, ERF2, eta)[2] for lam in lams}
    return out | {"eps": np.array(epss), "eq25": eq25}


@experiment
def fig2(cfg: Fig2Config, device: str = "cpu") -> dict:
    """Chapter Fig. 2 (paper Fig. 2): curves at λ = 0.9 for each d_out, theory Δt(d_out) for several λ,
    simulated markers."""
    steps = curve_steps(cfg.t_end, cfg.n_points)
    curves = {}
    for i, d in enumerate(cfg.douts):
        sim = LinearGD.sample(cfg.d_in, d, cfg.lam, cfg.n_seeds, cfg.seed + i, cfg.n_gen, cfg.lr, device=device)
        curves[d] = {"sim": sim.curves(steps, cfg.eps),
                     "theory": theory_curves(steps, cfg.lam, cfg.lr, cfg.eps, dout=d),
                     "theory_t": theory.grok_times(cfg.lam, cfg.eps, cfg.thr, cfg.lr, dout=d)}
    grid = np.unique(np.geomspace(*cfg.dout_grid_range, cfg.n_dout_grid).round())
    theory_dt = {lam: np.array([theory.grok_times(lam, cfg.eps, cfg.thr, cfg.lr, dout=int(d))[2] for d in grid])
                 for lam in cfg.right_lams}
    markers = {}
    for i, d in enumerate(cfg.marker_douts):
        sim = LinearGD.sample(cfg.d_in, d, cfg.marker_lam, 1, cfg.seed + cfg.marker_seed_offset + i, cfg.n_gen,
                              cfg.lr, device=device)
        markers[d] = {"sim": first_steps(sim, cfg.eps, cfg.thr, cfg.t_max),
                      "theory": theory.grok_times(cfg.marker_lam, cfg.eps, cfg.thr, cfg.lr, dout=d)}
    return {"steps": steps, "curves": curves, "dout_grid": grid, "theory_dt": theory_dt,
            "markers": markers, "marker_lam": cfg.marker_lam, "lam": cfg.lam, "eps": cfg.eps}


@experiment
def fig3(cfg: Fig3Config, device: str = "cpu") -> dict:
    """Chapter Fig. 3 (paper Fig. 3): curves at λ = 0.9 for each γ (same data and init, γ retuned),
    theory Δt(γ), markers, and the check of Eq. 38's small-γ limit."""
    steps = curve_steps(cfg.t_end, cfg.n_points)
    base = LinearGD.sample(cfg.d_in, 1, cfg.lam, cfg.n_seeds, cfg.seed, cfg.n_gen, cfg.lr, device=device)
    curves = {}
    for g in cfg.gammas:
        sim = base.retune(cfg.lr, g)
        curves[g] = {"sim": sim.curves(steps, cfg.eps),
                     "theory": theory_curves(steps, cfg.lam, cfg.lr, cfg.eps, gamma=g),
                     "sim_t": first_steps(sim, cfg.eps, cfg.thr, int(cfg.t_end)),
                     "theory_t": theory.grok_times(cfg.lam, cfg.eps, cfg.thr, cfg.lr, gamma=g),
                     "plateau": theory.wd_plateaus(cfg.lam, g)}
    grid = np.geomspace(*cfg.gamma_grid_range, cfg.n_gamma_grid)
    theory_dt = {lam: np.array([theory.grok_times(lam, cfg.eps, cfg.thr, cfg.lr, gamma=g)[2] for g in grid])
                 for lam in cfg.right_lams}
    base = LinearGD.sample(cfg.d_in, 1, cfg.marker_lam, cfg.n_seeds, cfg.seed + cfg.marker_seed_offset, cfg.n_gen,
                           cfg.lr, device=device)
    markers = {g: {"sim": first_steps(base.retune(cfg.lr, g), cfg.eps, cfg.thr, int(cfg.t_end)),
                   "theory": theory.grok_times(cfg.marker_lam, cfg.eps, cfg.thr, cfg.lr, gamma=g)}
               for g in cfg.marker_gammas}
    late = [cfg.plateau_t]
    return {"steps": steps, "curves": curves, "gamma_grid": grid, "theory_dt": theory_dt,
            "markers": markers, "marker_lam": cfg.marker_lam, "lam": cfg.lam, "eps": cfg.eps,
            "plateau_check": {(lam, g): (float(theory.losses(late, lam, cfg.lr, g)[0][0]),
                                         float(theory.losses(late, lam, cfg.lr, g)[1][0]),
                                         theory.wd_plateaus(lam, g))
                              for lam in cfg.plateau_lams for g in cfg.plateau_gammas}}


def fig5(lam: float = 0.9, eta: float = 0.01, t_range: tuple = (10, 1e6), n_points: int = 200) -> dict:
    """Chapter Fig. 5 (paper Fig. 5): exact losses (Eq. 8) against the late-time forms Eqs. 21, 22 and 10
    (theory; < 1 s)."""
    t = np.geomspace(*t_range, n_points)
    ltr, lgen = theory.losses(t, lam, eta)
    return {"t": t, "train": ltr, "gen": lgen, "eq21": theory.train_loss_eq21(t, lam, eta),
            "eq22": theory.gen_loss_eq22(t, lam, eta), "eq10": theory.gen_loss_eq10(ltr, lam), "lam": lam}


@experiment
def fig6(cfg: Fig6Config, device: str = "cpu") -> dict:
    """Chapter Fig. 6 (paper Fig. 6): label noise — the paper's App. C curves, the corrected theory and
    the simulation."""
    steps = curve_steps(cfg.t_end, cfg.n_points)
    base = LinearGD.sample(cfg.d_in, 1, cfg.lam, cfg.n_seeds, cfg.seed, cfg.n_gen, cfg.lr, device=device)
    t = np.maximum(steps, 1e-3)
    out = {}
    for s2 in cfg.sigma2s:
        p_tr, p_gen = theory.label_noise_losses(t, cfg.lam, s2, cfg.lr, fixed=False)
        c_tr, c_gen = theory.label_noise_losses(t, cfg.lam, s2, cfg.lr, fixed=True)
        out[s2] = {"paper": {"train_loss": p_tr, "test_loss": p_gen, "train_acc": theory.accuracy(p_tr, cfg.eps),
                             "test_acc": theory.accuracy(p_gen, cfg.eps)},
                   "corrected": {"train_loss": c_tr, "test_loss": c_gen,
                                 "train_acc": theory.accuracy(c_tr, cfg.eps),
                                 "test_acc": theory.accuracy(c_gen, cfg.eps)},
                   "sim": base.retune(cfg.lr, 0.0, s2).curves(steps, cfg.eps),
                   "floors": theory.label_noise_floors(cfg.lam, s2)}
    return {"steps": steps, "runs": out, "eps": cfg.eps, "lam": cfg.lam}


def _dt(cfg: Fig7Config, lam: float, gamma: float = 0.0, dout: int = 1) -> float:
    """Exact theory Δt at one point of a Fig. 7 phase diagram."""
    return theory.grok_times(lam=lam, eps=cfg.eps, thr=cfg.thr, eta=cfg.lr, gamma=gamma, dout=dout)[2]


@experiment
def fig7(cfg: Fig7Config, device: str = "cpu") -> dict:
    """Chapter Fig. 7 (paper Fig. 7): the three theory phase diagrams of Δt (∞: gen accuracy never
    reaches thr)."""
    n = cfg.n_grid
    gam = np.geomspace(*cfg.gamma_range, n)
    dout = np.unique(np.geomspace(*cfg.dout_range, n).round()).astype(int)
    lam = np.linspace(*cfg.lam_range, n)
    left = np.array([[_dt(cfg, cfg.left_lam, gamma=g, dout=int(d)) for g in gam] for d in dout])
    centre = np.array([[_dt(cfg, lm, gamma=g) for g in gam] for lm in lam])
    right = np.array([[_dt(cfg, lm, dout=int(d)) for d in dout] for lm in lam])
    return {"gamma": gam, "dout": dout, "lam": lam, "left": left, "centre": centre, "right": right,
            "left_lam": cfg.left_lam}
