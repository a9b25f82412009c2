"""Figures of the progress_measures chapter (Gu et al., "Beyond Progress Measures").

Results in, Figure (or Markdown table) out. The paper draws its curves on linear axes against
epochs (one full-batch step = one epoch); so do these, with the raw logged values. The tables
take the summaries of :mod:`companion.experiments.progress_measures.summaries`.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from companion.plotting import TEST, TRAIN, paper_title, subplots, sweep_colors


def md_table(header: list[str], rows) -> str:
    """A Markdown table (display it with ``IPython.display.Markdown``)."""
    def fmt(v) -> str:  # a "|" inside a cell ("mean |Δ acc|") would end the cell
        return (f"{v:.3g}" if isinstance(v, float) else str(v)).replace("|", "\\|")
    lines = ["| " + " | ".join(fmt(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(v) for v in r) + " |" for r in rows]
    return "\n".join(lines)


def fig1_concept():
    """Fig. 1 is a concept diagram: two causes (embedding uniformity under weight decay; a
    training set that covers the task) feeding grokking in three model families."""
    fig, axes = subplots(1, 1, width=9, height=3.2)
    ax = axes[0, 0]
    ax.set_axis_off()
    box = dict(boxstyle="round,pad=0.5", fc="#eef3fb", ec="#1f77b4")
    ax.text(0.15, 0.75, "weight decay\n→ uniform token embeddings\n(small MED, Thm 3.8)", ha="center", va="center",
            bbox=box)
    ax.text(0.15, 0.25, "training-set distribution\ncovers the task\n(Thm 3.12)", ha="center", va="center", bbox=box)
    ax.text(0.55, 0.5, "grokking", ha="center", va="center", fontsize=14,
            bbox=dict(boxstyle="round,pad=0.6", fc="#fdecea", ec=TEST))
    ax.text(0.88, 0.5, "DNN\nTransformer\nResNet-18", ha="center", va="center", bbox=box)
    for y in (0.75, 0.25):
        ax.annotate("", xy=(0.47, 0.5), xytext=(0.31, y), arrowprops=dict(arrowstyle="->"))
    ax.annotate("", xy=(0.79, 0.5), xytext=(0.63, 0.5), arrowprops=dict(arrowstyle="<->"))
    ax.set(xlim=(0, 1), ylim=(0, 1))
    paper_title(ax, "Fig. 1", "the two ingredients of grokking (diagram)")
    return fig


def fig3_splits(layouts: dict):
    """Fig. 3: train (blue) / test (grey) / held-out hole (dark grey) over the (i, j) grid."""
    from matplotlib.colors import ListedColormap

    fig, axes = subplots(1, len(layouts), width=3.4, height=3.4)
    cmap = ListedColormap(["#c8c8c8", TRAIN, "#555555"])
    for ax, (name, grid) in zip(axes[0], layouts.items()):
        ax.imshow(grid, cmap=cmap, vmin=0, vmax=2, origin="lower", interpolation="nearest")
        ax.set(xlabel="j", ylabel="i")
        ax.grid(False)
        paper_title(ax, "Fig. 3", name)
    return fig


def _curves(ax, h, key, **kw):
    """One logged quantity against epoch."""
    ax.plot(h["step"], h[key], **kw)


def metric_rows(hists: dict, ref: str, med_key: str = "med"):
    """Figs. 12–19: one row per run: (a) loss, (b) accuracy, (c) MED — the authors' ``plot_metrics`` layout."""
    fig, axes = subplots(len(hists), 3, width=3.6, height=2.7)
    for row, (label, h) in zip(axes, hists.items()):
        _curves(row[0], h, "train_loss", color=TRAIN, label="train")
        _curves(row[0], h, "test_loss", color=TEST, label="test")
        row[0].set(ylabel="loss", xlabel="epoch")
        row[0].legend()
        _curves(row[1], h, "train_acc", color=TRAIN)
        _curves(row[1], h, "test_acc", color=TEST)
        row[1].set(ylabel="accuracy", xlabel="epoch", ylim=(-0.02, 1.02))
        _curves(row[2], h, med_key, color="k")
        row[2].set(ylabel="MED" + (" (sum)" if med_key == "med_sum" else ""), xlabel="epoch")
        paper_title(row[0], ref, f"{label} loss")
        row[1].set_title(f"{label} accuracy")
        row[2].set_title(f"{label} MED")
        for ax in row:
            ax.xaxis.set_major_locator(MaxNLocator(4))  # 30 000 epochs: five-digit ticks would touch
    return fig


