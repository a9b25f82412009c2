"""Figures of the synthesis chapter: the four clocks, and each setting's curves with its diagnostics."""

from __future__ import annotations

import matplotlib
import numpy as np

from companion.events import observed
from companion.plotting import TEST, TRAIN, paper_title, subplots

#: one marker per diagnostic
MARKERS = {"kernel_distance": "o", "alignment": "s", "med_invariant": "^", "param_sq": "D"}
LABELS = {"kernel_distance": "kernel distance", "alignment": "alignment", "med_invariant": "MED (invariant)",
          "param_sq": "Σ‖θ‖²"}
#: one colour per diagnostic, the same in every row (a row without one diagnostic shifts no other's colour)
COLOURS = {d: f"C{i}" for i, d in enumerate(MARKERS)}


def distinct_colours(n: int) -> list:
    """n colours no two alike: tab10's ten hues, then tab20's lighter shades of them (a colormap sampled at
    n points repeats its colours once n exceeds its count)."""
    tab20 = matplotlib.colormaps["tab20"].colors
    order = list(tab20[0::2]) + list(tab20[1::2])
    if n > len(order):
        raise ValueError(f"{n} settings: at most {len(order)} distinct colours")
    return order[:n]


def four_clocks(points: list[dict], settings: list[str]):
    """Each diagnostic's crossing step against the step at which test accuracy reaches 0.9, log–log:
    marker per diagnostic, colour per setting, hollow for interventions; the diagonal with its ×2
    band; a rug along the top for crossings never observed (at the run's t_test) and along the right
    for runs whose test accuracy never reaches 0.9 (at their crossing)."""
    fig, axes = subplots(1, 1, width=6.4, height=5.0)
    ax = axes[0, 0]
    colours = dict(zip(settings, distinct_colours(len(settings))))  # the legend stands outside: 17 settings
    # would hide the points and the top rug
    seen = [p for p in points if observed(p["t_cross"]) and observed(p["t_test"])]
    vals = [v for p in seen for v in (p["t_cross"], p["t_test"])] or [1, 10]
    lo, hi = max(min(vals) / 3, 1), max(vals) * 3
    grid = np.geomspace(lo, hi, 50)
    ax.plot(grid, grid, color="k", lw=1)
    ax.fill_between(grid, grid / 2, grid * 2, color="0.85", lw=0, label="×2 band")
    for p in seen:
        c = colours[p["setting"]]
        ax.scatter(p["t_test"], max(p["t_cross"], lo), marker=MARKERS[p["diagnostic"]], s=36,
                   facecolors="none" if p["hollow"] else c, edgecolors=c, linewidths=1.2)
    for p in points:
        c = colours[p["setting"]]
        if observed(p["t_test"]) and not observed(p["t_cross"]):
            ax.plot([p["t_test"]] * 2, [hi / 1.5, hi], color=c, lw=1.5)
        elif observed(p["t_cross"]) and not observed(p["t_test"]):
            ax.plot([hi / 1.5, hi], [max(p["t_cross"], lo)] * 2, color=c, lw=1.5)
    for s in settings:
        ax.scatter([], [], color=colours[s], marker="o", label=s)
    for d, m in MARKERS.items():
        ax.scatter([], [], facecolors="none", edgecolors="k", marker=m, label=LABELS[d])
    ax.set(xscale="log", yscale="log", xlim=(lo, hi), ylim=(lo, hi), xlabel="step test accuracy reaches 0.9",
           ylabel="step a diagnostic crosses halfway (from t_tr)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    paper_title(ax, "", "four clocks")
    return fig


def setting_curves(runs: dict, names=None, diagnostics=("kernel_distance", "alignment", "med_invariant", "param_sq")):
    """One row per setting in ``names`` (default: every run; first seed): accuracies, then each diagnostic
    scaled to [0, 1] over the run."""
    names = list(runs) if names is None else [n for n in names if n in runs]
    fig, axes = subplots(len(names), 2, width=4.2, height=2.4)
    for r, name in enumerate(names):
        h = runs[name][0]
        s = np.clip(h["step"], 1, None)
        ax = axes[r, 0]
        ax.plot(s, h["train_acc"], color=TRAIN, label="train")
        ax.plot(s, h["test_acc"], color=TEST, label="test")
        ax.set(xscale="log", ylabel="accuracy", ylim=(-0.02, 1.02))
        paper_title(ax, "", name)
        ax = axes[r, 1]
        for d in diagnostics:
            if d in h:
                v = np.asarray(h[d], float)
                span = np.nanmax(v) - np.nanmin(v)
                ax.plot(s, (v - np.nanmin(v)) / span if span > 0 else v * 0, label=LABELS[d],
                        marker=MARKERS[d], color=COLOURS[d], ms=2.5, lw=1)
        ax.set(xscale="log", ylabel="scaled to [0, 1]")
        if r == 0:
            axes[r, 0].legend(fontsize=7)
            ax.legend(fontsize=7)
    axes[-1, 0].set_xlabel("step")
    axes[-1, 1].set_xlabel("step")
    return fig
