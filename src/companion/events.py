"""Events in a training history — the step a threshold is first crossed — and what is built
from them (delays, ratios, the worst of several, monotonicity), with an honest value for an event
that never happened: the one home of these definitions for every chapter.

Two crossing times, for two kinds of history: :func:`first_crossing` (and :func:`first_crossings`
for an array of runs), the first *logged* step at which a curve reaches a level — the accuracy
clocks of every classification chapter; :func:`interpolated_fall` / :func:`interpolated_rise`, the
time a curve reaches a level interpolated linearly in log(step) between logged points — the loss
clocks of Kumar et al.'s logarithmically logged runs.

An event that did not happen in the run is :data:`NOT_OBSERVED`, never ``inf``: a model that
never generalises has no grokking delay, so "delay > 5" must not hold for it. Arithmetic with
:data:`NOT_OBSERVED` gives :data:`NOT_OBSERVED`; comparing it raises ``TypeError``, which every
expectation of :mod:`companion.claims` turns into "does not hold" (only
:func:`companion.claims.never` holds for it: the paper's own claims that something does not
happen).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


class NotObserved:
    """The value of an event that did not happen in the run (one instance: :data:`NOT_OBSERVED`)."""

    _instance: "NotObserved | None" = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "not observed"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:  # f"{t:.0f}" reads "not observed", never a number
        return repr(self)

    def _same(self, *_: Any) -> "NotObserved":
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _same
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __pow__ = __rpow__ = _same
    __neg__ = __pos__ = __abs__ = _same

    def _refuse(self, *_: Any):
        raise TypeError("an event that was not observed has no numeric value")

    __lt__ = __le__ = __gt__ = __ge__ = __float__ = __int__ = __bool__ = _refuse

    def __reduce__(self):
        return (NotObserved, ())


NOT_OBSERVED = NotObserved()


def observed(x: Any) -> bool:
    """True for a value that was measured (not :data:`NOT_OBSERVED`, not NaN)."""
    return x is not NOT_OBSERVED and not (isinstance(x, float) and math.isnan(x))


def first_crossing(steps: np.ndarray, values: np.ndarray, threshold: float, below: bool = False,
                   never: Any = NOT_OBSERVED):
    """The first logged step at which ``values >= threshold`` (``<=`` with ``below``);
    ``never`` (:data:`NOT_OBSERVED`) if that never happens in the run.

    ``never=math.inf`` is the convention of claims not yet moved to :mod:`companion.claims`'
    rules (an ∞ that compares); new code leaves the default."""
    v = np.asarray(values)  # compared in its own dtype (a float32 history against float32(threshold))
    hit = np.nonzero(v <= threshold if below else v >= threshold)[0]
    return float(np.asarray(steps)[hit[0]]) if len(hit) else never


def first_crossings(steps: np.ndarray, values: np.ndarray, threshold: float) -> np.ndarray:
    """:func:`first_crossing` of each run of ``values`` (..., n_logged), as floats: NaN where it was
    not observed (an array cannot hold :data:`NOT_OBSERVED`; :func:`observed` reads NaN as not observed)."""
    flat = [first_crossing(steps, v, threshold) for v in values.reshape(-1, values.shape[-1])]
    return np.array([t if observed(t) else np.nan for t in flat], float).reshape(values.shape[:-1])


def interpolated_fall(step, curve, level: float):
    """First time ``curve`` falls to ``level`` or below, interpolated linearly in log(step)
    between logged points; :data:`NOT_OBSERVED` if never (``0`` if already there at the first point)."""
    step, curve = np.asarray(step, float), np.asarray(curve, float)
    hit = np.nonzero(curve <= level)[0]
    if not len(hit):
        return NOT_OBSERVED
    i = hit[0]
    if i == 0:
        return 0.0
    s0, s1 = max(step[i - 1], 1.0), step[i]
    c0, c1 = curve[i - 1], curve[i]
    frac = (c0 - level) / (c0 - c1) if c0 != c1 else 1.0
    return float(np.exp(np.log(s0) + frac * (np.log(s1) - np.log(s0))))


def interpolated_rise(step, curve, level: float):
    """First time ``curve`` rises to ``level`` or above (an accuracy), as :func:`interpolated_fall`."""
    return interpolated_fall(step, -np.asarray(curve), -level)


def ratio(late: Any, early: Any, floor: float | None = 1.0):
    """``late / max(early, floor)`` — e.g. a grokking delay t_test / t_train, or how many times sooner
    ``early`` came than ``late``; not observed when either event was not. ``floor=None``: the plain
    ratio, not observed when ``early`` is 0 (interpolated times, which can be below one step)."""
    if not (observed(late) and observed(early)):
        return NOT_OBSERVED
    if floor is None:
        return float(late) / float(early) if early else NOT_OBSERVED
    return float(late) / max(float(early), floor)


def worst(values: list):
    """The largest of ``values`` (a ratio over depths, a deviation over settings); not observed if
    any is: every run counts."""
    return max(values) if all(observed(v) for v in values) else NOT_OBSERVED


def increasing(values, strict: bool = True):
    """Whether ``values`` increase (non-decreasing if not ``strict``); not observed if any value is."""
    if not all(observed(x) for x in values):
        return NOT_OBSERVED
    v = [float(x) for x in values]
    return all((b > a) if strict else (b >= a) for a, b in zip(v, v[1:]))


def fmt_value(x: Any) -> str:
    """A measured value as the book prints it (a list or tuple as its items, comma-separated; 4 significant
    figures, 3 in scientific notation outside [1e-3, 1e4); :data:`NOT_OBSERVED` as its name)."""
    if isinstance(x, (list, tuple)):
        return ", ".join(fmt_value(v) for v in x)
    if isinstance(x, bool) or x is None:
        return str(x)
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if math.isinf(x):
            return "∞" if x > 0 else "−∞"
        if x != 0 and (abs(x) >= 1e4 or abs(x) < 1e-3):
            return f"{x:.3g}"
        return f"{x:.4g}"
    return str(x)
