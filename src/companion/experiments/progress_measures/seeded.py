"""The chapter's claims over seeds: every trained-run claim is decided on one value per seed, the
seeds of a run trained as one batch, and every grokking onset is measured on the test pairs the
commutativity shortcut cannot explain.

* :func:`seeded` — ``{key: [history per seed]}`` for ``{key: Run}``: each run at the chapter's
  seed + each offset of ``seeds``, the runs of one :func:`~.runs.batch_signature` trained as one
  tensor program (:func:`~.runs.modular_runs`); the figures draw the first seed.
* :func:`onset` — the first epoch at which accuracy on the *mirror-untrained* test pairs (those
  whose mirror (j, i) was not trained; :func:`~.runs.mirror_split`) reaches a level. For a
  commutative f with a shared vocabulary about α of the test pairs have a trained mirror, so plain
  test accuracy sits on a plateau near α before anything is learned; onsets read off it measure
  that plateau's noise. For a non-commutative f (x − y) every test pair counts.
* the per-seed numbers of each figure's claims (:func:`med_tracking`, :func:`depth_seeds`, …).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from companion import runmode
from companion.events import NOT_OBSERVED, first_crossing, observed, ratio
from companion.store import kept

from .runs import COMMUTATIVE, batch_signature, modular_run, modular_runs

TRAIN_FIT = 0.99  # train accuracy taken as "memorised"
GROKKED = 0.95  # accuracy taken as "grokked"


# ------------------------------------------------------------------------------- runs
def _at(run, s: int):
    """The run at seed offset ``s`` (seed offset 0 is the run the figures draw)."""
    return replace(run, seed=run.seed + s)


def seeded(runs: dict, seeds: tuple, device: str) -> dict:
    """``{key: [history per seed]}``; on a page of kept results only the kept seeds (keys with none
    left out; :class:`~companion.store.kept.NotKept` when no key has one)."""
    if runmode.current().planning:  # `companion run`: record every run as a task, train nothing
        return {key: [modular_run(_at(r, s), device) for s in seeds] for key, r in runs.items()}
    if kept.viewing():
        out, missing = {}, None
        for key, r in runs.items():
            found = []
            for s in seeds:
                try:
                    found.append(modular_run(_at(r, s), device))
                except kept.NotKept as exc:
                    missing = exc
            if found:
                out[key] = found
        if not out and missing is not None:
            raise missing  # as kept.partial: shown as "not computed at this scale yet"
        return out
    groups: dict = {}
    for r in dict.fromkeys(_at(r, s) for r in runs.values() for s in seeds):
        groups.setdefault(batch_signature(r), []).append(r)
    for members in groups.values():
        for i in range(0, len(members), 24):
            modular_runs(members[i:i + 24], device)
    return {key: [modular_run(_at(r, s), device) for s in seeds] for key, r in runs.items()}


# ------------------------------------------------------------------------------- one history
def untrained_key(hist: dict) -> str:
    """The accuracy onsets are read from: mirror-untrained test pairs where f is commutative."""
    return "acc_mirror_out" if "acc_mirror_out" in hist else "test_acc"


def onset_on(hist: dict, op: str | None = None) -> str:
    """The test pairs :func:`untrained_key` reads in ``hist``, in words. All of them where the history
    has no mirror split: f not commutative (said so where the caller gives ``op``), an operand
    offset k > 0, or a kept result that predates the split (its onset is then the plain one)."""
    if untrained_key(hist) == "acc_mirror_out":
        return "mirror-untrained pairs"
    if op and op not in COMMUTATIVE:
        return "all test pairs (f not commutative: no shortcut)"
    return "all test pairs (no mirror split logged)"


def onset(hist: dict, level: float = GROKKED):
    """First epoch with accuracy ≥ ``level`` on the mirror-untrained test pairs (all test pairs
    for a non-commutative f); ``NOT_OBSERVED`` if the run never gets there."""
    return first_crossing(hist["step"], hist[untrained_key(hist)], level)


def fit_step(hist: dict):
    """First epoch with train accuracy ≥ 0.99 (``NOT_OBSERVED`` if never)."""
    return first_crossing(hist["step"], hist["train_acc"], TRAIN_FIT)


def window_mask(hist: dict) -> np.ndarray:
    """From memorisation (train acc 0.99) to the :func:`onset` of grokking, or to the end."""
    s = hist["step"]
    t0, t1 = fit_step(hist), onset(hist)
    t0 = float(t0) if observed(t0) else float(s[-1]) + 1
    t1 = float(t1) if observed(t1) else float(s[-1])
    return (s >= t0) & (s <= t1)


def tracking(hist: dict, key: str, mask: np.ndarray | None = None) -> float:
    """How well ``key`` traces the test loss: Pearson r with it (sign flipped for the Fourier Gini,
    which rises as the loss falls), over ``mask`` or the whole run; nan with < 3 points."""
    m = np.ones(len(hist["step"]), bool) if mask is None else mask
    if key not in hist or m.sum() < 3 or np.std(hist[key][m]) == 0:
        return float("nan")
    r = float(np.corrcoef(hist[key][m], hist["test_loss"][m])[0, 1])
    return -r if key == "gini" else r


def downward_steps(hist: dict, every: int, thr: float = 0.9):
    """Fluctuation without the trend: the sum of the downward steps of test accuracy between
    consecutive evaluations of the linear grid (every ``every`` epochs) after test accuracy first
    reaches ``thr`` (a run that climbs monotonically scores 0); ``NOT_OBSERVED`` if it never does."""
    t = first_crossing(hist["step"], hist["test_acc"], thr)
    if not observed(t):
        return NOT_OBSERVED
    s = hist["step"]
    d = np.diff(hist["test_acc"][(s % every == 0) & (s >= t)])
    return float(-d[d < 0].sum())


def med_levels(hist: dict) -> dict:
    """MED's level: start, peak (up to memorisation's end), end; the share of its rise it gives back."""
    med = hist["med"]
    t0 = fit_step(hist)
    upto = hist["step"] <= (float(t0) if observed(t0) else hist["step"][-1])
    peak = float(med[upto].max())
    rise = peak - float(med[0])
    return {"start": float(med[0]), "peak": peak, "end": float(med[-1]),
            "recovered": (peak - float(med[-1])) / rise if rise > 0 else float("nan")}


# ------------------------------------------------------------------------------- per figure
MEASURES = ("med", "wnorm2", "gini", "class_spread")  # class_spread: Thm 3.5, on the runs that log it


def rank_r(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rank correlation (Pearson r of the ranks; ties broken by order); nan with < 3 points."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(np.corrcoef(np.argsort(np.argsort(x)), np.argsort(np.argsort(y)))[0, 1])


def class_consistency(hists: list) -> dict | None:
    """Thm 3.5 per seed, from memorisation (train accuracy 0.99) to the end: the rank correlation of
    the class spread of the pair's representation (:func:`~companion.measures.embedding.pair_class_spread`,
    all p² pairs) with test accuracy (App. B.3: the δ_r shrink as the mastered set grows), and the
    spread at memorisation and at the end. None where the runs do not log it (e.g. kept runs that predate it)."""
    if not all("class_spread" in h for h in hists):
        return None
    out: dict = {"rho_acc": [], "at_fit": [], "end": [], "end_over_fit": [], "attn_end": [], "attn_rho_acc": []}
    for h in hists:
        t0 = fit_step(h)
        m = h["step"] >= (float(t0) if observed(t0) else h["step"][-1])
        at_fit = float(h["class_spread"][m][0])
        out["rho_acc"].append(rank_r(h["class_spread"][m], h["test_acc"][m]))
        out["at_fit"].append(at_fit)
        out["end"].append(float(h["class_spread"][-1]))
        out["end_over_fit"].append(float(h["class_spread"][-1]) / at_fit)
        # the control before the MLP (runs that predate it log only the final spread)
        attn = h.get("class_spread_attn")
        out["attn_end"].append(float(attn[-1]) if attn is not None else float("nan"))
        out["attn_rho_acc"].append(rank_r(attn[m], h["test_acc"][m]) if attn is not None else float("nan"))
    return out


def med_tracking(hists: list) -> dict:
    """Fig. 5's thesis per seed: each measure's tracking of the test loss in the window and over
    the whole run, MED's margin over the better baseline (W, Gini), and MED's level."""
    out: dict = {f"{k}_{w}": [] for k in MEASURES for w in ("window", "full")}
    out.update(margin_window=[], margin_full=[], end_over_start=[], recovered=[], window_points=[])
    for h in hists:
        m = window_mask(h)
        for k in MEASURES:
            out[f"{k}_window"].append(tracking(h, k, m))
            out[f"{k}_full"].append(tracking(h, k))
        for w in ("window", "full"):
            out[f"margin_{w}"].append(out[f"med_{w}"][-1] - max(out[f"wnorm2_{w}"][-1], out[f"gini_{w}"][-1]))
        lv = med_levels(h)
        out["end_over_start"].append(lv["end"] / lv["start"])
        out["recovered"].append(lv["recovered"])
        out["window_points"].append(int(m.sum()))
    return out


def depth_seeds(depth: dict, every: int) -> dict:
    """Fig. 2 per seed: downward steps of the deepest minus the shallowest model, and the deepest
    model's MED at the end over its MED at memorisation."""
    lo, hi = min(depth), max(depth)
    fl = {L: [downward_steps(h, every) for h in hs] for L, hs in depth.items()}
    excess = [b - a for a, b in zip(fl[lo], fl[hi])]
    return {"lo": lo, "hi": hi, "downward": fl, "excess": excess, "med_end_over_fit": med_end_over_fit(depth[hi])}


