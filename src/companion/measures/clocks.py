"""Time diagnostics read off a training history (the synthesis chapter's "four clocks"; Levi et al. 2024 §3.1).

* :func:`crossing_step` — the one transition time used for every diagnostic: the first logged
  step after t_tr at which the diagnostic has moved a given fraction (½ by default) of the way
  from its value at t_tr to its extremum after t_tr;
* :func:`forecast_delay` — Levi et al.'s grokking delay without their linear model: Eqs. 9–11
  say the delay is the time the test loss needs to fall from L_te(t_tr) to the level
  L_tr(t_tr) at which the training accuracy crossed, so Δt̂ = ln(L_te(t_tr)/L_tr(t_tr)) / r with
  r the test loss's log-decay rate at t_tr (Eq. 10: both losses decay at 4η(1 − √λ)² late on,
  with L_te/L_tr = (1 − √λ)⁻², which turns this Δt̂ into Eq. 11);
* :func:`threshold_elasticity` — how the delay stretches with the accuracy threshold.

Conventions of :mod:`companion.events`: an event that never happens is
:data:`~companion.events.NOT_OBSERVED`; histories are ``steps`` (increasing) and values per step.
"""

from __future__ import annotations

import math

import numpy as np

from companion.events import NOT_OBSERVED, first_crossing, observed

#: a diagnostic "never moves" after t_tr when its largest excursion is at most this fraction of
#: its magnitude there (max(|v(t_tr)|, |extremum|))
MOVE_RTOL = 1e-3


def _np(x) -> np.ndarray:
    """A history as a numpy array in its own float dtype (so that a float32 accuracy is compared with
    float32(threshold), as :func:`companion.events.first_crossing` does); torch tensors on any device too."""
    if hasattr(x, "detach"):
        x = x.detach().cpu().numpy()
    x = np.asarray(x)
    return x if np.issubdtype(x.dtype, np.floating) else x.astype(float)


def _from(steps, t_tr) -> int | None:
    """Index of the first logged step ≥ t_tr, None if there is none (or t_tr was not observed)."""
    if not observed(t_tr):
        return None
    i = int(np.searchsorted(_np(steps), float(t_tr), side="left"))
    return i if i < len(steps) else None


def crossing_step(steps, values, t_tr, fraction: float = 0.5, rtol: float = MOVE_RTOL, direction: int = 0):
    """First logged step ≥ t_tr at which ``values`` has moved ``fraction`` of the way from v₀ (its
    value at the first logged step ≥ t_tr) to its extremum after t_tr — with ``direction`` 0 the max
    or the min, whichever is farther from v₀ (ties: the max); with +1 the max (it must rise), with −1
    the min (it must fall).

    :data:`NOT_OBSERVED` when t_tr is not observed or after the last step, or when the
    diagnostic never moves (its way): ``|extremum − v₀| ≤ rtol · max(|v₀|, |extremum|)`` (NaN values
    are skipped). Returns an ``int`` step.
    """
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must be in (0, 1], not {fraction}")
    if direction not in (-1, 0, 1):
        raise ValueError(f"direction must be -1, 0 or +1, not {direction}")
    i0 = _from(steps, t_tr)
    if i0 is None:
        return NOT_OBSERVED
    s = _np(steps)[i0:]
    v = _np(values)[i0:]
    v0 = v[0]
    if not np.isfinite(v0) or not np.isfinite(v).any():
        return NOT_OBSERVED
    hi, lo = np.nanmax(v), np.nanmin(v)
    ext = {1: hi, -1: lo}.get(direction, hi if abs(hi - v0) >= abs(lo - v0) else lo)
    move = abs(ext - v0)
    if move == 0 or move <= rtol * max(abs(v0), abs(ext)):
        return NOT_OBSERVED
    target = v0 + fraction * (ext - v0)
    hit = np.nonzero(np.sign(ext - v0) * (v - target) >= 0)[0]  # NaN compares False
    return int(s[hit[0]])


def _log_at(steps, values, t: float) -> float:
    """ln(value) at step t, interpolated linearly in ln between logged steps."""
    return float(np.interp(t, _np(steps), np.log(_np(values))))