def shade_window(ax, win):
    """Shade Fig. 5's correlation window (train accuracy 0.99 to mirror-untrained accuracy 0.95)."""
    t0, t1 = win
    if np.isfinite(t0):
        ax.axvspan(t0, t1, color="#f5d76e", alpha=0.35, lw=0)


def fig2_depth(runs: dict):
    """Fig. 2: test accuracy and MED for each depth."""
    fig, axes = subplots(1, 2, width=4.4)
    for c, (L, h) in zip(sweep_colors(len(runs), "plasma_r"), runs.items()):
        axes[0, 0].plot(h["step"], h["test_acc"], color=c, label=f"{L} layer{'s' * (L > 1)}")
        axes[0, 1].plot(h["step"], h["med"], color=c)
    axes[0, 0].set(xlabel="epoch", ylabel="test accuracy")
    axes[0, 0].legend()
    axes[0, 1].set(xlabel="epoch", ylabel="MED")
    paper_title(axes[0, 0], "Fig. 2", "more layers")
    return fig


def fig4_commutativity(runs: dict):
    """Fig. 4: accuracy for f = i² + ij + j² per α; test accuracy split by mirror-in-train; the DNN."""
    fig, axes = subplots(1, 3, width=3.8)
    fracs = [f for f in runs if f != "mlp"]
    for c, f in zip(sweep_colors(len(fracs)), fracs):
        h = runs[f]
        axes[0, 0].plot(h["step"], h["train_acc"], color=c, ls=":")
        axes[0, 0].plot(h["step"], h["test_acc"], color=c, label=f"α = {f}")
        axes[0, 1].plot(h["step"], h["acc_mirror_in"], color=c, label=f"α = {f}: mirror (j, i) in train")
        axes[0, 1].plot(h["step"], h["acc_mirror_out"], color=c, ls="--", label=f"α = {f}: mirror not in train")
    axes[0, 0].set(xlabel="epoch", ylabel="accuracy (dotted: train)", ylim=(-0.02, 1.02))
    axes[0, 0].legend()
    axes[0, 1].set(xlabel="epoch", ylabel="test accuracy", ylim=(-0.02, 1.02))
    axes[0, 1].legend(fontsize=7)
    if "mlp" in runs:  # (a page of paper-scale results may not have it)
        h = runs["mlp"]
        axes[0, 2].plot(h["step"], h["train_acc"], color=TRAIN, label="train")
        axes[0, 2].plot(h["step"], h["test_acc"], color=TEST, label="test")
        axes[0, 2].legend()
    axes[0, 2].set(xlabel="epoch", ylabel="accuracy", ylim=(-0.02, 1.02))
    paper_title(axes[0, 0], "Fig. 4", "transformer, i² + ij + j²")
    axes[0, 1].set_title("commutativity split (not in paper)")
    axes[0, 2].set_title("2-layer DNN")
    return fig


def fig5_primes(runs: dict, windows: dict):
    """Fig. 5: loss, MED (sum, as the caption) and accuracy for each p; shaded: the window used for
    the correlation, from train accuracy 0.99 to accuracy 0.95 on the mirror-untrained test pairs
    (the end when it never gets there)."""
    fig, axes = subplots(len(runs), 3, width=3.6, height=2.7)
    for row, (p, h) in zip(axes, runs.items()):
        row[0].plot(h["step"], h["train_loss"], color=TRAIN, label="train")
        row[0].plot(h["step"], h["test_loss"], color=TEST, label="test")
        row[1].plot(h["step"], h["med_sum"], color="k")
        row[2].plot(h["step"], h["train_acc"], color=TRAIN)
        row[2].plot(h["step"], h["test_acc"], color=TEST)
        for ax in row:
            shade_window(ax, windows[p])
            ax.set_xlabel("epoch")
        row[0].set_ylabel("loss")
        row[0].legend()
        row[1].set_ylabel("MED (sum)")
        row[2].set(ylabel="accuracy", ylim=(-0.02, 1.02))
        paper_title(row[0], "Fig. 5", f"p = {p}")
    return fig


