"""Table 1 and Thm 3.10 of Gu et al. per seed: the ceilings of the hole runs (U-Acc, on all and on the
mirror-untrained test pairs), whether they have stopped rising (the plateau criterion), how the ceiling
falls as a hole grows, and the accuracy of a test pair against its distance to the nearest training
pair of its class (Thm 3.10: "the imitated object must be nearby")."""

from __future__ import annotations

import numpy as np

from companion.events import observed

from .runs import NEAR_BINS
from .seeded import fit_step

PLATEAU_GAIN = 0.02  # Table 1's plateau criterion: at most this test accuracy gained over the last quarter of a run
# (beyond twice the trend's standard error: rising_beyond_noise)


def last_quarter_gain(step, acc) -> float:
    """What the least-squares line through the last quarter of a run's logged accuracies gains
    across that quarter. The trend, not the difference of two logged points: near a plateau the
    accuracy fluctuates by a few hundredths from one evaluation to the next, and an end-to-end
    difference would read that noise as a climb."""
    return last_quarter_trend(step, acc)[0]


def last_quarter_trend(step, acc) -> tuple[float, float]:
    """:func:`last_quarter_gain` and its standard error (from the scatter about the line)."""
    s, a = np.asarray(step, float), np.asarray(acc, float)
    last = s >= 0.75 * s[-1]
    if last.sum() < 3:
        return float(a[-1] - a[0]), 0.0
    x, y = s[last], a[last]
    span = x[-1] - x[0]
    slope, icpt = np.polyfit(x, y, 1)
    resid = y - (slope * x + icpt)
    se = np.sqrt(resid @ resid / (len(x) - 2) / ((x - x.mean()) @ (x - x.mean())))
    return float(slope * span), float(se * span)


def rising_beyond_noise(step, acc) -> float:
    """Table 1's plateau criterion: the last quarter's trend gain less twice its standard error,
    the least the run can be said to still be climbing (about 95% one-sided). A strip run's test
    accuracy fluctuates by about ±0.04 between evaluations (half its test pairs have a trained
    mirror), so the trend of eleven evaluations alone has a standard error of 0.03-0.04, above
    the 0.02 bound: without the noise the criterion would read fluctuation as a climb."""
    gain, se = last_quarter_trend(step, acc)
    return gain - 2 * se


def _at_step(hist: dict, t) -> int:
    """Index of the evaluation at epoch ``t`` (the last one where ``t`` is not observed)."""
    return int(np.searchsorted(hist["step"], float(t))) if observed(t) else len(hist["step"]) - 1


def near_profile(hist: dict, where: str = "best") -> dict:
    """Thm 3.10: accuracy on the mirror-untrained test pairs per distance bin (:data:`~.runs.NEAR_BINS`) at the
    epoch of the run's best mirror-untrained accuracy (``"best"``) or at memorisation (``"fit"``, train accuracy
    0.99: the same run before it generalises, the control); ``{}`` for a run without the bins."""
    if "acc_near_2" not in hist:
        return {}
    i = int(np.argmax(hist["acc_mirror_out"])) if where == "best" else _at_step(hist, fit_step(hist))
    return {name: float(hist[f"acc_near_{name}"][i]) for name, _, _ in NEAR_BINS}


def near_minus_far(hists: list, where: str = "best") -> float:
    """Thm 3.10 over the hole runs of one seed: the accuracy of all their mirror-untrained test pairs at the
    nearest bin (distance 2) minus that at the farthest (≥ 10), each pooled over the runs by pair count, read as
    in :func:`near_profile`; nan where no run has the bins."""
    names = [n for n, _, _ in NEAR_BINS]
    right, count = {n: 0.0 for n in names}, {n: 0 for n in names}
    for h in hists:
        prof = near_profile(h, where)
        for n in (names[0], names[-1]) if prof else ():
            if h[f"n_near_{n}"]:
                right[n] += prof[n] * h[f"n_near_{n}"]
                count[n] += h[f"n_near_{n}"]
    near, far = names[0], names[-1]
    return right[near] / count[near] - right[far] / count[far] if count[near] and count[far] else float("nan")


