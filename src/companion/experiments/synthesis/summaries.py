"""The four clocks, read off the synthesis runs (:func:`.experiments.clock_runs`).

Per run: ``t_tr`` (first step with train accuracy ≥ 0.9), ``t_test`` (the same for test accuracy:
the clock every diagnostic is set against) and each diagnostic's crossing step
(:func:`companion.measures.clocks.crossing_step`: the first step after t_tr at which it has moved
a fraction ¼, ½ or ¾ of the way from its value at t_tr to its extremum after, in the direction its
explanation gives it, :data:`DIRECTION`; not observed if it never moves that way by
:data:`MIN_MOVE` of its size), and the null clocks it must beat (:meth:`RunClocks.null`). Levi et
al.'s forecast ratio Δt̂/Δt and their threshold sweep (the test accuracy's climb from 0.5 to 0.95 over the least
time their mechanism allows, beside the same measurement on a jump at the run's own 0.95 crossing) come from
the same history. Pooled criteria
(rank correlation, coverage, lead with a seed-bootstrap interval) are taken over the grokking runs:
not an intervention, and test accuracy reaching 0.9.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace

import numpy as np

from companion.events import NOT_OBSERVED, first_crossing, observed
from companion.measures.clocks import MOVE_RTOL, crossing_step, forecast_delay, threshold_stretch

#: the accuracy at which each clock is read
THRESHOLD = 0.9
#: the crossing fractions: ½ is the definition; ¼ and ¾ are the robustness row
FRACTIONS = (0.25, 0.5, 0.75)
#: the diagnostics set against the test clock, in the figure's order
CLOCK_DIAGNOSTICS = ("kernel_distance", "alignment", "med_invariant", "param_sq")
#: the way each diagnostic moves in the explanation it stands for: the kernel leaves K₀ and aligns with the
#: task (Kumar et al. §4); MED falls with the test loss (Gu et al. §6.2) and Σ‖θ‖² falls under weight decay
#: (§3.2). A crossing is read only in that direction, so growth cannot count for a fall
DIRECTION = {"kernel_distance": +1, "alignment": +1, "med_invariant": -1, "param_sq": -1}
#: the least move that counts, relative to the diagnostic's size: a smaller change (MED 1.43 → 1.41, still at
#: its random-initialisation value) is a wiggle, not the transition
MIN_MOVE = 0.1
#: the null clocks every band hypothesis is set against (:meth:`RunClocks.null`): clocks that know only the
#: train clock and the run's length
NULLS = ("midpoint", "log-midpoint", "random")


@dataclass(frozen=True)
class RunClocks:
    """One seed's clocks (module docstring); ``crossing[(diagnostic, fraction)]`` is a step or
    NOT_OBSERVED (absent: the model has no such diagnostic)."""

    setting: str
    seed: int
    intervention: bool
    t_tr: object
    t_test: object
    crossing: dict
    forecast: object  # Levi et al.'s Δt̂ at t_tr
    delay: object  # t_test − t_tr
    forecast_ratio: object  # Δt̂ / Δt
    stretch: object  # Levi et al.'s threshold sweep: the climb from 0.5 to 0.95 over the least their mechanism allows
    stretch_null: object  # the same on a jump of the test accuracy at the run's own first logged step ≥ 0.95
    test_loss_rising: bool  # the test loss rises over the logged steps around t_tr
    t_end: int = 0  # the run's last logged step

    def null(self, name: str):
        """A null clock: a step that knows only t_tr and the end of the run — ``midpoint`` (their
        mean), ``log-midpoint`` (their geometric mean) or ``random`` (log-uniform between them, seeded by
        the setting and seed). NOT_OBSERVED without a train clock."""
        if not observed(self.t_tr):
            return NOT_OBSERVED
        lo, hi = max(float(self.t_tr), 1.0), max(float(self.t_end), 1.0)
        if name == "midpoint":
            return (lo + hi) / 2
        if name == "log-midpoint":
            return float(np.sqrt(lo * hi))
        if name == "random":
            rng = np.random.default_rng([zlib.crc32(self.setting.encode()), self.seed])
            return float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
        raise ValueError(f"unknown null clock {name!r}; valid: {', '.join(NULLS)}")

    def null_ratio(self, name: str):
        """A null clock over t_test (NOT_OBSERVED if either is)."""
        t = self.null(name)
        return t / self.t_test if observed(t) and observed(self.t_test) and self.t_test > 0 else NOT_OBSERVED

    def ratio(self, diagnostic: str, fraction: float = 0.5):
        """t_cross / t_test (NOT_OBSERVED if either is)."""
        c = self.crossing.get((diagnostic, fraction), NOT_OBSERVED)
        return c / self.t_test if observed(c) and observed(self.t_test) and self.t_test > 0 else NOT_OBSERVED


def run_clocks(hist: dict, setting: str, seed: int, intervention: bool = False, signed: bool = True) -> RunClocks:
    """The clocks of one history (module docstring); ``signed=False`` reads every crossing the way the
    chapter did before its crossings were signed and sized (either direction, any move above
    :data:`~companion.measures.clocks.MOVE_RTOL`), for the chapter's before/after count."""
    s = hist["step"]
    t_tr = first_crossing(s, hist["train_acc"], THRESHOLD)
    t_test = first_crossing(s, hist["test_acc"], THRESHOLD)
    rule = {d: (MIN_MOVE, DIRECTION[d]) if signed else (MOVE_RTOL, 0) for d in CLOCK_DIAGNOSTICS}
    crossing = {(d, f): crossing_step(s, hist[d], t_tr, f, rtol=rule[d][0], direction=rule[d][1])
                for d in CLOCK_DIAGNOSTICS if d in hist for f in FRACTIONS}
    fc = forecast_delay(s, hist["train_loss"], hist["test_loss"], t_tr)
    delay = t_test - t_tr if observed(t_tr) and observed(t_test) else NOT_OBSERVED
    # Δt̂ = inf: the test loss is not decaying at t_tr, so its trend never reaches the training level: the
    # ratio is inf (> 1, a dynamical transition) whenever a delay was measured
    ratio = fc / delay if observed(fc) and observed(delay) and delay > 0 and not np.isnan(fc) else NOT_OBSERVED
    return RunClocks(setting, seed, intervention, t_tr, t_test, crossing, fc, delay, ratio,
                     threshold_stretch(s, hist["test_acc"], hist["test_loss"], t_tr),
                     threshold_stretch(s, _jump(s, hist["test_acc"], STRETCH_HI), hist["test_loss"], t_tr),
                     _rising(s, hist["test_loss"], t_tr), int(np.asarray(s)[-1]))


