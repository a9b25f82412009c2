"""One house style for every figure of the book.

Figure functions take results (plain dicts of arrays) and return a ``matplotlib`` Figure; they
never train or compute. Each figure is titled with the paper's figure number via
:func:`paper_title`, so a reader can lay the page beside the paper.
"""

from __future__ import annotations

import matplotlib as mpl
import matplotlib.pyplot as plt  # in a kernel this activates the inline backend's formatters
from matplotlib.figure import Figure

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
    """Apply the house style; inside a Jupyter kernel also make Figures display as PNG.

    Figures made by :func:`subplots` are not pyplot's, and the inline backend registers its
    display formatter only for figures it manages, so it is registered here explicitly.
    """
    mpl.rcParams.update(STYLE)
    try:
        from IPython import get_ipython

        if get_ipython() is not None:
            from matplotlib_inline.backend_inline import set_matplotlib_formats

            set_matplotlib_formats("png")
    except ImportError:  # no IPython: a plain script or `companion run`
        pass


def paper_title(ax, ref: str, text: str) -> None:
    """Title an axes as ``Paper Fig. N — text``."""
    ax.set_title(f"Paper {ref} — {text}" if ref else text)


def sweep_colors(n: int, cmap: str = "viridis"):
    """n colours along a colormap, for curves indexed by a swept parameter."""
    cm = plt.get_cmap(cmap)
    return [cm(i / max(n - 1, 1)) for i in range(n)]


def subplots(nrows: int = 1, ncols: int = 1, width: float = 4.2, height: float = 3.4, **kw):
    """A new Figure and a 2-D array of axes, sized per panel, with constrained layout.

    The Figure is not registered with pyplot: it is displayed once, where the chapter shows
    it (as a cell's value), never again at the end of the cell, and never leaks memory.
    """
    kw.setdefault("squeeze", False)
    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    return fig, fig.subplots(nrows, ncols, **kw)