def med_end_over_fit(hists: list) -> list:
    """MED at the end over MED at memorisation (train accuracy 0.99; the last point if never), per history:
    Fig. 2's "the med keeps decreasing" after the training set is fit."""
    out = []
    for h in hists:
        t0 = fit_step(h)
        i = int(np.searchsorted(h["step"], float(t0))) if observed(t0) else len(h["step"]) - 1
        out.append(float(h["med"][-1] / h["med"][i]))
    return out


def width_ratios(widths: dict, panel: str) -> tuple:
    """Figs. 9–11 per seed: onset of the widest over the narrowest model of ``panel``."""
    ds = sorted(d for (fig, d) in widths if fig == panel)
    small, big = widths[(panel, ds[0])], widths[(panel, ds[-1])]
    return ds[0], ds[-1], [ratio(onset(b), onset(a), floor=1.0) for a, b in zip(small, big)]


def levelled(hist: dict, tail: float = 0.25, tol: float = 0.01) -> bool:
    """Has the run's accuracy on mirror-untrained pairs (:func:`untrained_key`) levelled off: did its best
    so far rise by at most ``tol`` over the last ``tail`` of the logged epochs? Only then is its best a
    ceiling (App. D.1's "final upper bound of test accuracy") and not a point on a climb still under way."""
    a = np.maximum.accumulate(np.asarray(hist[untrained_key(hist)], dtype=float))
    k = min(int(len(a) * (1 - tail)), len(a) - 1)
    return bool(a[-1] - a[k] <= tol)


