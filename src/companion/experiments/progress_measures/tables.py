"""Gu et al.'s items that are data rather than runs: Table 1's published numbers, Fig. 3's
split layouts, Table 2's notation, and the measured rows of the step benchmark."""

from __future__ import annotations

import numpy as np

from companion.data.modular import hole_mask, modular_split

PAPER_TABLE1 = {  # Table 1 (p = 97, α = 0.3): U-Acc %, L-Acc %, GO-Epoch
    ("square", 30): (99.04, 91.27, "1500±100"), ("square", 35): (91.07, 80.73, "1500±100"),
    ("square", 40): (84.50, 81.68, "1700±100"), ("square", 45): (79.03, 76.07, "1900±100"),
    ("square", 50): (77.39, 66.02, "3400±200"), ("square", 55): (62.09, 57.69, "2600±100"),
    ("square", 60): (57.31, 55.18, "2200±100"), ("strip", 67): (7.56, 3.58, "disappear"),
    ("strip", 60): (33.25, 17.05, "900±100"), ("strip", 50): (80.10, 73.61, "1600±100"),
    ("strip", 40): (89.89, 84.80, "1300±100"),
}


def split_layouts(p: int = 97, train_frac: float = 0.3, square: int = 40, strip: int = 50, seed: int = 0) -> dict:
    """Fig. 3's three layouts as p × p grids: 0 test, 1 train, 2 held-out hole (k = 40, t = 50:
    the figure does not state them). Also returns the counts for the check."""
    out = {}
    for name, shape, hole in (("random", "random", 0), (f"square k = {square}", "square", square),
                              (f"strip t = {strip}", "strip", strip)):
        d = modular_split(p, "add", 0, shape, hole, train_frac, seed)
        g = np.zeros((p, p), dtype=int)
        g[d.train_x[:, 0].numpy(), d.train_x[:, 1].numpy()] = 1
        a, b = d.test_x[:, 0], d.test_x[:, 1]
        held = hole_mask(a, b, shape, hole).numpy()
        g[a.numpy()[held], b.numpy()[held]] = 2
        out[name] = g
    return out


NOTATION = [  # Table 2 (App. A)
    ("mod", "the remainder when an integer is divided by p"), ("ℤ_p", "the field of the prime p, {0, 1, …, p−1}"),
    ("ℤ₊", "the positive integers"), ("f(i, j)", "a two-variable polynomial"),
    ("r(i, j)", "the remainder of f(i, j) modulo p"), ("I_d", "identity operator, I_d(x) = x"),
    ("l, l_O, l_V, l₁, l₂", "linear operators"), ("n", "normalisation operator"),
    ("r", "truncation operator: sets the components in a subspace to 0"), ("β_QK", "bilinear operator"),
    ("X", "input token collection"), ("φ", "the embedding function (word + position embedding)"),
    ("φ⁽ⁿ⁾", "the embedding function after n epochs"), ("×", "Cartesian product"),
    ("I × J", "the whole data set"), ("∼", "an equivalence relation"),
    ("S/∼", "the quotient of S by ∼ (its elements are subsets of S)"), ("I′ × J′", "the training set"),
    ("I″ × J″", "the test set"), ("c_i", "the vector of an optimisation direction"),
    ("ε_i", "the acceptable error distance of the model"), ("‖·‖", "operator norm"), ("‖·‖_F", "Frobenius norm"),
    ("W", "the weight-decay term"), ("E", "the critical value of weight decay"),
    ("Ω", "the set of parameters with W < E"), ("P(·)", "probability"), ("α, frac", "training-set ratio"),
    ("prop", "the share of the data set the training set covers within a given Manhattan distance"),
    ("E[·]", "mathematical expectation"), ("R, R_r", "the set of labels"),
    ("θ_r", "the value corresponding to the label r"), ("Ω_r", "the set corresponding to the label r"),
    ("𝟏_{Ω_r}", "the characteristic function of the set Ω_r"), ("Conv(A)", "the convex hull of the set A"),
]


def benchmark_result():
    """The measured rows of ``benchmarks/progress_measures_step.py`` (its JSON files: the CPU and,
    where one was measured, a GPU), or a note; the GPU's K-seed ensemble rows; and the split of the
    speed-up into the training step alone and evaluating less often (CPU seconds)."""
    import json
    from pathlib import Path

    here = Path(__file__).resolve().parents[4] / "benchmarks"
    rows, ensemble, split = [], [], []
    for f in ("progress_measures_step.json", "progress_measures_step_cuda.json"):
        if not (here / f).exists():
            continue
        data = json.loads((here / f).read_text())
        where = data.get("device", "cpu")
        where += f" (torch {data['torch']}, {data.get('date', 'undated')})" if "torch" in data else ""
        for r in data["rows"]:
            speed = r.get("speed-up (wall)", r.get("speed-up (CPU)"))
            rows.append({"device": where, "loop": r["loop"], "CPU s/epoch": r.get("CPU s/epoch", ""),
                         "wall s/epoch": r["wall s/epoch"], "speed-up over the first row of its device": speed})
        ensemble += [{"device": where, **r} for r in data.get("ensemble", [])]
        split += [{"device": where, "load average": data.get("load_average", ""), "factor": k, "speed-up": v}
                  for k, v in data.get("speed-up split", {}).items() if not isinstance(v, str)]
    if not rows:
        return "*benchmark not run on this checkout: `python benchmarks/progress_measures_step.py`*", [], []
    return rows, ensemble, split
