"""Events in a training history — the step a threshold is first crossed — and what is built
from them (delays, ratios), with an honest value for an event that never happened.

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


def ratio(late: Any, early: Any, floor: float = 1.0):
    """``late / max(early, floor)`` — e.g. a grokking delay t_test / t_train; not observed when
    either event was not."""
    if not (observed(late) and observed(early)):
        return NOT_OBSERVED
    return float(late) / max(float(early), floor)


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
