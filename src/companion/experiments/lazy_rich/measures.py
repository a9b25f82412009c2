"""Measurements on the loss and accuracy curves of the lazy-to-rich chapter: interpolated
crossing times, half-times, how long one curve tracks another, monotonicity."""

from __future__ import annotations

import math

import numpy as np


def crossing(step, curve, level: float) -> float:
    """First time ``curve`` falls to ``level`` or below, interpolated linearly in log(step)
    between logged points; ``inf`` if never (``0`` if already there at step 0)."""
    step, curve = np.asarray(step, float), np.asarray(curve, float)
    hit = np.nonzero(curve <= level)[0]
    if not len(hit):
        return math.inf
    i = hit[0]
    if i == 0:
        return 0.0
    s0, s1 = max(step[i - 1], 1.0), step[i]
    c0, c1 = curve[i - 1], curve[i]
    frac = (c0 - level) / (c0 - c1) if c0 != c1 else 1.0
    return float(np.exp(np.log(s0) + frac * (np.log(s1) - np.log(s0))))


def rising_crossing(step, curve, level: float) -> float:
    """First time ``curve`` rises to ``level`` or above (an accuracy), as :func:`crossing`."""
    return crossing(step, -np.asarray(curve), -level)


def half_times(step, train, test, frac: float = 0.5) -> tuple[float, float]:
    """(t_train, t_test): first times the train / test loss fall to ``frac`` of their start."""
    return crossing(step, train, frac * train[0]), crossing(step, test, frac * test[0])


def tracks_until(step, a, b, rel: float = 0.02) -> float:
    """Last logged step before ``|a − b|/|b|`` first exceeds ``rel``."""
    dev = np.abs(np.asarray(a) - np.asarray(b)) / np.abs(np.asarray(b))
    bad = np.nonzero(dev > rel)[0]
    return float(step[-1]) if not len(bad) else float(step[max(bad[0] - 1, 0)])


def increasing(v, strict: bool = True) -> bool:
    """Increasing (∞ = never reached counts as the largest value; ∞, ∞ counts as non-decreasing)."""
    v = [float(x) for x in v]
    return all((b > a) if strict else (b >= a) for a, b in zip(v, v[1:]))