def measure_comparison(h: dict, win):
    """Beside Fig. 5, not in the paper: MED next to the other progress measures, each scaled to [0, 1]."""
    fig, axes = subplots(1, 1, width=7.5, height=3.6)
    ax = axes[0, 0]
    keys = [("test_loss", "test loss", TEST), ("med", "MED", "k"), ("wnorm2", "weight norm² W(θ)", "#2ca02c"),
            ("gini", "Fourier Gini of W_E", "#9467bd"), ("class_spread", "class spread (Thm 3.5)", "#17becf"),
            ("restricted", "restricted loss", "#ff7f0e"),
            ("excluded", "excluded loss", "#8c564b")]
    for key, label, c in keys:
        if key in h:
            v = np.asarray(h[key], dtype=float)
            ax.plot(h["step"], (v - v.min()) / (np.ptp(v) or 1), color=c, label=label)
    shade_window(ax, win)
    ax.set(xlabel="epoch", ylabel="scaled to [0, 1]")
    ax.legend(fontsize=8, ncol=2)
    paper_title(ax, "", "progress measures side by side (not in paper)")
    return fig


def fig6_dataset(tiles: np.ndarray, sides: tuple, samples: np.ndarray, sample_labels: np.ndarray):
    """Fig. 6: the 11-entry dictionary (top-left quadrant geometry) and generated samples."""
    fig, axes = subplots(2, max(len(sides), len(samples)), width=1.1, height=1.3)
    for ax in axes.ravel():
        ax.set_axis_off()
    for ax, t, s in zip(axes[0], tiles, sides):
        ax.imshow(t, cmap="gray", vmin=0, vmax=255)
        ax.set_title(f"w = {s}", fontsize=8)
    for ax, im, y in zip(axes[1], samples, sample_labels):
        ax.imshow(im, cmap="gray", vmin=0, vmax=255)
        ax.set_title(f"label {y}", fontsize=8)
    axes[0, 0].set_title("Paper Fig. 6 — w = 0", fontsize=8)
    return fig


def fig7_resnet(h: dict, cfg=None):
    """Fig. 7: train (running) and eval-mode test accuracy per epoch; ``cfg`` (ImageRun) sizes the title."""
    fig, axes = subplots(1, 1, width=6)
    ax = axes[0, 0]
    ax.plot(h["epoch"], h["train_acc"], color=TRAIN, label="train (running, train mode)")
    ax.plot(h["test_epoch"], h["test_acc"], "o-", color=TEST, ms=3, label="test (eval mode)")
    ax.axhline(h["chance"], color="grey", ls=":", lw=1, label="largest class")
    ax.set(xlabel="epoch", ylabel="accuracy", ylim=(-0.02, 1.02))
    ax.legend()
    what = "" if cfg is None else f" layout, width {cfg.width}, {cfg.size}² images, {cfg.epochs} epochs"
    paper_title(ax, "Fig. 7", f"ResNet-18{what}, polygon sums (from scratch)")
    return fig


def fig8_ode(res: dict, n_show: int = 40):
    """Fig. 8: trajectories of App. C's flow in 3-D, and the Lyapunov function along them."""
    fig = subplots(1, 1)[0]
    fig.clf()
    fig.set_size_inches(9, 3.8)
    ax = fig.add_subplot(1, 2, 1, projection="3d")
    for tr in res["traj"][:n_show]:
        ax.plot(tr[:, 0], tr[:, 1], tr[:, 2], lw=0.7, color="#1f77b4", alpha=0.7)
    ax.scatter([1], [1], [1], color=TEST, s=30)
    ax.set(xlabel="x", ylabel="w", zlabel="u")
    ax.set_title("Paper Fig. 8 — trajectories of eqs. (14)–(16)")
    ax2 = fig.add_subplot(1, 2, 2)
    ax2.plot(res["t"], res["V"][:n_show].T, lw=0.7, color="k", alpha=0.5)
    ax2.set(xlabel="t", ylabel="V = Σ(·−1)²", yscale="log")
    ax2.set_title("Lyapunov function along trajectories")
    return fig


def width_curves(runs: dict, panels: tuple = (), alpha: float | None = None):
    """Figs. 9–11: mirror-untrained test accuracy per d_model; ``panels`` (figure, p, k, widths) title each panel."""
    names, where = list(dict.fromkeys(k[0] for k in runs)), {f: (p, k) for f, p, k, _ in panels}
    fig, axes = subplots(1, len(names), width=4.4)
    for ax, panel in zip(axes[0], names):
        keys = [k for k in runs if k[0] == panel]
        for c, key in zip(sweep_colors(len(keys)), keys):
            h = runs[key]
            ax.plot(h["step"], h["acc_mirror_out" if "acc_mirror_out" in h else "test_acc"], color=c,
                    label=f"d_model = {key[1]}")
            ax.plot(h["step"], h["train_acc"], color=c, ls=":")
        ax.set(xlabel="epoch", ylabel="mirror-untrained test accuracy (dotted: train)", ylim=(-0.02, 1.02))
        ax.legend()
        p, k = where.get(panel, ("?", "?"))
        ref, sub = panel.split(" (")[0], panel[len(panel.split(" (")[0]):].strip()  # "Fig. 9", "(right)"
        paper_title(ax, ref, f"{sub + ': ' if sub else ''}p = {p}, k = {k}" + (f", α = {alpha:g}" if alpha else ""))
    return fig


