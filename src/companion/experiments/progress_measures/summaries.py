"""What the chapter reads off the runs: the measures of one history (:func:`window`,
:func:`window_r`, :func:`grok_step`, …) and one small frozen summary per figure group, holding
the numbers its table shows and its claims test.

Every onset and every window end here is read, like the claims' (:mod:`.seeded`), on the test
pairs the commutativity shortcut cannot explain: accuracy on the mirror-untrained test pairs
where f is commutative (:func:`~.seeded.untrained_key`), all test pairs where there is no
shortcut (x − y, an operand offset k > 0) or where a kept result predates the mirror split;
:func:`onset_on` names which, and the tables show the plain test-accuracy onset beside it."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from companion.events import NOT_OBSERVED, first_crossing, observed, ratio

from .seeded import onset_on, untrained_key

TRAIN_FIT = 0.99  # train accuracy taken as "memorised"
GROKKED = 0.95  # accuracy (mirror-untrained pairs: onset_on) taken as "grokked"


# ------------------------------------------------------------------------------- one history
def window(hist: dict, train_thr: float = TRAIN_FIT, test_thr: float = GROKKED) -> tuple[float, float]:
    """From the first step with train acc ≥ ``train_thr`` to the first with accuracy ≥ ``test_thr``
    on the mirror-untrained test pairs (:func:`onset_on`; the last step when it never gets there):
    the window of :func:`~.seeded.window_mask`, which the claims read."""
    t0 = first_crossing(hist["step"], hist["train_acc"], train_thr, never=math.inf)
    t1 = first_crossing(hist["step"], hist[untrained_key(hist)], test_thr, never=math.inf)
    return t0, min(t1, float(hist["step"][-1]))


def window_r(hist: dict, key: str, against: str = "test_loss") -> float:
    """Pearson r of ``key`` with ``against`` over :func:`window` (nan with < 3 points)."""
    t0, t1 = window(hist)
    s = hist["step"]
    m = (s >= t0) & (s <= t1)
    if m.sum() < 3:
        return float("nan")
    return float(np.corrcoef(hist[key][m], hist[against][m])[0, 1])


def full_r(hist: dict, key: str, against: str = "test_loss") -> float:
    """Pearson r from the first step with train acc ≥ 0.99 to the end."""
    t0 = first_crossing(hist["step"], hist["train_acc"], TRAIN_FIT, never=math.inf)
    m = hist["step"] >= t0
    return float(np.corrcoef(hist[key][m], hist[against][m])[0, 1]) if m.sum() >= 3 else float("nan")


def grok_step(hist: dict, thr: float = GROKKED, key: str | None = None):
    """The first epoch with accuracy ≥ ``thr`` on the mirror-untrained test pairs (``key``, e.g.
    ``"test_acc"`` for all test pairs, overrides; :func:`onset_on`), ``NOT_OBSERVED`` if never."""
    t = first_crossing(hist["step"], hist[key or untrained_key(hist)], thr)
    return int(t) if observed(t) else NOT_OBSERVED  # an epoch: shown whole in the tables


def fluctuation(hist: dict, every: int, thr: float = 0.9) -> float:
    """mean |Δ test acc| between consecutive linear-grid evaluations after test acc first ≥ ``thr``
    (plain test accuracy, as the Fig. 2 claim's :func:`~.seeded.downward_steps`: it measures how test
    accuracy fluctuates; with a share s of the test pairs mirror-trained, 0.9 on all of them needs at
    least (0.9 − s) / (1 − s) on the rest, 0.8 at s = 0.5, so the shortcut alone does not start it)."""
    s = hist["step"]
    g = (s % every == 0) & (s >= first_crossing(s, hist["test_acc"], thr, never=math.inf))
    d = np.abs(np.diff(hist["test_acc"][g]))
    return float(d.mean()) if len(d) else float("nan")


def _go(hist: dict, key: str):
    """GO-Epoch on ``hist[key]``: the first epoch past the midpoint between its value at
    memorisation (train acc 0.99; its last value if never) and its highest."""
    acc = hist[key]
    t0 = first_crossing(hist["step"], hist["train_acc"], TRAIN_FIT, never=math.inf)
    plateau = float(np.interp(t0, hist["step"], acc))
    t = first_crossing(hist["step"], acc, (plateau + float(np.nanmax(acc))) / 2)
    return int(t) if observed(t) else NOT_OBSERVED


def u_l_go(hist: dict) -> dict:
    """Table 1's U-Acc (highest test acc) and L-Acc (lowest after it), on all test pairs as the
    paper's, and GO-Epoch (the paper does not define it; :func:`_go`) on the mirror-untrained test
    pairs (``go``, read on ``go_on``) and, for comparison, on all test pairs (``go_all``)."""
    acc = hist["test_acc"]
    iu = int(np.argmax(acc))
    return {"u_acc": float(acc[iu]), "l_acc": float(acc[iu:].min()), "go": _go(hist, untrained_key(hist)),
            "go_all": _go(hist, "test_acc"), "go_on": onset_on(hist)}


# ------------------------------------------------------------------------------- Thm 3.12
@dataclass(frozen=True)
class CoverageSummary:
    """Thm 3.12's checks."""

    union_bound_holds: bool  # the bound ≥ the Monte-Carlo mean of uncovered pairs less 3 standard errors, every (k, α)
    alpha_above: float  # the α just above the threshold
    all_covered_above: float  # share of random training sets there that cover every pair


