"""One house style for every figure of the book.

Figure functions take results (plain dicts of arrays) and return a ``matplotlib`` Figure; they
never train or compute. Each figure is titled with the paper's figure number via
:func:`paper_title`, so a reader can lay the page beside the paper.
"""

from __future__ import annotations

import os

os.environ.setdefault("MPLBACKEND", "agg")

import matplotlib as mpl  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "figure.figsize": (6.4, 3.8),
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "font.size": 10,
    "axes.titlesize": 10,
    "svg.hashsalt": "companion",  # deterministic SVG bytes
    "image.cmap": "viridis",
}

#: colours for train / test and for sweeps
TRAIN, TEST = "#1f77b4", "#d62728"


def use_style() -> None:
    mpl.rcParams.update(STYLE)


def paper_title(ax, ref: str, text: str) -> None:
    """Title an axes as ``Paper Fig. N — text``."""
    ax.set_title(f"Paper {ref} — {text}" if ref else text)


def sweep_colors(n: int, cmap: str = "viridis"):
    """n colours along a colormap, for curves indexed by a swept parameter."""
    cm = plt.get_cmap(cmap)
    return [cm(i / max(n - 1, 1)) for i in range(n)]


def subplots(nrows: int = 1, ncols: int = 1, width: float = 4.2, height: float = 3.4, **kw):
    """``plt.subplots`` sized per panel, with constrained layout."""
    kw.setdefault("squeeze", False)
    return plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows),
                        layout="constrained", **kw)