def fig20_structured(runs: dict):
    """Fig. 20: test accuracy, random (left) vs Toeplitz (right) W_E init, one row per α."""
    fracs = sorted({k[1] for k in runs}, reverse=True)
    fig, axes = subplots(len(fracs), 2, width=4.4, height=3)
    for row, a in zip(axes, fracs):
        for ax, init in zip(row, ("random", "toeplitz")):
            keys = [k for k in runs if k[0] == init and k[1] == a]
            for c, key in zip(sweep_colors(len(keys)), keys):
                h = runs[key]
                ax.plot(h["step"], h["test_acc"], color=c, label=f"seed {key[2]}")
                ax.plot(h["step"], h["train_acc"], color=c, ls=":")
            ax.set(xlabel="epoch", ylabel="accuracy", ylim=(-0.02, 1.02))
            ax.legend(fontsize=8)
            paper_title(ax, "Fig. 20", f"{init} W_E, α = {a}")
    return fig


def coverage_plot(res: dict):
    """Thm 3.12: covered fraction of test pairs (Monte Carlo) against k, with the bound's α."""
    rows = res["rows"]
    fig, axes = subplots(1, 2, width=4.4)
    alphas = sorted({r["alpha"] for r in rows})
    for c, a in zip(sweep_colors(len(alphas)), alphas):
        rr = [r for r in rows if r["alpha"] == a]
        axes[0, 0].plot([r["k"] for r in rr], [r["covered_test_frac"] for r in rr], "o-", color=c,
                        label=f"α = {a} (torus)")
        axes[0, 0].plot([r["k"] for r in rr], [r["covered_test_frac_box"] for r in rr], "s--", color=c,
                        label=f"α = {a} (no wrap)")
    axes[0, 0].set(xlabel="k (cover radius)", ylabel="covered share of test pairs")
    axes[0, 0].legend(fontsize=8)
    ks = sorted({r["k"] for r in rows})
    axes[0, 1].plot(ks, [next(r["alpha_min"] for r in rows if r["k"] == k) for k in ks], "o-", color="k")
    axes[0, 1].set(xlabel="k", ylabel="α > 2 ln p / C(k)", yscale="log")
    paper_title(axes[0, 0], "Thm 3.12", "coverage, Monte Carlo")
    axes[0, 1].set_title("the bound's training fraction")
    return fig


def operation_curves(runs: dict, cases: tuple):
    """Figs. 12–19: :func:`metric_rows`, each run labelled by its figure, function and its own p, d_model, α."""
    ops = {c[0]: f"{c[1]}\n(p = {c[4]}, d = {c[2]}, α = {c[3]})" for c in cases}
    return metric_rows({f"{fig}: {ops[fig]}": h for fig, h in runs.items()}, "Figs. 12–19")


# ------------------------------------------------------------------------------- tables
def _md(header: list[str], rows):
    from IPython.display import Markdown

    return Markdown(md_table(header, [list(r) for r in rows]))


def coverage_table(cov: dict):
    """Thm 3.12: the bound and the Monte-Carlo coverage per (k, α)."""
    return _md(["k", "C", "α > 2 ln p / C", "α", "union bound p²(1−C/p²)^{αp²}", "mean uncovered (MC)",
                "covered test share (torus)", "covered test share (no wrap)"],
               [[r["k"], r["C"], r["alpha_min"], r["alpha"], r["union_bound"], r["uncovered_mean"],
                 r["covered_test_frac"], r["covered_test_frac_box"]] for r in cov["rows"]])


ONSET = "onset: acc ≥ 0.95 on"  # the onset column's head; the next column names the pairs it was read on
PLAIN = "first test acc ≥ 0.95 (all pairs, for comparison)"


def depth_table(summary):
    """Fig. 2: onset, post-grokking fluctuation and MED per depth."""
    return _md(["layers", ONSET, "read on", PLAIN, "mean |Δ test acc| after test acc ≥ 0.9", "MED peak",
                "MED end"], summary.rows)