def coverage_summary(cov: dict, slack: float = 1e-9, z: float = 3.0) -> CoverageSummary:
    """Thm 3.12: does the union bound dominate the Monte-Carlo mean — up to ``z`` of the mean's standard
    errors (a mean of a few hundred draws scatters; where the bound is tight, a bound that held exactly
    would still be exceeded by the estimate in about half the seed sets) and ``slack``? A result kept before
    the standard error was recorded (a paper-scale run without ``uncovered_se``) is compared strictly."""
    return CoverageSummary(bool(all(r["uncovered_mean"] - z * r.get("uncovered_se", 0.0) <= r["union_bound"] + slack
                                    for r in cov["rows"])),
                           cov["alpha_above"], cov["above"]["all_covered_frac"])


# ------------------------------------------------------------------------------- Fig. 2
@dataclass(frozen=True)
class DepthSummary:
    """Fig. 2's table and checks."""

    rows: tuple  # (layers, onset, read on, first test acc ≥ 0.95, post-grokking fluctuation, MED peak, MED end)
    shallowest: int  # fewest layers
    deepest: int  # most layers
    fluctuation_ratio: float | None  # deepest over shallowest (None with one depth)
    med_falls: bool  # MED ends below its peak at every depth


def depth_summary(depth: dict, every: int) -> DepthSummary:
    """Fig. 2: fluctuation on the linear grid of ``every`` epochs, MED's peak and end."""
    fl = {L: fluctuation(h, every) for L, h in depth.items()}
    rows = tuple((L, grok_step(h), onset_on(h), grok_step(h, key="test_acc"), fl[L], float(h["med"].max()),
                  float(h["med"][-1])) for L, h in depth.items())
    lo, hi = min(depth), max(depth)
    ratio = (fl[hi] / fl[lo] if fl[lo] > 0 else float("nan")) if hi > lo else None
    return DepthSummary(rows, lo, hi, ratio, bool(all(h["med"][-1] < h["med"].max() for h in depth.values())))


# ------------------------------------------------------------------------------- Fig. 3
def layouts_train_size_ok(layouts: dict, p: int = 97, train_frac: float = 0.3) -> bool:
    """Fig. 3: every layout trains on int(α p²) pairs (the defaults of ``split_layouts``)."""
    return bool(all(int((g == 1).sum()) == int(train_frac * p ** 2) for g in layouts.values()))


# ------------------------------------------------------------------------------- Table 1
@dataclass(frozen=True)
class HolesSummary:
    """Table 1's rows and checks."""

    stats: dict  # (shape, size) -> u_l_go
    square_holes: str  # the square sizes k, in order, as text
    strip_holes: str  # the strip sizes t, in order, as text
    square_ceiling_falls: bool  # U-Acc strictly decreasing in k (and more than one k)
    strip_ceiling_falls: bool  # U-Acc strictly decreasing in t (and more than one t)
    smallest_square: int
    smallest_square_u_acc: float
    largest_square: int
    largest_square_hole_minus_rest: float  # max acc in the hole − max acc elsewhere


