"""Grokking in linear estimators (Levi, Beck & Bar Sinai, ICLR 2024): every figure, theory
against exact simulation.

Figs. 1–3, 5–7 use the Gaussian teacher–student model (:mod:`companion.models.linear_teacher_student`,
simulated exactly in the eigenbasis) and its theory (:mod:`companion.theory.linear_estimators`);
Fig. 4 trains a two-layer student; Fig. 8 trains Gromov's quadratic MLP on modular addition
(:mod:`companion.models.quadratic_mlp`). Config defaults are the paper's values; where the paper leaves
a value open (seeds, N_gen, the λ/γ/ε sets, step counts) the default is the reproduction
spec's choice and is marked "unspecified" in a comment.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from companion.cache import experiment
from companion.models.linear_teacher_student import LinearGD, train_two_layer
from companion.models.quadratic_mlp import train_quadratic_mlp
from companion.profiles import select
from companion.theory import linear_estimators as th

TITLE = "Grokking in linear estimators"
PAPER_ITEMS = tuple(f"Fig. {i}" for i in range(1, 9))
ERF2 = th.grok_threshold_erf2()  # Fig. 1 threshold erf(√2) ⇔ L = ε/4


# ----------------------------------------------------------------------------- configs
@dataclass(frozen=True)
class Fig1Config:
    """§3.1, Fig. 1: d_out = 1, γ = 0, η = 0.01, d_in = 10³, ε = 1e-3."""

    d_in: int = 1000
    eta: float = 0.01
    eps: float = 1e-3
    curve_lams: tuple = (0.1, 0.9, 1.5)  # left/centre panels
    dt_lams: tuple = (0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95)  # right-panel markers (unspecified)
    eps_right: tuple = (1e-3, 1e-4)  # the right panel's two ε (unspecified)
    n_seeds: int = 4  # unspecified
    n_gen: int = 5000  # unspecified
    t_end: float = 3e5  # curves end (unspecified)
    n_points: int = 60  # curve evaluation points, log-spaced
    t_max: int = 10 ** 7  # bisection limit for simulated t*
    n_theory: int = 40  # λ grid of the theory curves
    seed: int = 0


@dataclass(frozen=True)
class Fig2Config:
    """§3.3.1, Fig. 2: d_out > 1 at λ = 0.9; Δt vs d_out for several λ."""

    d_in: int = 1000
    eta: float = 0.01
    eps: float = 1e-3
    lam: float = 0.9
    douts: tuple = (1, 50, 700)
    right_lams: tuple = (0.3, 0.5, 0.7, 0.9)  # unspecified
    n_dout_grid: int = 30  # theory d_out grid in [1, 2000]
    marker_lam: float = 0.5
    marker_douts: tuple = (1, 10, 100, 300, 700)
    n_seeds: int = 3  # curves (unspecified); markers use 1 seed
    n_gen: int = 5000  # unspecified
    t_end: float = 1e6
    n_points: int = 50
    thr: float = 0.95
    seed: int = 0


@dataclass(frozen=True)
class Fig3Config:
    """§3.3.2, Fig. 3: weight decay (torch ``weight_decay``), d_out = 1, λ = 0.9."""

    d_in: int = 1000
    eta: float = 0.01
    eps: float = 1e-3
    lam: float = 0.9
    gammas: tuple = (1e-5, 1e-3, 1e-2)
    right_lams: tuple = (0.3, 0.5, 0.7, 0.9)  # unspecified
    n_gamma_grid: int = 60  # theory γ grid in [1e-6, 1e-1]
    marker_lam: float = 0.5
    marker_gammas: tuple = (1e-5, 1e-3, 1e-2, 2e-2)
    n_seeds: int = 3
    n_gen: int = 5000
    t_end: float = 1e7
    n_points: int = 60
    thr: float = 0.95
    seed: int = 0


@dataclass(frozen=True)
class Fig4Config:
    """§3.4, Fig. 4: MLP 1000–d_h–5 (linear and tanh), η = 0.01, ε = 1e-4 (λ, steps unspecified)."""

    d_in: int = 1000
    n_train: int = 2000  # λ = 0.5 (unspecified)
    n_gen: int = 2000
    d_hs: tuple = (50, 200)
    d_out: int = 5
    eta: float = 0.01
    steps: int = 40_000
    eps: float = 1e-4
    n_evals: int = 200
    thr: float = 0.95
    seed: int = 0


@dataclass(frozen=True)
class Fig6Config:
    """App. C, Fig. 6: label noise, λ = 0.9, ε = 0.01 (σ² values unspecified)."""

    d_in: int = 1000
    eta: float = 0.01
    eps: float = 0.01
    lam: float = 0.9
    sigma2s: tuple = (0.0, 1e-3, 2.5e-3, 1e-2)
    n_seeds: int = 3
    n_gen: int = 5000
    t_end: float = 1e6
    n_points: int = 50
    seed: int = 0


@dataclass(frozen=True)
class Fig7Config:
    """App. E, Fig. 7: phase diagrams of Δt, η₀ = 0.01, ε = 1e-3, A(t*) = 0.95 (ranges unspecified)."""

    eta: float = 0.01
    eps: float = 1e-3
    thr: float = 0.95
    n_grid: int = 40
    left_lam: float = 0.5
    gamma_range: tuple = (1e-6, 1e-1)
    dout_range: tuple = (1, 2000)
    lam_range: tuple = (0.05, 0.99)


@dataclass(frozen=True)
class Fig8Config:
    """App. G, Fig. 8: modular addition (Gromov 2023), p = 48, d_h = 400, η = 500, MSE."""

    p: int = 48
    d_h: int = 400
    lr: float = 500.0
    alphas: tuple = (0.5, 0.6, 0.7, 0.8, 0.9)
    steps: int = 6000  # unspecified
    eval_every: int = 20
    thr: float = 0.95
    ts_lams: tuple = (0.1, 0.3, 0.5, 0.7, 0.9)  # top-left teacher–student panel (unspecified)
    ts_eps: float = 1e-3
    seed: int = 0


PAPER = {"fig1": Fig1Config(), "fig2": Fig2Config(), "fig3": Fig3Config(), "fig4": Fig4Config(),
         "fig6": Fig6Config(), "fig7": Fig7Config(), "fig8": Fig8Config()}

_cpu = {
    **PAPER,
    "fig1": replace(PAPER["fig1"], n_gen=3000),
    "fig2": replace(PAPER["fig2"], n_gen=2000, n_points=40),
    "fig3": replace(PAPER["fig3"], n_gen=3000, n_gamma_grid=24),
    # tanh at d_in = 1000 costs ~30 min on a CPU: d_in = 250 at the same λ and τ-equivalent η·steps
    "fig4": replace(PAPER["fig4"], d_in=250, n_train=500, eta=0.5, steps=800),
    "fig6": replace(PAPER["fig6"], n_gen=2000),
    "fig7": replace(PAPER["fig7"], n_grid=16),
    # p = 48, d_h = 400 takes ~5 min per α on one core; α = 0.5 does not grok at p = 32 within 2500 steps
    "fig8": replace(PAPER["fig8"], p=32, d_h=200, alphas=(0.6, 0.7, 0.8, 0.9), steps=1500, eval_every=10),
}
_smoke = {
    "fig1": replace(_cpu["fig1"], d_in=200, dt_lams=(0.1, 0.5, 0.9), n_seeds=2, n_gen=500, n_points=20,
                    n_theory=8),
    "fig2": replace(_cpu["fig2"], d_in=200, marker_douts=(1, 10), right_lams=(0.5,), n_seeds=1,
                    n_dout_grid=6, n_gen=500, n_points=15),
    "fig3": replace(_cpu["fig3"], d_in=200, marker_gammas=(1e-3, 2e-2), right_lams=(0.5,), n_gamma_grid=6,
                    n_seeds=1, n_gen=500, n_points=15),
    "fig4": replace(_cpu["fig4"], d_in=100, n_train=200, n_gen=500, steps=300, n_evals=40),
    "fig6": replace(_cpu["fig6"], d_in=200, n_seeds=1, n_gen=500, n_points=15),
    "fig7": replace(_cpu["fig7"], n_grid=5),
    "fig8": replace(_cpu["fig8"], p=24, d_h=100, alphas=(0.7, 0.8, 0.9), steps=500),
}
PROFILES = {"paper": PAPER, "cpu": _cpu, "smoke": _smoke}
FIGURES = tuple(PAPER)


def config(fig: str, profile: str, seed: int = 0):
    """The configuration of ``fig`` ("fig1", …) at ``profile`` with ``seed`` (if it has one)."""
    cfg = select(PROFILES, profile)[fig]
    return replace(cfg, seed=seed) if hasattr(cfg, "seed") else cfg


def departures_table(profile: str):
    """Markdown table of every departure of ``profile`` from the paper's settings."""
    from companion.profiles import departures_table as table

    return table({f: (select(PROFILES, profile)[f], PAPER[f]) for f in FIGURES}, profile)