def table1(holes: dict, summary, paper: dict):
    """Table 1: U-Acc, L-Acc and GO-Epoch here and in the paper, and the best accuracy inside the
    hole and elsewhere. GO-Epoch here is read on the mirror-untrained test pairs (its column says on
    which), with the one read on all test pairs beside it."""
    rows = []
    for (shape, k), s in summary.stats.items():
        pu, pl, pgo = paper.get((shape, k), ("–", "–", "–"))
        h = holes[(shape, k)]
        rows.append([shape.upper(), k, round(100 * s["u_acc"], 2), pu, round(100 * s["l_acc"], 2), pl, s["go"],
                     s["go_on"], s["go_all"], pgo, round(100 * float(h["acc_hole"].max()), 1),
                     round(100 * float(h["acc_rest"].max()), 1)])
    return _md(["method", "para", "U-Acc % (here)", "U-Acc % (paper)", "L-Acc % (here)", "L-Acc % (paper)",
                "GO-Epoch (here)", "GO-Epoch read on", "GO-Epoch on all test pairs", "GO-Epoch (paper)",
                "max acc in hole %", "max acc elsewhere %"], rows)


def table1_paper(paper: dict):
    """Table 1 as printed in the paper (p = 97, α = 0.3)."""
    from IPython.display import Markdown

    return Markdown("The paper's rows (p = 97, α = 0.3), for comparison:\n\n" + md_table(
        ["method", "para", "U-Acc %", "L-Acc %", "GO-Epoch"], [[s.upper(), k, *v] for (s, k), v in paper.items()]))


def commutativity_table(summary):
    """Fig. 4: the ceiling per α and how much of it memorised commutativity explains."""
    return _md(["α", "max test acc", "(1−α)·max acc", "acc, mirror in train", "acc, mirror not in train",
                "share of test pairs with mirror in train", "share of correct answers explained by mirror"],
               summary.rows)


def primes_table(summary):
    """Fig. 5: onset, and MED's and W(θ)'s correlation with the test loss per prime (the window ends
    at the onset)."""
    return _md(["p", ONSET, "read on", PLAIN, "r(MED, test loss) window", "r(W, test loss) window",
                "r(MED) train acc 0.99 → end", "r(W) train acc 0.99 → end", "MED at init", "min MED (sum)"],
               summary.rows)


def ode_note(summary):
    """Fig. 8: where the trajectories end."""
    from IPython.display import Markdown

    return Markdown(f"Median final distance to (1, 1, 1): **{summary.median_distance_to_one:.3f}**; "
                    f"largest final coordinate **{summary.largest_final_coordinate:.3f}**.")


def widths_table(summary):
    """Figs. 9–11: onset, best test accuracy and MED per (panel, d_model)."""
    return _md(["figure", "d_model", ONSET, "read on", PLAIN, "max test acc", "min MED (sum)"], summary.rows)


def operations_table(cases: dict):
    """Figs. 12–19: best test accuracy, onset and the window correlations per function."""
    return _md(["figure", "f", "p", "d_model", "α", "max test acc", ONSET, "read on",
                "r(MED, test loss) window", "r(W, test loss) window", "window ends at"],
               [[c.fig, c.op, c.p, c.d_model, c.train_frac, c.max_test_acc, c.grok_step, c.onset_on, c.med_r,
                 c.wnorm_r, c.window_end] for c in cases.values()])


def structured_table(summary):
    """Fig. 20: grokking onset (mirror-untrained pairs) with random and Toeplitz W_E per (α, seed)."""
    return _md(["α", "seed", "onset, random W_E", "onset, Toeplitz W_E", "ratio"], summary.rows)


def notation_table(notation: list):
    """Table 2 (App. A): the paper's notation."""
    return _md(["notation", "description"], notation)


def benchmark_table(bench):
    """Performance section: the step benchmark's rows, or the note that it was not run."""
    from IPython.display import Markdown

    return Markdown(bench if isinstance(bench, str) else md_table(list(bench[0]), [list(r.values()) for r in bench]))


def ensemble_table(ensemble: list):
    """Performance section: the K-seed ensemble's rows on a GPU, or a note."""
    from IPython.display import Markdown

    return Markdown(md_table(list(ensemble[0]), [list(r.values()) for r in ensemble]) if ensemble
                    else "*no GPU measurement on this checkout*")
