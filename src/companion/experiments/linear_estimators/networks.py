"""The trained networks of Levi, Beck & Bar Sinai (ICLR 2024): the two-layer teacher–student
MLP of Fig. 4 (:mod:`companion.models.linear_teacher_student`) and Gromov's quadratic MLP on
modular addition of Fig. 8 (:mod:`companion.models.quadratic_mlp`), both trained by full-batch
GD through :func:`companion.train.fit`."""

from __future__ import annotations

import functools
import warnings

import numpy as np

from companion.events import first_crossings
from companion.experiments.linear_estimators.configs import Fig4Config, Fig8Config
from companion.experiments.linear_estimators.teacher_student import theory_curves
from companion.store.cache import experiment
from companion.theory import linear_estimators as theory
from companion.train.linear_estimators import TwoLayerTraining, train_quadratic_mlp, train_two_layer


@experiment
def fig4(cfg: Fig4Config, device: str = "cpu") -> dict:
    """Chapter Fig. 4 (paper Fig. 4): linear and tanh two-layer students for each d_h (``n_seeds`` draws,
    trained batched), with the corrected Eq. 18 theory."""
    lam = cfg.d_in / cfg.n_train
    runs = {}
    for d_h in cfg.d_hs:
        how = TwoLayerTraining(cfg.d_in, d_h, cfg.d_out, cfg.n_train, cfg.n_gen, cfg.lr, cfg.steps, cfg.eps,
                               cfg.n_evals)
        r = train_two_layer(how, ("linear", "tanh"), cfg.seed, device, cfg.n_seeds)
        loss0 = 1 / (2 * d_h * cfg.d_out)
        ltr, lgen = theory.two_layer_losses(np.maximum(r["step"], 1e-3), lam, cfg.d_out, loss0, cfg.lr)
        r["theory"] = {"train_loss": ltr, "test_loss": lgen, "train_acc": theory.accuracy(ltr, cfg.eps, cfg.d_out),
                       "test_acc": theory.accuracy(lgen, cfg.eps, cfg.d_out)}
        eq18 = functools.partial(theory.two_layer_losses, lam=lam, dout=cfg.d_out, loss0=loss0, eta=cfg.lr)
        r["theory_t"] = theory.grok_times(lam, cfg.eps, cfg.thr, dout=cfg.d_out, loss=eq18)
        r["loss0_theory"] = loss0
        runs[d_h] = r
    return {"runs": runs, "lam": lam, "eta": cfg.lr, "thr": cfg.thr, "d_in": cfg.d_in}


@experiment
def fig8(cfg: Fig8Config, device: str = "cpu") -> dict:
    """Chapter Fig. 8 (paper Fig. 8): modular addition (one model per draw and α, batched), its grokking
    times per draw, the (λ* − λ)⁻² fit and its rivals, and the teacher–student theory curves of the
    top-left panel."""
    r = train_quadratic_mlp(cfg.p, cfg.d_h, cfg.alphas, cfg.lr, cfg.steps, cfg.eval_every, cfg.seed, device,
                            cfg.n_seeds)
    r["t_tr"] = first_crossings(r["step"], r["train_acc"], cfg.thr)
    r["t_te"] = first_crossings(r["step"], r["test_acc"], cfg.thr)
    t = np.geomspace(*cfg.ts_t_range, cfg.ts_n_points)
    ts = {lam: theory_curves(t, lam, cfg.ts_lr, cfg.ts_eps) for lam in cfg.ts_lams}
    dt = np.array([grok_delays(tr, te) for tr, te in zip(r["t_tr"], r["t_te"])])  # (S, n_α)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an α never observed in any draw: NaN mean
        mean = np.nanmean(dt, 0)
    return {"mod": r, "ts": ts, "dt": dt, "dt_mean": mean, "fit": fit_divergence(r["lam"], mean),
            "forms": [compare_forms(r["lam"], d) for d in dt], "steps": cfg.steps}


@experiment
def fig8_below(cfg: Fig8Config, device: str = "cpu") -> dict:
    """App. G, footnote 3 ("below α = 0.5, the network cannot generalize"): Fig. 8's network, learning
    rate and budget at the training fractions ``cfg.alphas`` — those below ``cfg.gen_from``, and beside them,
    as the control, the paper's lowest α, which it says do generalise — ``n_seeds`` draws batched."""
    r = train_quadratic_mlp(cfg.p, cfg.d_h, cfg.alphas, cfg.lr, cfg.steps, cfg.eval_every, cfg.seed, device,
                            cfg.n_seeds)
    r["t_tr"] = first_crossings(r["step"], r["train_acc"], cfg.thr)
    r["t_te"] = first_crossings(r["step"], r["test_acc"], cfg.thr)
    return {"mod": r, "steps": cfg.steps, "thr": cfg.thr, "p": cfg.p, "gen_from": cfg.gen_from}