def width_ceilings(widths: dict, panel: str) -> dict:
    """Fig. 10–11 per seed: the best accuracy on mirror-untrained test pairs (all test pairs where
    the split means nothing, e.g. k > 0) of the narrowest and the widest model of ``panel``; the
    ceiling gain, widest minus narrowest, observed only where both runs have :func:`levelled` off (a best
    taken mid-climb is not a ceiling); the widest model's onset (:func:`onset`) and its best plain test
    accuracy, and each one's final test accuracy. With the class spread logged (:func:`class_consistency`),
    ``spread`` {width: its dict} and ``spread_gap`` per seed: the final spread of the run that does not
    generalise minus that of the run that does (onset observed in exactly one of the two widths; not
    observed otherwise), and ``spread_gap_contrast`` the seeds that have that contrast. None where the panel has
    fewer than two widths."""
    ds = sorted(d for (fig, d) in widths if fig == panel)
    if len(ds) < 2:
        return None
    lo, hi = ds[0], ds[-1]
    best = {d: [float(h[untrained_key(h)].max()) for h in widths[(panel, d)]] for d in (lo, hi)}
    flat = {d: [levelled(h) for h in widths[(panel, d)]] for d in (lo, hi)}
    spread = {d: class_consistency(widths[(panel, d)]) for d in (lo, hi)}
    grokked = {d: [observed(onset(h)) for h in widths[(panel, d)]] for d in (lo, hi)}
    gap = None
    if None not in spread.values():
        gap = []
        for i, (g_lo, g_hi) in enumerate(zip(grokked[lo], grokked[hi])):
            if g_lo == g_hi:
                gap.append(NOT_OBSERVED)  # both or neither generalise: no contrast in this seed
            else:
                gen, non = (hi, lo) if g_hi else (lo, hi)
                gap.append(spread[non]["end"][i] - spread[gen]["end"][i])
    return {"narrow": lo, "wide": hi, "best": best, "levelled": flat, "grokked": grokked, "spread": spread,
            "spread_gap": gap, "spread_gap_contrast": [g for g in gap if observed(g)] if gap is not None else None,
            "gain": [b - a if fa and fb else NOT_OBSERVED
                     for a, b, fa, fb in zip(best[lo], best[hi], flat[lo], flat[hi])],
            "wide_onset": [onset(h) for h in widths[(panel, hi)]],
            "wide_best_test": [float(h["test_acc"].max()) for h in widths[(panel, hi)]],
            "final": {d: [float(h["test_acc"][-1]) for h in widths[(panel, d)]] for d in (lo, hi)},
            "narrow_best_test": [float(h["test_acc"].max()) for h in widths[(panel, lo)]]}