def holes_summary(holes: dict) -> HolesSummary:
    """Table 1: U-Acc, L-Acc, GO-Epoch per hole, and whether the ceiling falls as a hole grows."""
    stats = {k: u_l_go(h) for k, h in holes.items()}

    def falls(shape: str) -> tuple[str, bool]:
        keys = sorted(k for k in stats if k[0] == shape)
        u = [stats[k]["u_acc"] for k in keys]
        return ", ".join(str(k[1]) for k in keys), bool(len(u) > 1 and all(a > b for a, b in zip(u, u[1:])))

    (sq_text, sq_falls), (st_text, st_falls) = falls("square"), falls("strip")
    small, big = min(k for k in stats if k[0] == "square"), max(k for k in stats if k[0] == "square")
    return HolesSummary(stats, sq_text, st_text, sq_falls, st_falls, small[1], stats[small]["u_acc"], big[1],
                        float(holes[big]["acc_hole"].max() - holes[big]["acc_rest"].max()))


# ------------------------------------------------------------------------------- Fig. 4
@dataclass(frozen=True)
class CommutativitySummary:
    """Fig. 4's table and checks."""

    rows: tuple  # (α, max test acc, (1−α)·max acc, acc mirror in, acc mirror out, share in, share explained)
    lowest_frac: float
    highest_frac: float
    ceiling_rise: float | None  # max test acc at the highest α − at the lowest (None with one α)
    count_spread: float | None  # spread of (1−α)·Acc over its mean, α ≥ 0.6 (all α if none)
    explained_min: float  # smallest share of correct answers explained by a trained mirror
    dnn_final_acc: float | None  # the DNN's final test accuracy (None: no DNN run on this page)


def commutativity_summary(comm: dict, count_from: float = 0.6) -> CommutativitySummary:
    """Fig. 4: the ceiling per α, the count (1−α)·Acc, and the commutativity split at the peak."""
    fr = [f for f in comm if f != "mlp"]
    rows = []
    for f in fr:
        h = comm[f]
        i = int(np.argmax(h["test_acc"]))
        share_in = h["mirror_in_share"]
        explained = share_in * h["acc_mirror_in"][i] / max(h["test_acc"][i], 1e-9)
        rows.append((f, float(h["test_acc"][i]), (1 - f) * float(h["test_acc"][i]), float(h["acc_mirror_in"][i]),
                     float(h["acc_mirror_out"][i]), share_in, explained))
    rise = spread = None
    if len(fr) > 1:
        rise = float(comm[fr[-1]]["test_acc"].max() - comm[fr[0]]["test_acc"].max())
        prod = [r[2] for r in rows if r[0] >= count_from] or [r[2] for r in rows]
        spread = float((max(prod) - min(prod)) / np.mean(prod))
    dnn = float(comm["mlp"]["test_acc"][-1]) if "mlp" in comm else None  # a page of kept results may lack it
    return CommutativitySummary(tuple(rows), fr[0], fr[-1], rise, spread, float(min(r[6] for r in rows)), dnn)


# ------------------------------------------------------------------------------- Fig. 5
@dataclass(frozen=True)
class PrimesSummary:
    """Fig. 5's windows, table and per-prime checks."""

    windows: dict  # p -> (train acc 0.99, mirror-untrained acc 0.95) window
    rows: tuple  # (p, onset, read on, first test acc ≥ 0.95, r(MED) window, r(W) window, r(MED) to end, r(W) to end,
    # MED init, min MED sum)
    final_test_acc: dict  # p -> final test accuracy
    med_r: dict  # p -> r(MED, test loss) over the window
    first: int  # the smallest prime (the run of the measure comparison)


def primes_summary(primes: dict) -> PrimesSummary:
    """Fig. 5: MED's and W(θ)'s correlation with the test loss, per prime."""
    rows = tuple((p, grok_step(h), onset_on(h), grok_step(h, key="test_acc"), window_r(h, "med"),
                  window_r(h, "wnorm2"), full_r(h, "med"), full_r(h, "wnorm2"), float(h["med"][0]),
                  float(h["med_sum"].min())) for p, h in primes.items())
    return PrimesSummary({p: window(h) for p, h in primes.items()}, rows,
                         {p: float(h["test_acc"][-1]) for p, h in primes.items()},
                         {p: window_r(h, "med") for p, h in primes.items()}, min(primes))


# ------------------------------------------------------------------------------- Fig. 8
@dataclass(frozen=True)
class ODESummary:
    """Fig. 8's checks."""

    largest_V_increase: float  # largest increase of V between output steps
    largest_xwu_error: float  # largest |xwu − 1| at the end
    median_distance_to_one: float  # median final distance to (1, 1, 1)
    largest_final_coordinate: float