def holes_seeds(holes: dict) -> dict:
    """Table 1 per seed: U-Acc on all and on mirror-untrained test pairs (and the latter at memorisation, the
    control); the plateau criterion (``levelled`` per hole and seed: a claim on a ceiling reads only the seeds
    whose hole it depends on has levelled off, ``still_rising`` lists the others); the ceiling's fall between the
    smallest and largest hole of each shape (mirror-untrained pairs; at memorisation too); the largest square's
    hole minus the rest (mirror-untrained pairs where logged; the same for a model that knows only the
    symmetry); Thm 3.10: per hole and seed the accuracy by distance bin, per seed the near-minus-far accuracy
    pooled over the hole runs (at the best epoch and at memorisation), and ``filled``, the farthest bin's
    accuracy per hole and seed."""
    names = [n for n, _, _ in NEAR_BINS]
    u = {k: [float(h["test_acc"].max()) for h in hs] for k, hs in holes.items()}
    u_out = {k: [float(h["acc_mirror_out"].max()) for h in hs] for k, hs in holes.items() if "acc_mirror_out" in hs[0]}
    fit_out = {k: [float(h["acc_mirror_out"][_at_step(h, fit_step(h))]) for h in hs] for k, hs in holes.items()
               if "acc_mirror_out" in hs[0]}
    final = {k: [float(h["test_acc"][-1]) for h in hs] for k, hs in holes.items()}
    # still rising at the end: the last quarter's trend gained > PLATEAU_GAIN beyond its noise (not converged)
    rising = {k: [rising_beyond_noise(h["step"], h["test_acc"]) for h in hs] for k, hs in holes.items()}
    trend = {k: [last_quarter_trend(h["step"], h["test_acc"]) for h in hs] for k, hs in holes.items()}
    levelled = {k: [g <= PLATEAU_GAIN for g in gs] for k, gs in rising.items()}

    def where_levelled(values, key):
        """The values of the seeds whose ``key`` run has levelled off (a U-Acc read mid-climb is no ceiling)."""
        return None if values is None else [v for v, ok in zip(values, levelled[key]) if ok]
    share = {k: (hs[0].get("mirror_in_share", float("nan")), hs[0].get("hole_mirror_in_share", float("nan")))
             for k, hs in holes.items()}
    # the fall between the smallest and the largest hole of a shape, on the seeds whose largest hole has levelled
    # off: the smallest still rising only widens the fall, the largest still rising could close it
    falls, falls_fit = {}, {}
    for shape in ("square", "strip"):
        ks = sorted(k for k in u_out if k[0] == shape)
        if len(ks) > 1:
            falls[shape] = (ks[0][1], ks[-1][1],
                            where_levelled([a - b for a, b in zip(u_out[ks[0]], u_out[ks[-1]])], ks[-1]))
            falls_fit[shape] = where_levelled([a - b for a, b in zip(fit_out[ks[0]], fit_out[ks[-1]])], ks[-1])
    squares = sorted(k for k in holes if k[0] == "square")
    big = squares[-1] if squares else None
    rest = "acc_rest_out" if big is not None and "acc_rest_out" in holes[big][0] else "acc_rest"
    hole_minus_rest = hole_minus_rest_sym = None
    if big is not None and "acc_hole" in holes[big][0]:
        hole_minus_rest = where_levelled([float(h["acc_hole"].max() - h[rest].max()) for h in holes[big]], big)
        # a model that knows only the symmetry is at chance on the hole (a square has no trained mirror inside it)
        # and on the mirror-untrained pairs outside: its gap is 0 (no control where the rest is read on all pairs).
        # Not the memorisation epoch: there the densely covered rest has already generalised (gap −0.71 to −0.74),
        # which is the distribution's effect itself, present from the start, not a run without it
        hole_minus_rest_sym = [0.0] * len(hole_minus_rest) if rest == "acc_rest_out" else None
    binned = [k for k, hs in holes.items() if near_profile(hs[0])]  # the hole runs that log the distance bins
    per_seed = list(zip(*(holes[k] for k in binned)))  # those runs of each seed
    near = {k: [near_profile(h) for h in holes[k]] for k in binned}
    near_fit = {k: [near_profile(h, "fit") for h in holes[k]] for k in binned}
    counts = {k: {n: holes[k][0][f"n_near_{n}"] for n in names} for k in binned}
    strips = sorted(k for k in u_out if k[0] == "strip")
    return {"u": u, "u_out": u_out, "fit_out": fit_out, "final": final, "rising": rising, "trend": trend,
            "levelled": levelled, "n_seeds": len(next(iter(holes.values()))),
            "still_rising": [(k, i, g) for k, gs in rising.items() for i, g in enumerate(gs) if g > PLATEAU_GAIN],
            "strip_out_levelled": where_levelled(u_out[strips[-1]], strips[-1]) if strips else None,
            "share": share, "falls": falls, "falls_fit": falls_fit, "largest_square": big,
            "rest_on": "mirror-untrained" if rest == "acc_rest_out" else "all",
            "hole_minus_rest": hole_minus_rest, "hole_minus_rest_sym": hole_minus_rest_sym,
            "near": near, "near_fit": near_fit, "near_counts": counts,
            "near_minus_far": [near_minus_far(hs) for hs in per_seed] if binned else None,
            "near_minus_far_fit": [near_minus_far(hs, "fit") for hs in per_seed] if binned else None,
            "filled": {k: [p[names[-1]] for p in near[k]] for k in near} if near else {}}
