"""What a claim expects of its measured value (:class:`Expectation`: :func:`at_least`,
:func:`within`, :func:`never`, the signed changes :func:`falls_by` and :func:`rises_by`, ...), how
per-seed values are aggregated (:class:`Rule`: :data:`ALL_SEEDS`, :data:`MEDIAN`,
:func:`seeds_at_least`), and the control a held claim must beat (:class:`ControlRun`). The bottom
of :mod:`companion.claims`, which re-exports the names chapters use."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from companion.events import NOT_OBSERVED, fmt_value, observed


@dataclass(frozen=True)
class Expectation:
    """A named predicate on the measured value, with the text shown in the claims table."""

    text: str
    predicate: Callable[[Any], bool]
    #: signed distance of a value from the bound, relative to the bound's size (> 0: inside);
    #: None where no such distance is defined (a boolean, an identity)
    distance: Callable[[Any], float] | None = None
    #: values at which the bound sits (its edges, and the target of a two-sided one): an interval that
    #: contains one of them reaches across the bound even when both its ends fall outside it
    anchors: tuple = ()

    def holds(self, measured: Any) -> bool:
        if measured is NOT_OBSERVED and self.text != NEVER_TEXT:
            return False
        try:
            return bool(self.predicate(measured))
        except (TypeError, ValueError):
            return False

    def margin(self, measured: Any) -> float | None:
        """How far inside (> 0) or outside (< 0) the bound ``measured`` is, as a fraction of the
        bound; None for a value or an expectation without one."""
        if self.distance is None or not _num(measured):
            return None
        try:
            return float(self.distance(measured))
        except (TypeError, ValueError, ZeroDivisionError):
            return None

    def __str__(self) -> str:
        return self.text


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _scale(bound: float) -> float:
    return abs(bound) if bound != 0 else 1.0


def at_least(bound: float) -> Expectation:
    return Expectation(f"≥ {_fmt(bound)}", lambda x: _num(x) and x >= bound, lambda x: (x - bound) / _scale(bound))


def at_most(bound: float) -> Expectation:
    return Expectation(f"≤ {_fmt(bound)}", lambda x: _num(x) and x <= bound, lambda x: (bound - x) / _scale(bound))


def greater_than(bound: float) -> Expectation:
    return Expectation(f"> {_fmt(bound)}", lambda x: _num(x) and x > bound, lambda x: (x - bound) / _scale(bound))


def less_than(bound: float) -> Expectation:
    return Expectation(f"< {_fmt(bound)}", lambda x: _num(x) and x < bound, lambda x: (bound - x) / _scale(bound))


def between(lo: float, hi: float) -> Expectation:
    return Expectation(f"in [{_fmt(lo)}, {_fmt(hi)}]", lambda x: _num(x) and lo <= x <= hi,
                       lambda x: min(x - lo, hi - x) / _scale(hi - lo), anchors=(lo, (lo + hi) / 2, hi))


def falls_by(fraction: float) -> Expectation:
    """A signed, sized change: a ratio after / before that shows a fall of at least ``fraction``
    (ratio ≤ 1 − fraction). Growth fails, and so does a wiggle smaller than ``fraction``."""
    if not 0 < fraction < 1:
        raise ValueError(f"falls_by needs a fraction in (0, 1), got {fraction}")
    bound = 1 - fraction
    return Expectation(f"falls by ≥ {fraction:.0%} (ratio ≤ {_fmt(bound)})", lambda x: _num(x) and x <= bound,
                       lambda x: (bound - x) / _scale(bound))


def rises_by(fraction: float) -> Expectation:
    """A signed, sized change: a ratio after / before that shows a rise of at least ``fraction``
    (ratio ≥ 1 + fraction). A fall fails, and so does a wiggle smaller than ``fraction``."""
    if not fraction > 0:
        raise ValueError(f"rises_by needs a fraction > 0, got {fraction}")
    bound = 1 + fraction
    return Expectation(f"rises by ≥ {fraction:.0%} (ratio ≥ {_fmt(bound)})", lambda x: _num(x) and x >= bound,
                       lambda x: (x - bound) / _scale(bound))


def within(target: float, rel: float) -> Expectation:
    """|measured − target| ≤ rel·|target| (relative agreement)."""
    return Expectation(f"{_fmt(target)} ± {rel:.0%}",
                       lambda x: _finite(x) and abs(x - target) <= rel * abs(target),
                       lambda x: (rel * abs(target) - abs(x - target)) / _scale(rel * abs(target)),
                       anchors=(target, target - rel * abs(target), target + rel * abs(target)))


def close_to(target: float, tol: float) -> Expectation:
    """|measured − target| ≤ tol (absolute agreement)."""
    return Expectation(f"{_fmt(target)} ± {_fmt(tol)}", lambda x: _finite(x) and abs(x - target) <= tol,
                       lambda x: (tol - abs(x - target)) / _scale(tol), anchors=(target, target - tol, target + tol))


NEVER_TEXT = "never happens (not observed)"


def never() -> Expectation:
    """The paper's claim that an event does not happen: holds only for ``NOT_OBSERVED``."""
    return Expectation(NEVER_TEXT, lambda x: x is NOT_OBSERVED)


