"""The critical training fraction across p (the synthesis chapter): Gu et al. against Levi et al.

Gu et al. Thm 3.12 bound the training fraction needed to grok from below by α ≥ 2 ln p / C (C: the
points within a fixed Manhattan distance of one point, which does not grow with p), so the critical
fraction *rises slowly* with p (∝ ln p). Levi et al.'s linear picture puts the critical point at a
ratio λ* = d_in/N_tr of input dimension to samples; on modular addition λ = 2/(α p) (App. G), so a
constant λ* gives a critical fraction α* = 2/(λ* p) ∝ 1/p.

The runs are Gromov's quadratic MLP of Levi et al. App. G (the linear-estimators chapter's Fig. 8
network, trained by its cached experiments, so the p and fractions that chapter runs are reused): at
each p, every fraction and seed gives the delay Δt = t_te − t_tr (Fig. 8's threshold). A censored
least-squares fit of log Δt = log C − 2 log(λ* − λ) per p (:func:`censored_fit`: a run whose test
accuracy never reaches the threshold within the budget only says Δt > steps − t_tr, a bound that
enters as a one-sided residual; it is never ∞) gives λ* and α*(p) = 2/(λ* p); the exponent
s = d ln α*/d ln p over the p's decides: Levi et al. s = −1, Gu et al. s ≈ 1/ln p > 0.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from companion.events import NOT_OBSERVED
from companion.experiments.linear_estimators import networks
from companion.experiments.linear_estimators.configs import (
    FIG8,
    FIG8_BELOW,
    FIG8_BELOW_CPU,
    FIG8_BELOW_SMOKE,
    FIG8_CPU,
    FIG8_SMOKE,
)
from companion.profiles import select
from companion.settings import one_of, unstated

#: which of the linear-estimators chapter's cached experiments trains a run
TRAINERS = ("fig8", "fig8_below")


@dataclass(frozen=True)
class CriticalFraction:
    """Runs of the quadratic MLP at several p: ``runs`` is ``((trainer, Fig8Config), ...)``, several
    runs of one p pooled (the trainer is :data:`TRAINERS`: the linear-estimators chapter's cached
    experiment that trains it). None of it is in the papers but the network (Levi et al. App. G)."""

    runs: tuple = unstated((("fig8_below", replace(FIG8, p=32)), ("fig8", FIG8),
                            ("fig8_below", replace(FIG8_BELOW, alphas=(0.3, 0.4))),
                            ("fig8_below", replace(FIG8, p=64))))
    n_grid: int = unstated(3000)  # λ* candidates of the fit
    farthest: float = unstated(10.0)  # the largest λ* candidate, in units of the largest λ run
    n_boot: int = unstated(400)  # seed-bootstrap resamples of the pooled exponent's interval

    def __post_init__(self):
        for trainer, _ in self.runs:
            one_of("critical-fraction trainer", trainer, TRAINERS)


CRITICAL = CriticalFraction()
#: cpu: p = 16, 24, 32 at the linear-estimators chapter's cpu Fig. 8 network (d_h = 100, η = 500, 800 steps,
#: 3 seeds); p = 24 is that chapter's Fig. 8 run (α 0.6–0.9), reused from its cache, and α = 0.3, 0.4 (its
#: App. G runs without their control fractions); at p = 16 and 32 five fractions each, the lowest below where
#: test accuracy reaches 0.95 within the budget in a trial run (every seed needs three observed delays at
#: each p for its own fit)
CRITICAL_CPU = replace(CRITICAL, runs=(("fig8_below", replace(FIG8_CPU, p=16, alphas=(0.6, 0.7, 0.75, 0.8, 0.9))),
                                       ("fig8", FIG8_CPU), ("fig8_below", replace(FIG8_BELOW_CPU, alphas=(0.3, 0.4))),
                                       ("fig8_below", replace(FIG8_CPU, p=32, alphas=(0.5, 0.6, 0.7, 0.8, 0.9)))))
CRITICAL_SMOKE = replace(CRITICAL, runs=(("fig8_below", replace(FIG8_SMOKE, p=16)), ("fig8", FIG8_SMOKE),
                                         ("fig8_below", replace(FIG8_BELOW_SMOKE, alphas=(0.4,))),
                                         ("fig8_below", replace(FIG8_SMOKE, p=20))),
                         n_grid=500, n_boot=50)
CRITICAL_PROFILES = {"paper": CRITICAL, "cpu": CRITICAL_CPU, "smoke": CRITICAL_SMOKE}


def critical_config(profile: str, seed: int = 0) -> CriticalFraction:
    """The profile's config, every run's first seed ``seed`` (as the linear-estimators chapter's ``config``)."""
    cfg = select(CRITICAL_PROFILES, profile)
    return replace(cfg, runs=tuple((t, replace(c, seed=seed)) for t, c in cfg.runs))


def critical_runs(cfg: CriticalFraction, device: str = "cpu") -> list[dict]:
    """Every run's delays (the trainers are cached): per run, p, the fractions, λ = 2/(αp), and per
    (seed, fraction) Δt where observed and the censoring bound steps − t_tr where not (NaN where the
    training accuracy never reached the threshold either)."""
    out = []
    for trainer, c in cfg.runs:
        m = getattr(networks, trainer)(c, device)["mod"]
        steps = float(m["step"][-1])
        t_tr, t_te = np.asarray(m["t_tr"], float), np.asarray(m["t_te"], float)
        out.append({"p": c.p, "alpha": np.asarray(m["alpha"], float), "lam": np.asarray(m["lam"], float),
                    "dt": t_te - t_tr, "censor": np.where(np.isnan(t_te), steps - t_tr, np.nan),
                    "steps": steps, "thr": c.thr, "d_h": c.d_h, "n_seeds": c.n_seeds})
    return out


def censored_fit(lam, dt, censor, n_grid: int = 3000, farthest: float = 10.0) -> dict:
    """Least squares in log Δt of log Δt = log C − 2 log(λ* − λ), with censored runs (Δt > ``censor``)
    as one-sided residuals: a censored run adds (log censor − prediction)² only where the fit predicts
    a delay shorter than its bound, nothing where λ ≥ λ* (it never generalises). λ* is searched above
    every observed λ up to ``farthest`` × the largest λ; log C is exact for each λ*. Returns λ*, C,
    the SSE, the number of observed runs, and the 95% profile interval of λ* (n·ln(SSE/SSE_min) ≤
    3.84; an end at the grid's edge is NOT_OBSERVED: unbounded)."""
    lam, dt, censor = (np.asarray(x, float).ravel() for x in (lam, dt, censor))
    ok, cen = np.isfinite(dt) & (dt > 0), np.isfinite(censor) & (censor > 0)
    n = int(ok.sum())
    if n < 3:
        return {"lam_star": NOT_OBSERVED, "C": NOT_OBSERVED, "sse": NOT_OBSERVED, "n": n,
                "interval": (NOT_OBSERVED, NOT_OBSERVED)}
    x, y, xc, yc = lam[ok], np.log(dt[ok]), lam[cen], np.log(censor[cen])
    lo, hi = x.max(), farthest * max(lam.max(), x.max())
    grid = x.max() + (hi - lo) * np.geomspace(1e-5, 1, n_grid)
    sse, logcs = _sse_at(grid, x, y, xc, yc)
    i = int(np.argmin(sse))
    smin = max(sse[i], 1e-12)
    inside = np.nonzero(n * np.log(np.maximum(sse, 1e-12) / smin) <= 3.84)[0]
    a, b = inside.min(), inside.max()
    return {"lam_star": float(grid[i]), "C": float(np.exp(logcs[i])), "sse": float(sse[i]), "n": n,
            "interval": (float(grid[a]) if a > 0 else NOT_OBSERVED,
                         float(grid[b]) if b < n_grid - 1 else NOT_OBSERVED)}


def _sse_at(grid: np.ndarray, x, y, xc, yc) -> tuple[np.ndarray, np.ndarray]:
    """(SSE, log C) at each λ* of ``grid``: log C by least squares over the observed runs and the
    censored runs whose bound the fit violates (the active set, iterated to a fixed point)."""
    ls = grid[:, None]
    g = -2 * np.log(ls - x)  # (G, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        gc = np.where(xc < ls, -2 * np.log(np.abs(ls - xc)), np.inf)  # (G, m): inf where λ ≥ λ* (never)
    base = (y - g).sum(1)
    logc = base / len(y)
    for _ in range(30):
        active = logc[:, None] + gc < yc
        new = (base + np.where(active, yc - gc, 0.0).sum(1)) / (len(y) + active.sum(1))
        if np.allclose(new, logc, atol=1e-12, rtol=0):
            break
        logc = new
    cres = np.minimum(np.where(np.isfinite(gc), logc[:, None] + gc - yc, 0.0), 0.0)
    return ((y - g - logc[:, None]) ** 2).sum(1) + (cres ** 2).sum(1), logc


@dataclass(frozen=True)
class CriticalSummary:
    """The critical fraction per p: pooled over seeds (with the profile interval), and per seed; the
    exponent s = d ln α*/d ln p per seed and pooled (with a seed-bootstrap 95% interval)."""

    ps: tuple
    pooled: dict  # {p: censored_fit of every seed's runs at p}
    alpha_star: dict  # {p: (α*, α* interval low, high)} from the pooled fit (NOT_OBSERVED: unbounded)
    per_seed: dict  # {p: [α* per seed]}
    exponent_per_seed: list  # s per seed (NOT_OBSERVED where some p has no fit)
    exponent: object  # s of the pooled α*(p)
    exponent_interval: tuple  # its seed-bootstrap 95% interval
    n_censored: dict  # {p: (censored runs, runs)}


def _exponent(ps, a) -> object:
    if any(not np.isfinite(v) for v in a) or len(ps) < 2:
        return NOT_OBSERVED
    return float(np.polyfit(np.log(ps), np.log(a), 1)[0])


def _flo(x) -> float:
    return float(x) if isinstance(x, float) else np.nan


def summarise(cfg: CriticalFraction, runs: list[dict], seed: int = 0) -> CriticalSummary:
    """:class:`CriticalSummary` of :func:`critical_runs` (module docstring)."""
    ps = tuple(sorted({r["p"] for r in runs}))
    S = min(r["n_seeds"] for r in runs)
    by = {p: [r for r in runs if r["p"] == p] for p in ps}

    def stack(p, seeds, k):  # (len(seeds) · fractions) values of key k at p
        return np.concatenate([r[k][list(seeds)].ravel() if k != "lam" else np.tile(r[k], len(seeds))
                               for r in by[p]])

    memo: dict = {}

    def fit(p, seeds):
        key = (p, tuple(sorted(int(i) for i in seeds)))
        if key not in memo:
            memo[key] = censored_fit(stack(p, key[1], "lam"), stack(p, key[1], "dt"), stack(p, key[1], "censor"),
                                     cfg.n_grid, cfg.farthest)
        return memo[key]

    def alpha(f, p):
        return 2 / (f * p) if isinstance(f, float) else NOT_OBSERVED

    pooled = {p: fit(p, range(S)) for p in ps}
    alpha_star = {p: (alpha(pooled[p]["lam_star"], p), alpha(pooled[p]["interval"][1], p),
                      alpha(pooled[p]["interval"][0], p)) for p in ps}
    per_seed = {p: [alpha(fit(p, [s])["lam_star"], p) for s in range(S)] for p in ps}
    exps = [_exponent(ps, [_flo(per_seed[p][s]) for p in ps]) for s in range(S)]
    g = np.random.default_rng(seed)
    boot = []
    for _ in range(cfg.n_boot):
        pick = {p: g.integers(0, S, S) for p in ps}
        boot.append(_flo(_exponent(ps, [_flo(alpha(fit(p, pick[p])["lam_star"], p)) for p in ps])))
    boot = np.array(boot)
    interval = (tuple(float(v) for v in np.percentile(boot, [2.5, 97.5])) if np.isfinite(boot).all()
                else (NOT_OBSERVED, NOT_OBSERVED))
    cens = {p: (int(sum(np.isfinite(r["censor"][:S]).sum() for r in by[p])),
                int(sum(r["dt"][:S].size for r in by[p]))) for p in ps}
    return CriticalSummary(ps, pooled, alpha_star, per_seed, exps,
                           _exponent(ps, [_flo(alpha_star[p][0]) for p in ps]), interval, cens)