# ----------------------------------------------------------------------------- helpers
def _log_steps(t_end: float, n: int) -> np.ndarray:
    return np.unique(np.concatenate([[0], np.geomspace(1, t_end, n).round()]))


def _first_steps(sim: LinearGD, eps: float, thr: float, t_max: int) -> dict:
    tr, gen = sim.first_steps(eps, thr, t_max)
    return {"t_tr": tr, "t_gen": gen, "dt": gen - tr}


def _theory_curves(steps, lam, eta, eps, gamma=0.0, dout=1) -> dict:
    ltr, lgen = th.losses(np.maximum(steps, 1e-3), lam, eta, gamma, dout)
    return {"train_loss": ltr, "test_loss": lgen, "train_acc": th.accuracy(ltr, eps, dout),
            "test_acc": th.accuracy(lgen, eps, dout)}


# ----------------------------------------------------------------------------- Fig. 1
@experiment
def fig1(cfg: Fig1Config, device: str = "cpu") -> dict:
    """Curves for λ ∈ curve_lams and simulated/theory Δt vs λ for two ε (all seeds batched)."""
    steps = _log_steps(cfg.t_end, cfg.n_points)
    curves, sim_dt = {}, {}
    for lam in sorted(set(cfg.curve_lams) | set(cfg.dt_lams)):
        sim = LinearGD.sample(cfg.d_in, 1, lam, cfg.n_seeds, cfg.seed + int(1000 * lam), cfg.n_gen,
                              cfg.eta, device=device)
        if lam in cfg.curve_lams:
            curves[lam] = {"sim": sim.curves(steps, cfg.eps),
                           "theory": _theory_curves(steps, lam, cfg.eta, cfg.eps)}
        if lam in cfg.dt_lams:
            sim_dt[lam] = {e: _first_steps(sim, e, ERF2, cfg.t_max) for e in cfg.eps_right}
    grid = np.linspace(0.05, 0.97, cfg.n_theory)
    theory_dt = {e: np.array([th.grok_times(l, e, ERF2, cfg.eta)[2] for l in grid]) for e in cfg.eps_right}
    theory_at = {e: {l: th.grok_times(l, e, ERF2, cfg.eta) for l in cfg.dt_lams} for e in cfg.eps_right}
    return {"steps": steps, "curves": curves, "sim_dt": sim_dt, "lam_grid": grid, "theory_dt": theory_dt,
            "theory_at": theory_at, "eq11": th.dt_eq11(grid, cfg.eta), "eps": cfg.eps}