def is_true(text: str = "true") -> Expectation:
    """For a measured boolean (e.g. 'monotone in λ'); ``text`` says what true means."""
    return Expectation(text, lambda x: x is True or (hasattr(x, "item") and bool(x.item()) is True))


def is_infinite() -> Expectation:
    return Expectation("∞ (never reached)", lambda x: _num(x) and math.isinf(x) and x > 0)


def _num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and not math.isnan(x)


_fmt = fmt_value  # the one formatter of measured values (companion.events)


def _plain(x: Any) -> Any:
    """numpy/torch scalars -> Python numbers, so the sidecar is plain JSON."""
    if hasattr(x, "item") and getattr(x, "ndim", 0) == 0:
        x = x.item()
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


# --------------------------------------------------------------------------- seeds
@dataclass(frozen=True)
class Rule:
    """How per-seed values decide a claim: ``all`` seeds, the ``median``, or ``at_least`` k."""

    name: str
    k: int | None = None

    def __str__(self) -> str:
        return {"all": "every seed", "median": "median over seeds"}.get(self.name, f"at least {self.k} seeds")


ALL_SEEDS = Rule("all")
MEDIAN = Rule("median")


def seeds_at_least(k: int) -> Rule:
    return Rule("at_least", k)


def _median(values: list) -> Any:
    """The median of per-seed values; not observed unless every seed observed its event."""
    import numpy as np

    if not all(observed(v) and _num(v) for v in values):
        return NOT_OBSERVED
    return float(np.median(values))


#: seeds a claim needs at cpu and paper; and when its seeds fall on both sides of the bound
MIN_SEEDS = 3
STRADDLE_SEEDS = 5