#: the threshold sweep's upper threshold (Levi et al.'s grokking threshold Erf(√2) ≈ 95%, §3.1.3)
STRETCH_HI = 0.95


def _jump(steps, acc, level: float) -> np.ndarray:
    """The null of the threshold sweep: an accuracy that is 0 before the first logged step at which ``acc``
    reaches ``level`` and 1 from it (a transition with no width, on the run's own evaluation grid)."""
    a = np.asarray(acc.detach().cpu() if hasattr(acc, "detach") else acc)
    return (a >= a.dtype.type(level)).cumsum() > 0


def _rising(steps, loss, t_tr) -> bool:
    """Whether the test loss grows from the logged step before t_tr to the one after."""
    if not observed(t_tr):
        return False
    i = int(np.searchsorted(np.asarray(steps, float), float(t_tr)))
    lo, hi = max(i - 1, 0), min(i + 1, len(loss) - 1)
    return bool(loss[hi] > loss[lo])


def all_clocks(runs: dict, interventions=(), first_seed: int = 0, signed: bool = True) -> list[RunClocks]:
    """:func:`run_clocks` of every seed of every setting ({name: histories})."""
    return [run_clocks(h, name, first_seed + i, name in interventions, signed)
            for name, hists in runs.items() for i, h in enumerate(hists)]


def per_seed(clocks: list[RunClocks], setting: str, field: str, diagnostic: str | None = None,
             fraction: float = 0.5) -> list:
    """One value per seed of ``setting``: a field of :class:`RunClocks`, or with ``diagnostic``
    the ratio t_cross / t_test."""
    rows = [c for c in clocks if c.setting == setting]
    return [c.ratio(diagnostic, fraction) if diagnostic else getattr(c, field) for c in rows]


def null_ratios(clocks: list[RunClocks], setting: str) -> dict[str, list]:
    """Per null clock (:data:`NULLS`), one ratio t_null / t_test per seed of ``setting``."""
    rows = [c for c in clocks if c.setting == setting]
    return {n: [c.null_ratio(n) for c in rows] for n in NULLS}


def window(clocks: list[RunClocks], setting: str) -> tuple[float, float] | None:
    """The range over ``setting``'s seeds of t_end / t_test: how late a crossing could still be seen
    (None when no seed reaches its test clock)."""
    r = [c.t_end / c.t_test for c in clocks if c.setting == setting and observed(c.t_test) and c.t_test > 0]
    return (min(r), max(r)) if r else None


def has(clocks: list[RunClocks], setting: str, diagnostic: str) -> bool:
    """Whether ``setting``'s model has ``diagnostic`` at all (the linear student has no embedding)."""
    return any((diagnostic, 0.5) in c.crossing for c in clocks if c.setting == setting)