def eq11_ratios(lams=(0.5, 0.9), epss=(1e-2, 1e-3, 1e-4, 1e-6, 1e-9, 1e-12), eta: float = 0.01) -> dict:
    """Eq. 11 / exact Δt for several λ and ε (theory only; fast)."""
    return {lam: np.array([th.dt_eq11(lam, eta) / th.grok_times(lam, e, ERF2, eta)[2] for e in epss])
            for lam in lams} | {"eps": np.array(epss)}


# ----------------------------------------------------------------------------- Fig. 2
@experiment
def fig2(cfg: Fig2Config, device: str = "cpu") -> dict:
    """Curves at λ = 0.9 for each d_out, theory Δt(d_out) for several λ, simulated markers."""
    steps = _log_steps(cfg.t_end, cfg.n_points)
    curves = {}
    for i, d in enumerate(cfg.douts):
        sim = LinearGD.sample(cfg.d_in, d, cfg.lam, cfg.n_seeds, cfg.seed + i, cfg.n_gen, cfg.eta, device=device)
        curves[d] = {"sim": sim.curves(steps, cfg.eps),
                     "theory": _theory_curves(steps, cfg.lam, cfg.eta, cfg.eps, dout=d),
                     "theory_t": th.grok_times(cfg.lam, cfg.eps, cfg.thr, cfg.eta, dout=d)}
    grid = np.unique(np.geomspace(1, 2000, cfg.n_dout_grid).round())
    theory_dt = {l: np.array([th.grok_times(l, cfg.eps, cfg.thr, cfg.eta, dout=int(d))[2] for d in grid])
                 for l in cfg.right_lams}
    markers = {}
    for i, d in enumerate(cfg.marker_douts):
        sim = LinearGD.sample(cfg.d_in, d, cfg.marker_lam, 1, cfg.seed + 100 + i, cfg.n_gen, cfg.eta,
                              device=device)
        markers[d] = {"sim": _first_steps(sim, cfg.eps, cfg.thr, int(10 * cfg.t_end)),
                      "theory": th.grok_times(cfg.marker_lam, cfg.eps, cfg.thr, cfg.eta, dout=d)}
    return {"steps": steps, "curves": curves, "dout_grid": grid, "theory_dt": theory_dt,
            "markers": markers, "marker_lam": cfg.marker_lam, "lam": cfg.lam, "eps": cfg.eps}