def ode_summary(ode: dict) -> ODESummary:
    """Fig. 8: does V decrease, do trajectories reach xwu = 1, and where do they end?"""
    final = ode["traj"][:, -1]
    return ODESummary(float(np.diff(ode["V"], axis=1).max()), float(np.abs(final.prod(1) - 1).max()),
                      float(np.median(np.linalg.norm(final - 1, axis=1))), float(final.max()))


# ------------------------------------------------------------------------------- Figs. 9–11
@dataclass(frozen=True)
class WidthContrast:
    """One panel of Figs. 9–11: its narrowest and widest model."""

    narrowest: int  # d_model
    widest: int  # d_model
    ratio: float  # onset widest / narrowest (0 when only the widest groks, nan when the narrowest does not)


@dataclass(frozen=True)
class WidthsSummary:
    """Figs. 9–11's table and per-panel checks."""

    rows: tuple  # (figure, d_model, onset, read on, first test acc ≥ 0.95, max test acc, min MED sum)
    contrasts: dict  # (panel, widest d_model) -> WidthContrast


def widths_summary(widths: dict) -> WidthsSummary:
    """Figs. 9–11: does the widest model of each panel grok no later than the narrowest?"""
    rows = tuple((fig, d, grok_step(h), onset_on(h), grok_step(h, key="test_acc"), float(h["test_acc"].max()),
                  float(h["med_sum"].min()))
                 for (fig, d), h in widths.items())
    contrasts = {}
    for panel in dict.fromkeys(k[0] for k in widths):
        ds = sorted(k[1] for k in widths if k[0] == panel)
        t_small, t_big = grok_step(widths[(panel, ds[0])]), grok_step(widths[(panel, ds[-1])])
        contrasts[(panel, ds[-1])] = WidthContrast(ds[0], ds[-1], t_big / t_small if observed(t_small)
                                                   else (0.0 if observed(t_big) else float("nan")))
    return WidthsSummary(rows, contrasts)


# ------------------------------------------------------------------------------- Figs. 12–19
@dataclass(frozen=True)
class OperationCase:
    """One case of Figs. 12–19."""

    fig: str
    op: str
    p: int
    d_model: int
    train_frac: float
    max_test_acc: float
    grok_step: float  # onset (:func:`grok_step`), read on ``onset_on``
    onset_on: str
    med_r: float  # r(MED, test loss) over the window
    wnorm_r: float  # r(W, test loss) over the window
    window_end: str  # where the window ends, in words


def operations_summary(ops: dict, cases: tuple) -> dict:
    """Figs. 12–19: figure -> :class:`OperationCase`, in the config's order."""
    out = {}
    for fig, op, d, a, p in cases:
        h = ops[fig]
        t = grok_step(h)
        on = onset_on(h, op)
        out[fig] = OperationCase(fig, op, p, d, a, float(h["test_acc"].max()), t, on, window_r(h, "med"),
                                 window_r(h, "wnorm2"), f"accuracy 0.95 on {on}" if observed(t)
                                 else f"the end (accuracy on {on} stays below 0.95)")
    return out


# ------------------------------------------------------------------------------- Fig. 20
@dataclass(frozen=True)
class StructuredSummary:
    """Fig. 20's table and check."""

    rows: tuple  # (α, seed, onset random, onset Toeplitz, ratio)
    median_ratio: float  # median over the seeds with both onsets of onset Toeplitz / onset random (nan: none)


def structured_summary(struct: dict, fracs: tuple, seeds: tuple, onset: float = 0.5) -> StructuredSummary:
    """Fig. 20: grokking onset (first accuracy ≥ ``onset`` on mirror-untrained pairs, :func:`grok_step`)
    with random and Toeplitz W_E, per seed."""
    rows = []
    for a in fracs:
        for s in seeds:
            if ("random", a, s) not in struct or ("toeplitz", a, s) not in struct:
                continue  # (not computed at this scale)
            tr, tt = grok_step(struct[("random", a, s)], onset), grok_step(struct[("toeplitz", a, s)], onset)
            rows.append((a, s, tr, tt, ratio(tt, tr)))
    both = [r[4] for r in rows if observed(r[4])]
    return StructuredSummary(tuple(rows), float(np.median(both)) if both else float("nan"))