def structured_ratios(struct: dict, frac: float) -> dict:
    """Fig. 20 per seed: onsets (mirror-untrained accuracy 0.95) with random and Toeplitz W_E, and
    their ratio (``NOT_OBSERVED`` where either arm never groks in the budget)."""
    rnd = [onset(h) for h in struct[("random", frac)]]
    toe = [onset(h) for h in struct[("toeplitz", frac)]]
    return {"random": rnd, "toeplitz": toe, "ratio": [ratio(t, r) for r, t in zip(rnd, toe)],
            "max_out": [float(h[untrained_key(h)].max()) for k in (("random", frac), ("toeplitz", frac))
                        for h in struct[k]]}


def commutativity_seeds(comm: dict, count_from: float = 0.0) -> dict:
    """Fig. 4 per seed: the ceiling's rise from the lowest to the highest α, the spread of
    (1−α)·Acc over α ≥ ``count_from`` (every α of the paper by default), the smallest share (over α) of correct
    test answers at the peak whose mirror was trained, the best mirror-untrained accuracy, and the DNN's best
    test accuracy. The ``sym_*`` entries are the same rise and spread for a model that knows only the symmetry:
    it answers exactly the test pairs whose mirror was trained, so its accuracy is their share (the control)."""
    fr = [f for f in comm if f != "mlp"]
    n = len(comm[fr[0]])
    out: dict = {"rise": [], "spread": [], "explained": [], "untrained_max": [], "dnn_max": [], "sym_rise": [],
                 "sym_spread": []}

    def spread(acc: dict) -> float:
        prod = [(1 - f) * acc[f] for f in fr if f >= count_from] or [(1 - f) * acc[f] for f in fr]
        return float((max(prod) - min(prod)) / np.mean(prod))

    for i in range(n):
        peak = {f: float(comm[f][i]["test_acc"].max()) for f in fr}
        if len(fr) > 1:
            out["rise"].append(peak[fr[-1]] - peak[fr[0]])
            out["spread"].append(spread(peak))
            if all("mirror_in_share" in comm[f][i] for f in fr):
                sym = {f: float(comm[f][i]["mirror_in_share"]) for f in fr}
                out["sym_rise"].append(sym[fr[-1]] - sym[fr[0]])
                out["sym_spread"].append(spread(sym))
        expl = []
        for f in fr:
            h = comm[f][i]
            j = int(np.argmax(h["test_acc"]))
            if "acc_mirror_in" in h:
                expl.append(h["mirror_in_share"] * float(h["acc_mirror_in"][j]) / max(float(h["test_acc"][j]), 1e-9))
        out["explained"].append(min(expl) if expl else float("nan"))
        out["untrained_max"].append(max(float(comm[f][i][untrained_key(comm[f][i])].max()) for f in fr))
        if "mlp" in comm and i < len(comm["mlp"]):
            out["dnn_max"].append(float(comm["mlp"][i]["test_acc"].max()))
    return out


def operations_seeds(ops: dict, cases: tuple) -> dict:
    """Figs. 12–19 per seed, by figure: MED's and W's tracking of the test loss in the window
    (memorisation to onset, or to the end) and over the run, the onset, final and best test accuracy."""
    out = {}
    for fig, op, d, a, p in cases:
        if fig not in ops:
            continue
        hs = ops[fig]
        out[fig] = {"op": op, "p": p, "d_model": d, "alpha": a,
                    "med_window": [tracking(h, "med", window_mask(h)) for h in hs],
                    "wnorm2_window": [tracking(h, "wnorm2", window_mask(h)) for h in hs],
                    "med_full": [tracking(h, "med") for h in hs],
                    "wnorm2_full": [tracking(h, "wnorm2") for h in hs],
                    "window_points": [int(window_mask(h).sum()) for h in hs],
                    "onset": [onset(h) for h in hs],
                    "onset_on": onset_on(hs[0], op),
                    "final": [float(h["test_acc"][-1]) for h in hs],
                    "best": [float(h["test_acc"].max()) for h in hs],
                    "untrained_best": [float(h[untrained_key(h)].max()) for h in hs]}
    return out


def grokked(hists: list, did: bool = True) -> list:
    """The histories whose mirror-untrained test accuracy reaches the :func:`onset` (the runs that grok), or
    with ``did=False`` those that never do (a control's runs)."""
    return [h for h in hists if observed(onset(h)) == did]