# ----------------------------------------------------------------------------- Fig. 3
@experiment
def fig3(cfg: Fig3Config, device: str = "cpu") -> dict:
    """Curves at λ = 0.9 for each γ (same data and init, γ retuned), theory Δt(γ), markers."""
    steps = _log_steps(cfg.t_end, cfg.n_points)
    base = LinearGD.sample(cfg.d_in, 1, cfg.lam, cfg.n_seeds, cfg.seed, cfg.n_gen, cfg.eta, device=device)
    curves = {}
    for g in cfg.gammas:
        sim = base.retune(cfg.eta, g)
        curves[g] = {"sim": sim.curves(steps, cfg.eps),
                     "theory": _theory_curves(steps, cfg.lam, cfg.eta, cfg.eps, gamma=g),
                     "sim_t": _first_steps(sim, cfg.eps, cfg.thr, int(cfg.t_end)),
                     "theory_t": th.grok_times(cfg.lam, cfg.eps, cfg.thr, cfg.eta, gamma=g),
                     "plateau": th.wd_plateaus(cfg.lam, g)}
    grid = np.geomspace(1e-6, 1e-1, cfg.n_gamma_grid)
    theory_dt = {l: np.array([th.grok_times(l, cfg.eps, cfg.thr, cfg.eta, gamma=g)[2] for g in grid])
                 for l in cfg.right_lams}
    base = LinearGD.sample(cfg.d_in, 1, cfg.marker_lam, cfg.n_seeds, cfg.seed + 1, cfg.n_gen, cfg.eta,
                           device=device)
    markers = {g: {"sim": _first_steps(base.retune(cfg.eta, g), cfg.eps, cfg.thr, int(cfg.t_end)),
                   "theory": th.grok_times(cfg.marker_lam, cfg.eps, cfg.thr, cfg.eta, gamma=g)}
               for g in cfg.marker_gammas}
    return {"steps": steps, "curves": curves, "gamma_grid": grid, "theory_dt": theory_dt,
            "markers": markers, "marker_lam": cfg.marker_lam, "lam": cfg.lam, "eps": cfg.eps,
            "plateau_check": {(l, g): (float(th.losses([1e9], l, cfg.eta, g)[0][0]),
                                       float(th.losses([1e9], l, cfg.eta, g)[1][0]), th.wd_plateaus(l, g))
                              for l in (0.3, 0.5) for g in (1e-5, 1e-4)}}