def grok_delays(t_tr: np.ndarray, t_te: np.ndarray) -> np.ndarray:
    """Δt = t*_te − t*_tr per α, NaN where either event was not observed."""
    return np.asarray(t_te, float) - np.asarray(t_tr, float)


def compare_forms(lam: np.ndarray, dt: np.ndarray) -> dict:
    """Fig. 8's (λ* − λ)⁻² form against the two rivals with as many parameters — an exponential
    log Δt = a + bλ and a power law log Δt = a + k log λ — by least squares in log Δt. With equal
    parameter counts the Gaussian likelihood ratio gives ΔAIC = n·ln(SSE_rival / SSE_paper):
    > 0 favours the paper's form. Returns each form's SSE and ``delta_aic`` against the better rival."""
    ok = np.isfinite(dt) & (dt > 0)
    x, y = np.asarray(lam, float)[ok], np.log(np.asarray(dt, float)[ok])
    if len(x) < 4:
        return {"n": int(len(x)), "sse": {}, "delta_aic": float("nan"), "fit": fit_divergence(x, np.exp(y))}

    def sse_linear(u: np.ndarray) -> float:
        A = np.stack([np.ones_like(u), u], 1)
        return float(((A @ np.linalg.lstsq(A, y, rcond=None)[0] - y) ** 2).sum())
    f = fit_divergence(x, np.exp(y))
    sse = {"paper": float((1 - f["r2"]) * ((y - y.mean()) ** 2).sum()), "exponential": sse_linear(x),
           "power law": sse_linear(np.log(x))}
    rival = min(sse["exponential"], sse["power law"])
    return {"n": int(len(x)), "sse": sse, "delta_aic": float(len(x) * np.log(rival / max(sse["paper"], 1e-300))),
            "fit": f}


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


def exponent_profile(lam: np.ndarray, dt: np.ndarray, ks: np.ndarray | None = None, n_candidates: int = 1500,
                     nearest: float = 1e-3, farthest: float = 20.0) -> dict:
    """Fig. 8's divergence with a free exponent, log Δt = log C − k log|λ* − λ|, fitted to every finite Δt
    of every draw (``dt`` (S, n_α) against ``lam`` (n_α,), pooled): for each k of a grid the least-squares SSE
    over λ* (candidates on both sides of the data, as :func:`fit_divergence`) and C (closed form). Returns the
    best k and its 95% profile-likelihood interval {k : n·ln(SSE(k)/SSE_min) ≤ 3.84} (χ²₁; an end of the
    grid where the interval reaches it: then ``open`` — the data bound k from below only), and the SSE profile."""
    ks = np.linspace(0.25, 8.0, 156) if ks is None else np.asarray(ks, float)
    d = np.asarray(dt, float)
    x = np.broadcast_to(np.asarray(lam, float), d.shape)
    ok = np.isfinite(d) & (d > 0)
    x, y = x[ok], np.log(d[ok])
    if len(np.unique(x)) < 4:
        return {"k": float("nan"), "interval": (float("nan"), float("nan")), "open": False, "n": int(len(x)),
                "ks": ks, "sse": np.full(len(ks), np.nan)}
    span = x.max() - x.min()
    cands = np.concatenate([np.linspace(x.max() + nearest * span, x.max() + farthest * span, n_candidates),
                            np.linspace(x.min() - farthest * span, x.min() - nearest * span, n_candidates)])
    logd = np.log(np.abs(cands[:, None] - x[None, :]))  # (M, n)
    sse = np.empty(len(ks))
    for i, k in enumerate(ks):
        r = y[None, :] + k * logd
        sse[i] = float(np.min(((r - r.mean(1, keepdims=True)) ** 2).sum(1)))
    best = int(np.argmin(sse))
    inside = len(x) * np.log(sse / sse[best]) <= 3.84
    return {"k": float(ks[best]), "interval": (float(ks[inside].min()), float(ks[inside].max())),
            "open": bool(inside[-1]), "n": int(len(x)), "ks": ks, "sse": sse}