@dataclass(frozen=True)
class Criteria:
    """One diagnostic's pooled criteria over the grokking runs (module docstring)."""

    diagnostic: str
    n_grokking: int  # grokking runs that have this diagnostic
    n_crossed: int  # of them, runs in which it crosses
    defined: float  # n_crossed / n_grokking
    rank: object  # Spearman ρ between t_cross and t_test over the crossed runs (NOT_OBSERVED below 3)
    lead_median: object  # median log₁₀(t_cross / t_test)
    lead_interval: tuple  # its seed-bootstrap 95% interval
    lead_upper: object  # the interval's upper end (the criterion)
    shifts: object = NOT_OBSERVED  # share of intervention seed pairs whose test clock moves in which it moves alike
    n_shift_pairs: int = 0  # those pairs (intervention against its base, seed i against seed i)


def _ranks(x) -> np.ndarray:
    """Ranks with ties at their average rank (a clock that stands at one step in every run has no order)."""
    x = np.asarray(x, float)
    order = np.argsort(x, kind="stable")
    r = np.empty(len(x))
    r[order] = np.arange(len(x), dtype=float)
    for v in np.unique(x):
        tie = x == v
        r[tie] = r[tie].mean()
    return r


def _spearman(a, b) -> float:
    """Spearman's ρ: the correlation of the ranks, ties at their average rank; NaN when either side is constant."""
    ra, rb = _ranks(a), _ranks(b)
    return float(np.corrcoef(ra, rb)[0, 1]) if np.std(ra) > 0 and np.std(rb) > 0 else float("nan")


def shifts(clocks: list[RunClocks], diagnostic: str, fraction: float, interventions: dict) -> tuple[object, int]:
    """Whether a diagnostic's clock moves the way the test clock moves under interventions
    (``{intervention: base}``): over the seed pairs (intervention seed i, base seed i) in which both
    test clocks are observed and differ, the share in which both crossings are observed and move the
    same way (an equal or missing crossing does not). ``(share or NOT_OBSERVED, pairs)``."""
    by = {(c.setting, c.seed): c for c in clocks}
    n = agree = 0
    for c in clocks:
        b = by.get((interventions.get(c.setting), c.seed))
        if b is None or not (observed(c.t_test) and observed(b.t_test)) or c.t_test == b.t_test:
            continue
        key = (diagnostic, fraction)
        if key not in c.crossing:
            continue
        x, y = c.crossing[key], b.crossing.get(key, NOT_OBSERVED)
        n += 1
        agree += bool(observed(x) and observed(y) and np.sign(x - y) == np.sign(c.t_test - b.t_test) and x != y)
    return (agree / n if n else NOT_OBSERVED), n


def criteria(clocks: list[RunClocks], diagnostic: str, fraction: float = 0.5, n_boot: int = 2000,
             seed: int = 0, interventions: dict | None = None) -> Criteria:
    """The pooled criteria of one diagnostic; the bootstrap resamples runs with a seeded generator;
    with ``interventions`` ({intervention: base}) also :func:`shifts`."""
    grok = [c for c in clocks if not c.intervention and observed(c.t_test) and (diagnostic, fraction) in c.crossing]
    crossed = [c for c in grok if observed(c.crossing[(diagnostic, fraction)]) and c.t_test > 0]
    n, k = len(grok), len(crossed)
    sh = shifts(clocks, diagnostic, fraction, interventions or {})
    if k < 3:
        return Criteria(diagnostic, n, k, k / n if n else NOT_OBSERVED, NOT_OBSERVED, NOT_OBSERVED,
                        (NOT_OBSERVED, NOT_OBSERVED), NOT_OBSERVED, *sh)
    tc = np.array([c.crossing[(diagnostic, fraction)] for c in crossed], float)
    tt = np.array([c.t_test for c in crossed], float)
    lead = np.log10(np.maximum(tc, 1) / tt)
    g = np.random.default_rng(seed)
    boot = np.median(lead[g.integers(0, k, (n_boot, k))], axis=1)
    lo, hi = (float(x) for x in np.percentile(boot, [2.5, 97.5]))
    return Criteria(diagnostic, n, k, k / n, _spearman(tc, tt), float(np.median(lead)), (lo, hi), hi, *sh)


def null_criteria(clocks: list[RunClocks], diagnostic: str | None, fraction: float,
                  interventions: dict | None = None) -> dict[str, Criteria]:
    """The pooled criteria of each null clock (:data:`NULLS`), over the runs that have ``diagnostic`` (every run
    for None): what a clock that knows only t_tr and the run's end scores on the same runs (the null clock
    stands at the same step at every fraction)."""
    runs = [c for c in clocks if diagnostic is None or (diagnostic, fraction) in c.crossing]
    return {n: criteria([replace(c, crossing={(f"null:{n}", fraction): c.null(n)}) for c in runs], f"null:{n}",
                        fraction, interventions=interventions) for n in NULLS}