# ----------------------------------------------------------------------------- Fig. 4
@experiment
def fig4(cfg: Fig4Config, device: str = "cpu") -> dict:
    """Linear and tanh two-layer students for each d_h, with the corrected Eq. 18 theory."""
    lam = cfg.d_in / cfg.n_train
    runs = {}
    for d_h in cfg.d_hs:
        r = train_two_layer(cfg.d_in, d_h, cfg.d_out, cfg.n_train, cfg.n_gen, ("linear", "tanh"), cfg.eta,
                            cfg.steps, cfg.eps, cfg.n_evals, cfg.seed, device)
        loss0 = 1 / (2 * d_h * cfg.d_out)
        ltr, lgen = th.two_layer_losses(np.maximum(r["step"], 1e-3), lam, cfg.d_out, loss0, cfg.eta)
        r["theory"] = {"train_loss": ltr, "test_loss": lgen, "train_acc": th.accuracy(ltr, cfg.eps, cfg.d_out),
                       "test_acc": th.accuracy(lgen, cfg.eps, cfg.d_out)}
        r["theory_t"] = th.grok_times(lam, cfg.eps, cfg.thr, dout=cfg.d_out, loss=lambda t: th.two_layer_losses(
            t, lam, cfg.d_out, loss0, cfg.eta))
        r["loss0_theory"] = loss0
        runs[d_h] = r
    return {"runs": runs, "lam": lam, "eta": cfg.eta, "thr": cfg.thr}


def first_step(steps: np.ndarray, acc: np.ndarray, thr: float) -> float:
    """First evaluated step with acc ≥ thr (∞ if never)."""
    ok = np.asarray(acc) >= thr
    return float(steps[np.argmax(ok)]) if ok.any() else float("inf")


# ----------------------------------------------------------------------------- Fig. 5
def fig5(lam: float = 0.9, eta: float = 0.01) -> dict:
    """Exact losses (Eq. 8) against the late-time forms Eqs. 21, 22 and 10 (theory; < 1 s)."""
    t = np.geomspace(10, 1e6, 200)
    ltr, lgen = th.losses(t, lam, eta)
    return {"t": t, "train": ltr, "gen": lgen, "eq21": th.train_loss_eq21(t, lam, eta),
            "eq22": th.gen_loss_eq22(t, lam, eta), "eq10": th.gen_loss_eq10(ltr, lam), "lam": lam}


# ----------------------------------------------------------------------------- Fig. 6
@experiment
def fig6(cfg: Fig6Config, device: str = "cpu") -> dict:
    """Label noise: the paper's App. C curves, the corrected theory and the simulation."""
    steps = _log_steps(cfg.t_end, cfg.n_points)
    base = LinearGD.sample(cfg.d_in, 1, cfg.lam, cfg.n_seeds, cfg.seed, cfg.n_gen, cfg.eta, device=device)
    out = {}
    for s2 in cfg.sigma2s:
        t = np.maximum(steps, 1e-3)
        p_tr, p_gen = th.label_noise_losses(t, cfg.lam, s2, cfg.eta, fixed=False)
        c_tr, c_gen = th.label_noise_losses(t, cfg.lam, s2, cfg.eta, fixed=True)
        out[s2] = {"paper": {"train_loss": p_tr, "test_loss": p_gen},
                   "corrected": {"train_loss": c_tr, "test_loss": c_gen},
                   "sim": base.retune(cfg.eta, 0.0, s2).curves(steps, cfg.eps),
                   "floors": th.label_noise_floors(cfg.lam, s2)}
        for k in ("paper", "corrected"):
            for q in ("train", "test"):
                out[s2][k][f"{q}_acc"] = th.accuracy(out[s2][k][f"{q}_loss"], cfg.eps)
    return {"steps": steps, "runs": out, "eps": cfg.eps, "lam": cfg.lam}