def decay_rate(steps, loss, t_tr, window: float = 0.1, min_points: int = 3) -> float:
    """r = −d ln L/dt at t_tr: minus the least-squares slope of ln L against t over the logged steps
    in [t_tr, (1 + window)·t_tr] (a window after t_tr, so that only what follows the training
    crossing is used), widened to the first ``min_points`` logged steps ≥ t_tr when it holds fewer.
    NaN when fewer than 2 points are available."""
    i0 = _from(steps, t_tr)
    if i0 is None:
        return math.nan
    s = _np(steps)[i0:]
    y = np.log(_np(loss)[i0:])
    n = max(int(np.sum(s <= (1 + window) * float(t_tr))), min_points)
    s, y = s[:n], y[:n]
    ok = np.isfinite(y)
    if ok.sum() < 2:
        return math.nan
    return float(-np.polyfit(s[ok], y[ok], 1)[0])


def forecast_delay(steps, train_loss, test_loss, t_tr, window: float = 0.1, min_points: int = 3) -> float:
    """Levi et al.'s delay forecast at t_tr without the linear model (Eqs. 9–11, §3.1.3):
    Δt̂ = ln(L_te(t_tr)/L_tr(t_tr)) / r, r = :func:`decay_rate` of the test loss over the window
    [t_tr, (1 + window)·t_tr] after t_tr. Losses at t_tr are interpolated in ln between logged steps.

    In the linear model the log-decay rate only slows down (ln L_te is convex in t: a Laplace
    transform), so Δt̂ ≤ Δt there; Δt̂/Δt > 1 marks a transition faster than the test loss's
    own trend. Returns :data:`NOT_OBSERVED` if t_tr is not observed (or after the last step),
    0.0 if L_te(t_tr) ≤ L_tr(t_tr) (no delay forecast), ``inf`` if the test loss is not
    decaying at t_tr (r ≤ 0: the trend never reaches the training level), NaN if r is undefined.
    """
    if _from(steps, t_tr) is None:
        return NOT_OBSERVED
    gap = _log_at(steps, test_loss, float(t_tr)) - _log_at(steps, train_loss, float(t_tr))
    if gap <= 0:
        return 0.0
    r = decay_rate(steps, test_loss, t_tr, window, min_points)
    if math.isnan(r):
        return math.nan
    return gap / r if r > 0 else math.inf


def threshold_elasticity(steps, test_acc, t_tr, thresholds=(0.85, 0.9, 0.95)):
    """e = d ln Δt(θ) / d ln(1 − θ): the least-squares slope of ln Δt(θ) against ln(1 − θ) over
    ``thresholds``, with Δt(θ) = (first logged step with test accuracy ≥ θ) − t_tr.

    The papers define no such number (Levi et al. only note that the delay depends on the
    threshold, Fig. 1 right); this one is scale-free and reads the shape of the approach to 1:
    a jump of the test accuracy crosses every threshold at once (e = 0), an algebraic approach
    1 − A ∝ (t − t_tr)^(−k) gives e = −1/k; in the linear model the loss decays exponentially and
    A = erf(√(ε/2L)) (Eq. 9), so Δt grows only logarithmically in 1/(1 − θ) and |e| shrinks as the
    threshold tightens. Usually e ≤ 0 (a stricter threshold, a longer delay).
    :data:`NOT_OBSERVED` if t_tr or any crossing is not observed; NaN if some Δt ≤ 0 (the test
    accuracy crossed before t_tr: no delay to stretch).
    """
    if not observed(t_tr):
        return NOT_OBSERVED
    th = np.asarray(thresholds, float)
    if len(th) < 2:
        raise ValueError("the elasticity needs at least two thresholds")
    cross = [first_crossing(_np(steps), _np(test_acc), float(t)) for t in th]
    if not all(observed(c) for c in cross):
        return NOT_OBSERVED
    dt = np.asarray(cross, float) - float(t_tr)
    if (dt <= 0).any():
        return math.nan
    return float(np.polyfit(np.log(1 - th), np.log(dt), 1)[0])
