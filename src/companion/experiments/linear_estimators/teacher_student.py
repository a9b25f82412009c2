"""The Gaussian teacher–student figures of Levi, Beck & Bar Sinai (ICLR 2024): Figs. 1–3, 5–7
and the Eq. 11 check, theory (:mod:`companion.theory.linear_estimators`) against exact
simulation (:class:`~companion.theory.linear_estimators.LinearGD`, all seeds batched)."""

from __future__ import annotations

import numpy as np

from companion.cache import experiment
from companion.experiments.linear_estimators.configs import Fig1Config, Fig2Config, Fig3Config, Fig6Config, Fig7Config
from companion.theory import linear_estimators as theory
from companion.theory.linear_estimators import LinearGD
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
                              cfg.eta, device=device)
        if lam in cfg.curve_lams:
            curves[lam] = {"sim": sim.curves(steps, cfg.eps),
                           "theory": theory_curves(steps, lam, cfg.eta, cfg.eps)}
        if lam in cfg.dt_lams:
            sim_dt[lam] = {e: first_steps(sim, e, ERF2, cfg.t_max) for e in cfg.eps_right}
    grid = np.linspace(*cfg.lam_grid_range, cfg.n_theory)
    theory_dt = {e: np.array([theory.grok_times(lam, e, ERF2, cfg.eta)[2] for lam in grid]) for e in cfg.eps_right}
    theory_at = {e: {lam: theory.grok_times(lam, e, ERF2, cfg.eta) for lam in cfg.dt_lams} for e in cfg.eps_right}
    return {"steps": steps, "curves": curves, "sim_dt": sim_dt, "lam_grid": grid, "theory_dt": theory_dt,
            "theory_at": theory_at, "eq11": theory.dt_eq11(grid, cfg.eta), "eps": cfg.eps}


def eq11_ratios(lams=(0.5, 0.9), epss=(1e-2, 1e-3, 1e-4, 1e-6, 1e-9, 1e-12), eta: float = 0.01) -> dict:
    """Chapter table "Eq. 11 is the ε → 0 limit": Eq. 11 / exact Δt for several λ and ε (theory; fast)."""
    return {lam: np.array([theory.dt_eq11(lam, eta) / theory.grok_times(lam, e, ERF2, eta)[2] for e in epss])
            for lam in lams} | {"eps": np.array(epss)}


@experiment
def fig2(cfg: Fig2Config, device: str = "cpu") -> dict:
    """Chapter Fig. 2 (paper Fig. 2): curves at λ = 0.9 for each d_out, theory Δt(d_out) for several λ,
    simulated markers."""
    steps = curve_steps(cfg.t_end, cfg.n_points)
    curves = {}
    for i, d in enumerate(cfg.douts):
        sim = LinearGD.sample(cfg.d_in, d, cfg.lam, cfg.n_seeds, cfg.seed + i, cfg.n_gen, cfg.eta, device=device)
        curves[d] = {"sim": sim.curves(steps, cfg.eps),
                     "theory": theory_curves(steps, cfg.lam, cfg.eta, cfg.eps, dout=d),
                     "theory_t": theory.grok_times(cfg.lam, cfg.eps, cfg.thr, cfg.eta, dout=d)}
    grid = np.unique(np.geomspace(*cfg.dout_grid_range, cfg.n_dout_grid).round())
    theory_dt = {lam: np.array([theory.grok_times(lam, cfg.eps, cfg.thr, cfg.eta, dout=int(d))[2] for d in grid])
                 for lam in cfg.right_lams}
    markers = {}
    for i, d in enumerate(cfg.marker_douts):
        sim = LinearGD.sample(cfg.d_in, d, cfg.marker_lam, 1, cfg.seed + cfg.marker_seed_offset + i, cfg.n_gen,
                              cfg.eta, device=device)
        markers[d] = {"sim": first_steps(sim, cfg.eps, cfg.thr, cfg.t_max),
                      "theory": theory.grok_times(cfg.marker_lam, cfg.eps, cfg.thr, cfg.eta, dout=d)}
    return {"steps": steps, "curves": curves, "dout_grid": grid, "theory_dt": theory_dt,
            "markers": markers, "marker_lam": cfg.marker_lam, "lam": cfg.lam, "eps": cfg.eps}