# ----------------------------------------------------------------------------- Fig. 7
@experiment
def fig7(cfg: Fig7Config, device: str = "cpu") -> dict:
    """The three theory phase diagrams of Δt (∞: gen accuracy never reaches thr)."""
    n = cfg.n_grid
    gam = np.geomspace(*cfg.gamma_range, n)
    dout = np.unique(np.geomspace(*cfg.dout_range, n).round()).astype(int)
    lam = np.linspace(*cfg.lam_range, n)
    dt = lambda **kw: th.grok_times(eps=cfg.eps, thr=cfg.thr, eta=cfg.eta, **kw)[2]  # noqa: E731
    left = np.array([[dt(lam=cfg.left_lam, gamma=g, dout=int(d)) for g in gam] for d in dout])
    centre = np.array([[dt(lam=l, gamma=g) for g in gam] for l in lam])
    right = np.array([[dt(lam=l, dout=int(d)) for d in dout] for l in lam])
    return {"gamma": gam, "dout": dout, "lam": lam, "left": left, "centre": centre, "right": right,
            "left_lam": cfg.left_lam}


# ----------------------------------------------------------------------------- Fig. 8
@experiment
def fig8(cfg: Fig8Config, device: str = "cpu") -> dict:
    """Modular addition (one model per α, batched) and the teacher–student theory curves."""
    r = train_quadratic_mlp(cfg.p, cfg.d_h, cfg.alphas, cfg.lr, cfg.steps, cfg.eval_every, cfg.seed, device)
    r["t_tr"] = np.array([first_step(r["step"], a, cfg.thr) for a in r["train_acc"]])
    r["t_te"] = np.array([first_step(r["step"], a, cfg.thr) for a in r["test_acc"]])
    t = np.geomspace(1, 1e7, 300)
    ts = {l: _theory_curves(t, l, 0.01, cfg.ts_eps) for l in cfg.ts_lams}
    return {"mod": r, "ts": ts, "fit": fit_divergence(r["lam"], r["t_te"] - r["t_tr"])}


def fit_divergence(lam: np.ndarray, dt: np.ndarray) -> dict:
    """Least-squares fit of log Δt = log C − 2 log|λ* − λ| over λ* (grid), C in closed form.

    Only finite, positive Δt enter. Returns C, λ*, R² of the log fit.
    """
    ok = np.isfinite(dt) & (dt > 0)
    x, y = np.asarray(lam)[ok], np.log(np.asarray(dt)[ok])
    if len(x) < 3:
        return {"C": float("nan"), "lam_star": float("nan"), "r2": float("nan"), "n": int(len(x))}
    span = x.max() - x.min()
    cands = np.concatenate([np.linspace(x.max() + 1e-4 * span, x.max() + 20 * span, 4000),
                            np.linspace(x.min() - 20 * span, x.min() - 1e-4 * span, 4000)])
    best = None
    for ls in cands:
        logc = np.mean(y + 2 * np.log(np.abs(ls - x)))
        res = y - (logc - 2 * np.log(np.abs(ls - x)))
        sse = float((res ** 2).sum())
        if best is None or sse < best[0]:
            best = (sse, ls, logc)
    r2 = 1 - best[0] / float(((y - y.mean()) ** 2).sum())
    return {"C": float(np.exp(best[2])), "lam_star": float(best[1]), "r2": r2, "n": int(len(x))}


# ----------------------------------------------------------------------------- all
def run_all(profile: str, device: str, seed: int = 0) -> None:
    """Compute every experiment the chapter shows (fills the cache)."""
    for f in ("fig1", "fig2", "fig3", "fig4", "fig6", "fig7", "fig8"):
        globals()[f](config(f, profile, seed), device)
