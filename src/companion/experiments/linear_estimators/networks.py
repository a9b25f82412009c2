"""The trained networks of Levi, Beck & Bar Sinai (ICLR 2024): the two-layer teacher–student
MLP of Fig. 4 (:mod:`companion.models.linear_teacher_student`) and Gromov's quadratic MLP on
modular addition of Fig. 8 (:mod:`companion.models.quadratic_mlp`), both trained by full-batch
GD through :func:`companion.train.fit`."""

from __future__ import annotations

import functools
import math

import numpy as np

from companion.cache import experiment
from companion.events import first_crossing
from companion.experiments.linear_estimators.configs import Fig4Config, Fig8Config
from companion.experiments.linear_estimators.teacher_student import theory_curves
from companion.theory import linear_estimators as theory
from companion.train.linear_estimators import train_quadratic_mlp, train_two_layer


@experiment
def fig4(cfg: Fig4Config, device: str = "cpu") -> dict:
    """Chapter Fig. 4 (paper Fig. 4): linear and tanh two-layer students for each d_h, with the corrected
    Eq. 18 theory."""
    lam = cfg.d_in / cfg.n_train
    runs = {}
    for d_h in cfg.d_hs:
        r = train_two_layer(cfg.d_in, d_h, cfg.d_out, cfg.n_train, cfg.n_gen, ("linear", "tanh"), cfg.eta,
                            cfg.steps, cfg.eps, cfg.n_evals, cfg.seed, device)
        loss0 = 1 / (2 * d_h * cfg.d_out)
        ltr, lgen = theory.two_layer_losses(np.maximum(r["step"], 1e-3), lam, cfg.d_out, loss0, cfg.eta)
        r["theory"] = {"train_loss": ltr, "test_loss": lgen, "train_acc": theory.accuracy(ltr, cfg.eps, cfg.d_out),
                       "test_acc": theory.accuracy(lgen, cfg.eps, cfg.d_out)}
        eq18 = functools.partial(theory.two_layer_losses, lam=lam, dout=cfg.d_out, loss0=loss0, eta=cfg.eta)
        r["theory_t"] = theory.grok_times(lam, cfg.eps, cfg.thr, dout=cfg.d_out, loss=eq18)
        r["loss0_theory"] = loss0
        runs[d_h] = r
    return {"runs": runs, "lam": lam, "eta": cfg.eta, "thr": cfg.thr}


@experiment
def fig8(cfg: Fig8Config, device: str = "cpu") -> dict:
    """Chapter Fig. 8 (paper Fig. 8): modular addition (one model per α, batched), its grokking times
    and (λ* − λ)⁻² fit, and the teacher–student theory curves of the top-left panel."""
    r = train_quadratic_mlp(cfg.p, cfg.d_h, cfg.alphas, cfg.lr, cfg.steps, cfg.eval_every, cfg.seed, device)
    r["t_tr"] = np.array([first_crossing(r["step"], a, cfg.thr, never=math.inf) for a in r["train_acc"]])
    r["t_te"] = np.array([first_crossing(r["step"], a, cfg.thr, never=math.inf) for a in r["test_acc"]])
    t = np.geomspace(*cfg.ts_t_range, cfg.ts_n_points)
    ts = {lam: theory_curves(t, lam, cfg.ts_eta, cfg.ts_eps) for lam in cfg.ts_lams}
    return {"mod": r, "ts": ts, "fit": fit_divergence(r["lam"], r["t_te"] - r["t_tr"])}


def fit_divergence(lam: np.ndarray, dt: np.ndarray, n_candidates: int = 4000, nearest: float = 1e-4,
                   farthest: float = 20.0) -> dict:
    """Least-squares fit of log Δt = log C − 2 log|λ* − λ| (Fig. 8's fit) over λ*, C in closed form.

    λ* is searched on ``n_candidates`` points on each side of the data, from ``nearest`` to
    ``farthest`` times the data's λ span away. Only finite, positive Δt enter. Returns C, λ*,
    R² of the log fit and the number of points n.
    """
    ok = np.isfinite(dt) & (dt > 0)
    x, y = np.asarray(lam)[ok], np.log(np.asarray(dt)[ok])
    if len(x) < 3:
        return {"C": float("nan"), "lam_star": float("nan"), "r2": float("nan"), "n": int(len(x))}
    span = x.max() - x.min()
    cands = np.concatenate([np.linspace(x.max() + nearest * span, x.max() + farthest * span, n_candidates),
                            np.linspace(x.min() - farthest * span, x.min() - nearest * span, n_candidates)])
    best = None
    for ls in cands:
        logc = np.mean(y + 2 * np.log(np.abs(ls - x)))
        res = y - (logc - 2 * np.log(np.abs(ls - x)))
        sse = float((res ** 2).sum())
        if best is None or sse < best[0]:
            best = (sse, ls, logc)
    r2 = 1 - best[0] / float(((y - y.mean()) ** 2).sum())
    return {"C": float(np.exp(best[2])), "lam_star": float(best[1]), "r2": r2, "n": int(len(x))}