def median_interval(values: list, level: float = 0.95) -> tuple[float, float]:
    """Distribution-free interval for the median of ``values``: the order statistics x₍ₖ₎, x₍ₙ₋ₖ₊₁₎ with k
    the largest rank whose binomial(n, ½) tail P(B < k) is at most (1 − level)/2 (at least 1, so for n < 6
    the interval is the range; coverage 1 − 2·P(B < k) ≥ ``level`` once n ≥ 6). NaN when a value is not
    observed or not a number."""
    from math import comb

    if not values or not all(observed(v) and _num(v) for v in values):
        return float("nan"), float("nan")
    x, n = sorted(float(v) for v in values), len(values)
    tail = [sum(comb(n, i) for i in range(k)) / 2 ** n for k in range(1, n // 2 + 2)]  # P(B < k), k = 1, 2, …
    k = max([k for k, t in enumerate(tail, start=1) if t <= (1 - level) / 2], default=1)
    return x[k - 1], x[n - k]


def bootstrap_interval(draws, statistic: Callable[[Any], float], level: float = 0.95, n: int = 2000,
                       seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic(draws)`` over draws resampled with replacement (the rows
    of ``draws``, an array with one row per independent draw): how far one value computed from a few draws
    could move with another set of draws. Seeded, so a build gives the same interval every time."""
    import numpy as np

    x = np.asarray(draws)
    rng = np.random.default_rng(seed)
    stats = np.array([statistic(x[rng.integers(0, len(x), len(x))]) for _ in range(n)])
    lo, hi = np.quantile(stats, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)


def mean_over_seeds(values: list) -> tuple[Any, tuple[float, float] | None]:
    """The mean of per-seed ``values`` with its 95% :func:`bootstrap_interval` over the seeds — for a claim about
    the typical run, whose seeds land far apart so that one seed would decide an every-seed rule; not observed
    (no interval) unless every seed was observed and there are at least :data:`MIN_SEEDS`."""
    import numpy as np

    if len(values) < MIN_SEEDS or not all(observed(v) and _num(v) for v in values):
        return NOT_OBSERVED, None
    x = np.asarray(values, dtype=float)
    return float(x.mean()), bootstrap_interval(x, np.mean)


def interval_reason(expected: Expectation, measured: Any, interval: tuple[float, float]) -> str | None:
    """Why one value with a 95% ``interval`` (e.g. :func:`bootstrap_interval` over its draws) cannot decide a
    claim — the interval reaches across the bound — or None when it can."""
    lo, hi = interval
    inner = [a for a in expected.anchors if _finite(lo) and _finite(hi) and lo <= a <= hi]
    if len({expected.holds(v) for v in (lo, measured, hi, *inner)}) > 1:
        return (f"the 95% interval of the value over its draws ({lo:.3g} to {hi:.3g}) reaches across the bound: "
                "more draws are needed to decide")
    return None


def undecided_reason(expected: Expectation, values: list, rule: Rule, k: int) -> str | None:
    """Why per-seed ``values`` (``k`` of them meeting ``expected``) cannot decide a claim at cpu or paper,
    or None when they can:

    - fewer than :data:`STRADDLE_SEEDS` seeds with seeds on both sides of the bound; or
    - under :data:`MEDIAN`, the 95% interval of the median (:func:`median_interval`) reaches across the
      bound: the median's verdict then rests on which draws happened to be taken.
    """
    n = len(values)
    if 0 < k < n < STRADDLE_SEEDS:
        return (f"{k} of {n} seeds meet the bound; with seeds on both sides a verdict needs at least "
                f"{STRADDLE_SEEDS} seeds")
    if rule.name == "median" and k < n:  # k = 0 too: a median between two seeds can meet a band neither meets
        lo, hi = median_interval(values)
        med = _median(values)
        if observed(med) and lo == lo and len({expected.holds(lo), expected.holds(med), expected.holds(hi)}) > 1:
            return (f"{k} of {n} seeds meet the bound, and the 95% interval of the median ({lo:.3g} to {hi:.3g}) "
                    f"reaches across it: more seeds are needed to decide")
    return None


def deviation_within_spread(expected: Expectation, values: list) -> str | None:
    """Why per-seed ``values`` that all miss ``expected`` do not establish a known deviation, or None when
    they do: a deviation is a fact only when even the seed nearest the bound misses it by more than the
    seeds' spread (their standard deviation, in the bound's relative units, :meth:`Expectation.margin`);
    otherwise another seed set could put a seed on the other side, and the deviation would flip to
    'holds'. Values without a margin (not observed, booleans) are not judged here."""
    import numpy as np

    margins = [expected.margin(v) for v in values]
    if len(values) < 2 or any(m is None or expected.holds(v) for m, v in zip(margins, values)):
        return None
    nearest, spread = max(margins), float(np.std(margins, ddof=1))
    if -nearest > spread:
        return None
    return (f"every seed misses the bound, but the nearest by {-nearest:.1%} of it, within the seeds' spread "
            f"({spread:.1%}): another seed set could meet it")


def decide(expected: Expectation, values: list, rule: Rule) -> tuple[bool, Any, int, float | None]:
    """(holds, the value shown, seeds that hold, margin) for per-seed ``values`` under ``rule``.

    The value shown is the one that decided: for ``all`` the seed nearest its bound (or the first
    that fails), else the median. The margin is that value's distance from the bound.
    """
    held = [expected.holds(v) for v in values]
    k = sum(held)
    if rule.name == "all":
        ok = k == len(values)
        margins = [expected.margin(v) for v in values]
        if all(m is not None for m in margins):
            shown = values[min(range(len(values)), key=lambda i: margins[i])]
        else:
            numeric = all(_num(v) for v in values)  # a median of booleans would read "not observed"
            shown = next((v for v, h in zip(values, held) if not h), _median(values) if ok and numeric else values[0])
    elif rule.name == "median":
        shown = _median(values)
        ok = expected.holds(shown)
    else:
        ok, shown = k >= (rule.k or len(values)), _median(values)
    return ok, shown, k, expected.margin(shown)


# --------------------------------------------------------------------------- controls
@dataclass(frozen=True)
class ControlRun:
    """The claim's measurement on a run *without* the paper's effect (README, *Claims that can fail*): a run that
    does not generalise in the budget (weight decay 0, shuffled labels, a random embedding), one that
    generalises without a delay (a large training fraction), a model that knows only the task's
    shortcut. A claim with a control is held only when its run meets the expectation and the control
    meets it in no seed (:func:`control_verdict`).

    ``name`` says what the control run is (``"weight decay 0"``); ``why`` why it lacks the effect;
    ``per_seed`` its values, one per seed (or ``measured``, one value, for a one-value claim)."""

    name: str
    why: str
    per_seed: list | None = None
    measured: Any = None

    def __post_init__(self):
        if (self.measured is None) == (self.per_seed is None):
            raise ValueError(f"control {self.name!r}: give exactly one of measured= and per_seed=")

    def record(self, expected: "Expectation", rule: "Rule") -> dict:
        """What the claim's record keeps of the control: its values, the seeds that meet the bound and
        whether it passes the claim's rule (a control that passes makes the claim vacuous)."""
        if self.per_seed is not None:
            values = [_plain(v) for v in self.per_seed]
            passes, shown, k, _ = decide(expected, values, rule)
            return dict(name=self.name, why=self.why, per_seed=values, measured=shown, seeds_held=k, passes=passes)
        shown = _plain(self.measured)
        passes = expected.holds(shown)
        return dict(name=self.name, why=self.why, per_seed=None, measured=shown, seeds_held=int(passes),
                    passes=passes)


def control_verdict(verdict: str, controls: list[dict]) -> tuple[str, str | None]:
    """A held claim's verdict once its controls (:meth:`ControlRun.record`) are in: ``vacuous`` when a
    control passes the claim's rule too (the measurement does not need the effect), ``undecided`` when a
    control meets the bound in some seeds but not enough to pass (the claim does not separate the run from
    the control in every seed), else ``held``. Any other verdict stands: the controls are shown with it.
    Returns (verdict, why)."""
    if verdict != "held" or not controls:
        return verdict, None
    passing = [c for c in controls if c["passes"]]
    if passing:
        c = passing[0]
        return "vacuous", (f"the control ({c['name']}) meets the bound too"
                           + (f", in {c['seeds_held']} of {len(c['per_seed'])} seeds" if c["per_seed"] else "")
                           + ": the measurement does not need the paper's effect")
    partial = [c for c in controls if c["seeds_held"]]
    if partial:
        c = partial[0]
        return "undecided", (f"the control ({c['name']}) meets the bound in {c['seeds_held']} of "
                             f"{len(c['per_seed'] or [0])} seeds: the claim does not separate the run from its "
                             "control in every seed")
    return "held", None


@dataclass(frozen=True)
class Prediction:
    """What one paper's explanation of grokking predicts for an experiment, written down in the
    library before the experiment runs (pre-registered), and decided by ``expected``."""

    paper: str  # whose explanation: "Kumar et al.", "Gu et al.", "Levi et al.", "Xu et al."
    says: str  # the prediction, in words
    expected: Expectation  # decides it from the measured value(s)
    refuted_if: str  # the outcome that would refute it, in words