@experiment
def fig3(cfg: Fig3Config, device: str = "cpu") -> dict:
    """Chapter Fig. 3 (paper Fig. 3): curves at λ = 0.9 for each γ (same data and init, γ retuned),
    theory Δt(γ), markers, and the check of Eq. 38's small-γ limit."""
    steps = curve_steps(cfg.t_end, cfg.n_points)
    base = LinearGD.sample(cfg.d_in, 1, cfg.lam, cfg.n_seeds, cfg.seed, cfg.n_gen, cfg.eta, device=device)
    curves = {}
    for g in cfg.gammas:
        sim = base.retune(cfg.eta, g)
        curves[g] = {"sim": sim.curves(steps, cfg.eps),
                     "theory": theory_curves(steps, cfg.lam, cfg.eta, cfg.eps, gamma=g),
                     "sim_t": first_steps(sim, cfg.eps, cfg.thr, int(cfg.t_end)),
                     "theory_t": theory.grok_times(cfg.lam, cfg.eps, cfg.thr, cfg.eta, gamma=g),
                     "plateau": theory.wd_plateaus(cfg.lam, g)}
    grid = np.geomspace(*cfg.gamma_grid_range, cfg.n_gamma_grid)
    theory_dt = {lam: np.array([theory.grok_times(lam, cfg.eps, cfg.thr, cfg.eta, gamma=g)[2] for g in grid])
                 for lam in cfg.right_lams}
    base = LinearGD.sample(cfg.d_in, 1, cfg.marker_lam, cfg.n_seeds, cfg.seed + cfg.marker_seed_offset, cfg.n_gen,
                           cfg.eta, device=device)
    markers = {g: {"sim": first_steps(base.retune(cfg.eta, g), cfg.eps, cfg.thr, int(cfg.t_end)),
                   "theory": theory.grok_times(cfg.marker_lam, cfg.eps, cfg.thr, cfg.eta, gamma=g)}
               for g in cfg.marker_gammas}
    late = [cfg.plateau_t]
    return {"steps": steps, "curves": curves, "gamma_grid": grid, "theory_dt": theory_dt,
            "markers": markers, "marker_lam": cfg.marker_lam, "lam": cfg.lam, "eps": cfg.eps,
            "plateau_check": {(lam, g): (float(theory.losses(late, lam, cfg.eta, g)[0][0]),
                                         float(theory.losses(late, lam, cfg.eta, g)[1][0]),
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
    base = LinearGD.sample(cfg.d_in, 1, cfg.lam, cfg.n_seeds, cfg.seed, cfg.n_gen, cfg.eta, device=device)
    t = np.maximum(steps, 1e-3)
    out = {}
    for s2 in cfg.sigma2s:
        p_tr, p_gen = theory.label_noise_losses(t, cfg.lam, s2, cfg.eta, fixed=False)
        c_tr, c_gen = theory.label_noise_losses(t, cfg.lam, s2, cfg.eta, fixed=True)
        out[s2] = {"paper": {"train_loss": p_tr, "test_loss": p_gen, "train_acc": theory.accuracy(p_tr, cfg.eps),
                             "test_acc": theory.accuracy(p_gen, cfg.eps)},
                   "corrected": {"train_loss": c_tr, "test_loss": c_gen,
                                 "train_acc": theory.accuracy(c_tr, cfg.eps),
                                 "test_acc": theory.accuracy(c_gen, cfg.eps)},
                   "sim": base.retune(cfg.eta, 0.0, s2).curves(steps, cfg.eps),
                   "floors": theory.label_noise_floors(cfg.lam, s2)}
    return {"steps": steps, "runs": out, "eps": cfg.eps, "lam": cfg.lam}


def _dt(cfg: Fig7Config, lam: float, gamma: float = 0.0, dout: int = 1) -> float:
    """Exact theory Δt at one point of a Fig. 7 phase diagram."""
    return theory.grok_times(lam=lam, eps=cfg.eps, thr=cfg.thr, eta=cfg.eta, gamma=gamma, dout=dout)[2]


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