def paired_ratio(clocks: list[RunClocks], setting: str, base: str, field: str = "t_test") -> list:
    """Per seed: a :class:`RunClocks` field of ``setting`` over the same seed's in ``base``
    (NOT_OBSERVED where either is)."""
    a, b = per_seed(clocks, setting, field), per_seed(clocks, base, field)
    return [x / y if observed(x) and observed(y) and y > 0 else NOT_OBSERVED for x, y in zip(a, b)]


def transfer_ratio(clocks: list[RunClocks], transfer: str = "fnn_transfer", scratch: str = "fnn_scratch") -> list:
    """Per seed: t_test(transfer) / t_test(scratch) (NOT_OBSERVED where either never reaches 0.9)."""
    return paired_ratio(clocks, transfer, scratch)


def norm_ratio(runs: dict, clocks: list[RunClocks], setting: str) -> list:
    """Per seed of ``setting``: Σ‖θ‖² at t_test over Σ‖θ‖² at t_tr (both logged steps; NOT_OBSERVED
    where either clock is)."""
    out = []
    for c, h in zip([c for c in clocks if c.setting == setting], runs[setting]):
        steps = list(np.asarray(h["step"]))
        ok = observed(c.t_tr) and observed(c.t_test) and c.t_tr in steps and c.t_test in steps
        out.append(float(h["param_sq"][steps.index(c.t_test)] / h["param_sq"][steps.index(c.t_tr)]) if ok
                   else NOT_OBSERVED)
    return out


@dataclass(frozen=True)
class Uniformity:
    """Is a uniform embedding enough to generalise? Per seed i (transfer seed i against scratch seed i), the
    relabelling-invariant MED of: the transferred target's embedding at the end of its budget, the scratch
    target's at step 0 (random: the control) and at its test clock (grokked: the yardstick); each of the first
    two over the third; and the transferred target's test clock and final test accuracy."""

    transfer_end: list
    random: list
    grokked: list
    transfer_ratio: list  # transfer_end / grokked (NOT_OBSERVED where the scratch clock never arrived)
    random_ratio: list  # random / grokked
    transfer_t_test: list
    transfer_final_acc: list


def uniformity(runs: dict, clocks: list[RunClocks], transfer: str = "fnn_transfer",
               scratch: str = "fnn_scratch") -> Uniformity:
    """:class:`Uniformity` from the clock runs of ``transfer`` and ``scratch`` and their clocks."""
    t_scratch = per_seed(clocks, scratch, "t_test")
    grokked = []
    for h, t in zip(runs[scratch], t_scratch):
        steps = list(np.asarray(h["step"]))
        grokked.append(float(h["med_invariant"][steps.index(t)]) if observed(t) and t in steps else NOT_OBSERVED)
    end = [float(h["med_invariant"][-1]) for h in runs[transfer]]
    rand = [float(h["med_invariant"][0]) for h in runs[scratch]]

    def over(a: list) -> list:
        return [x / g if observed(g) and g > 0 else NOT_OBSERVED for x, g in zip(a, grokked)]

    return Uniformity(end, rand, grokked, over(end), over(rand), per_seed(clocks, transfer, "t_test"),
                      [float(h["test_acc"][-1]) for h in runs[transfer]])


def figure_points(clocks: list[RunClocks], fraction: float = 0.5, hollow=None) -> list[dict]:
    """The four-clocks figure's points: one per run and diagnostic, with t_test, t_cross (or
    NOT_OBSERVED: the rug) and whether it is hollow: its setting is in ``hollow`` (default: every
    intervention)."""
    return [{"setting": c.setting, "seed": c.seed, "diagnostic": d, "t_test": c.t_test,
             "t_cross": c.crossing[(d, fraction)],
             "hollow": c.intervention if hollow is None else c.setting in hollow}
            for c in clocks for d in CLOCK_DIAGNOSTICS if (d, fraction) in c.crossing]


def clocks_table(clocks: list[RunClocks]) -> str:
    """Markdown: every run's clocks (½ crossings), forecast ratio and threshold stretch (with its jump's)."""
    def f(x) -> str:
        return "not observed" if not observed(x) else (f"{x:.3g}" if isinstance(x, float) else str(x))

    head = ["setting", "seed", "t_tr", "t_test", *CLOCK_DIAGNOSTICS, "Δt̂/Δt", "S/Ŝ (jump's)", "L_te rising at t_tr"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in clocks:
        cells = [c.setting + (" (intervention)" if c.intervention else ""), str(c.seed), f(c.t_tr), f(c.t_test),
                 *[f(c.crossing.get((d, 0.5), "—")) if (d, 0.5) in c.crossing else "—" for d in CLOCK_DIAGNOSTICS],
                 f(c.forecast_ratio), f"{f(c.stretch)} ({f(c.stretch_null)})", "yes" if c.test_loss_rising else "no"]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)
