"""Figures and tables of the GrokTransfer chapter (Xu et al. 2025). Each takes experiment
results (plain dicts) or their summaries (:mod:`companion.experiments.groktransfer`) and returns
a Figure or a Markdown table/note; nothing is computed here beyond slicing and PCA for display."""

from __future__ import annotations

import numpy as np

from companion.figures.groktransfer_tables import (  # noqa: F401  (the chapter's tables and notes)
    ablations_note,
    acceleration_note,
    delays_note,
    digits_note,
    embedding_notes,
    fig7_table,
    fig8_note,
    flops_note,
    grid_table,
    neurons_note,
    one_step_note,
    parity_note,
    parity_transformer_note,
    ratio_table,
    selection_table,
    table1,
    two_neuron_note,
)
from companion.plotting import TEST, TRAIN, paper_title, subplots, sweep_colors

SCRATCH_C, GT_C, GF_C, RND_C = "#1f77b4", "#d62728", "#2ca02c", "#7f7f7f"
#: legend labels of the transformer runs, by role
TF_LABELS = {"transfer": "GrokTransfer", "scratch": "from scratch", "grokfast": "GrokFast", "random": "random A·B"}


def _curve(ax, x, train, test, color, label, logx=True):
    x = np.maximum(np.asarray(x), 1) if logx else np.asarray(x)
    ax.plot(x, train, ls="--", color=color, lw=1.2, alpha=0.8)
    ax.plot(x, test, ls="-", color=color, lw=1.6, label=label)
    if logx:
        ax.set_xscale("log")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("epoch")
    ax.set_ylabel("accuracy (dashed train, solid test)")


def fig1a():
    """Paper Fig. 1a: the GrokTransfer pipeline (Sec. 2.2), drawn."""
    fig, axs = subplots(1, 1, width=9, height=2.8)
    ax = axs[0, 0]
    ax.axis("off")
    boxes = [(0.02, "weak model $f_W$\n(small FNN, $d_W$=4)\ntrained until it groks\npartially"),
             (0.27, "its embedding\n$E_W\\in\\mathbb{R}^{V\\times d_W}$\n(selected checkpoint)"),
             (0.52, "target embedding\n$E_T = A\\cdot B$\n$A \\leftarrow E_W$, $B$ random\nboth trained"),
             (0.77, "target model $f_T$\n(large FNN or\ntransformer)\ntrained as usual")]
    for x, text in boxes:
        ax.text(x + 0.1, 0.5, text, ha="center", va="center", fontsize=9,
                bbox=dict(boxstyle="round,pad=0.6", fc="#f3f3f3", ec="#555"))
    for x in (0.225, 0.475, 0.725):
        ax.annotate("", xy=(x + 0.035, 0.5), xytext=(x - 0.015, 0.5),
                    arrowprops=dict(arrowstyle="->", lw=1.5))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    paper_title(ax, "Fig. 1a", "GrokTransfer: weak model → embedding → target")
    return fig


def fig1b(gt: dict, sc: dict, ref="Fig. 1b", title="modular addition", control: dict | None = None):
    """Paper Fig. 1b: GrokTransfer vs scratch target curves, every seed (seed 0 bold), and the random-A·B
    control when given (grey)."""
    fig, axs = subplots(1, 1, width=6.5, height=3.8)
    ax = axs[0, 0]
    arms = [(sc, SCRATCH_C, "from scratch"), (gt, GT_C, "GrokTransfer")]
    arms += [(control, RND_C, "random A·B (control)")] if control is not None else []
    for batch, color, label in arms:
        for k, m in enumerate(batch.get("seed_members", [0])):
            x = np.maximum(batch["epoch"], 1)
            ax.plot(x, batch["train_acc"][m], ls="--", color=color, lw=0.8 if k else 1.2, alpha=0.5 if k else 0.8)
            ax.plot(x, batch["test_acc"][m], ls="-", color=color, lw=0.8 if k else 1.8, alpha=0.5 if k else 1.0,
                    label=None if k else f"{label} ({len(batch.get('seed_members', [0]))} seeds)")
    ax.set_xscale("log")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("epoch")
    ax.set_ylabel("accuracy (dashed train, solid test)")
    ax.legend(fontsize=7, loc="upper left")
    paper_title(ax, ref, title)
    return fig


def fig2(res: dict, ref="Fig. 2"):
    """Paper Fig. 2: accuracy curves on the four fixed embeddings (a skipped one says why)."""
    kinds = list(res)
    fig, axs = subplots(1, len(kinds), width=3.4, height=3.0)
    for ax, k in zip(axs[0], kinds):
        r = res[k]
        if "skipped" in r:
            ax.axis("off")
            ax.text(0.5, 0.5, "text embedding\n" + r["skipped"].replace("; ", ";\n"), ha="center", va="center",
                    fontsize=7, wrap=True)
        else:
            _curve(ax, r["epoch"], r["train_acc"], r["test_acc"], TEST, k)
        paper_title(ax, ref if k == kinds[0] else "", k)
    return fig


def fig3(res: dict):
    """Paper Fig. 3: pNTK kernel distance from initialisation, one curve per fixed embedding."""
    fig, axs = subplots(1, 1, width=5.5, height=3.5)
    ax = axs[0, 0]
    for (k, r), c in zip(((k, r) for k, r in res.items() if "skipped" not in r), sweep_colors(4, "tab10")):
        ax.plot(np.maximum(r["measure_epoch"], 1), r["measure"], marker="o", ms=3, color=c, label=k)
    ax.set_xscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel("pNTK kernel distance from init")
    ax.legend()
    paper_title(ax, "Fig. 3", "change of the empirical NTK")
    return fig


def _lin(ax, r, t="target"):
    ax.plot(r["step"], r["train_acc"], color=TRAIN, label="train")
    ax.plot(r["step"], r["test_acc"], color=TEST, label="test")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("GD step")
    ax.set_ylabel("accuracy")
    ax.legend()


def fig4(wide: dict, weak: dict):
    """Paper Fig. 4: (a) the wide XOR net, (b) the 3-neuron weak net, (c) its neurons."""
    fig, axs = subplots(1, 3, width=4.0, height=3.3)
    _lin(axs[0, 0], wide)
    paper_title(axs[0, 0], "Fig. 4a", "wide net from scratch")
    _lin(axs[0, 1], weak)
    axs[0, 1].axhline(0.75, color="k", ls=":", lw=1)
    paper_title(axs[0, 1], "Fig. 4b", "3-neuron weak model")
    ax = axs[0, 2]
    s = weak["features"]["signal"]
    for j, (a, b) in enumerate(s):
        ax.annotate("", xy=(a, b), xytext=(0, 0), arrowprops=dict(arrowstyle="->", color=f"C{j}", lw=2))
        ax.text(a, b, f" neuron {j + 1}\n noise |w|≈{weak['features']['noise_mean_abs'][j]:.1e}", fontsize=7)
    m = np.abs(s).max() * 1.5
    ax.set_xlim(-m, m)
    ax.set_ylim(-m, m)
    ax.axhline(0, color="k", lw=0.5)
    ax.axvline(0, color="k", lw=0.5)
    ax.set_xlabel("$w_{j,1}$")
    ax.set_ylabel("$w_{j,2}$")
    paper_title(ax, "Fig. 4c", "weak neurons (signal coords)")
    return fig


def fig5(weak: dict, rows: list, slopes: dict):
    """Paper Fig. 5: (a) Uᵀx of test points, (b, c) r_W against p and n (nets that learned)."""
    fig, axs = subplots(1, 3, width=4.0, height=3.6)
    ax_p, ax_n = axs[0, 1], axs[0, 2]
    axs[0, 0].remove()
    ax = fig.add_subplot(1, 3, 1, projection="3d")
    t = weak["target"]
    z, sig = t["z_test"], t["signal_test"]
    for (a, b), c in zip([(1, 1), (-1, -1), (1, -1), (-1, 1)], ["C0", "C0", "C3", "C3"]):
        k = (sig[:, 0] == a) & (sig[:, 1] == b)
        ax.scatter(z[k, 0], z[k, 1], z[k, 2], s=3, color=c, marker="o" if a * b > 0 else "^",
                   label=f"[{a:+d},{b:+d}] y={a * b:+d}")
    ax.legend(fontsize=6)
    paper_title(ax, "Fig. 5a", "$U^T x$")
    for ax, sweep, xname in ((ax_p, "p", "p"), (ax_n, "n", "n")):
        sub = [r for r in rows if r["sweep"] == sweep]
        for e, c in zip(sorted({r["eps"] for r in sub}, reverse=True), sweep_colors(3)):
            rr = [r for r in sub if r["eps"] == e and r.get("learned", 1) > 0]
            ax.loglog([r[xname] for r in rr], [r["r_W"] for r in rr], "o-", color=c,
                      label=f"ε=1/{round(1 / e)} (slope {slopes[(sweep, e)]:+.2f})")
        ax.set_xlabel(xname)
        ax.set_ylabel("$r_W$")
        ax.legend(fontsize=7)
        paper_title(ax, "Fig. 5b" if sweep == "p" else "Fig. 5c", f"$r_W$ vs {xname}")
    return fig


def fig6(weaks: list, gts: list, scs: list, titles: list, sels: list):
    """Paper Fig. 6: per task, the weak model (transferred checkpoint dotted) and the targets."""
    fig, axs = subplots(2, 3, width=4.0, height=3.2)
    for j, (w, gt, sc, t, sel) in enumerate(zip(weaks, gts, scs, titles, sels)):
        m = sel["member"]
        _curve(axs[0, j], w["epoch"], w["train_acc"][m], w["test_acc"][m], TEST, "weak model")
        axs[0, j].axvline(max(sel["epoch"], 1), color="k", ls=":", lw=1)
        paper_title(axs[0, j], f"Fig. 6{'abc'[j]}" if j == 0 else "", f"{t}: weak model")
        _curve(axs[1, j], sc["epoch"], sc["train_acc"][0], sc["test_acc"][0], SCRATCH_C, "from scratch")
        _curve(axs[1, j], gt["epoch"], gt["train_acc"][0], gt["test_acc"][0], GT_C, "GrokTransfer")
        axs[1, j].legend(fontsize=7)
        unmet = sel.get("in_band", True) is False  # the weak model never reached its transfer point
        paper_title(axs[1, j], "", f"{t}: target" + (" (weak premise not met: not a result)" if unmet else ""))
    return fig


def fig7(sweep):
    """Paper Fig. 7: weak checkpoint's test accuracy, the target's final one and 1/TimeGap."""
    fig, axs = subplots(1, 1, width=6, height=3.6)
    ax = axs[0, 0]
    seeds = sorted({r.seed for r in sweep.rows})
    for s, c in zip(seeds, sweep_colors(len(seeds))):
        rr = [r for r in sweep.rows if r.seed == s]
        ax.plot([r.weak_test for r in rr], [r.target_final_test for r in rr], "o-", color=c, label=f"weak seed {s}")
    ax.plot([0, 1], [0, 1], ls=":", color="k", lw=0.8, label="target = weak")
    ax.set_xlabel("weak checkpoint's test accuracy")
    ax.set_ylabel("target's final test accuracy")
    ax.legend(loc="upper left", fontsize=7)
    if any(r.inv_gap > 0 for r in sweep.rows):
        ax2 = ax.twinx()
        ax2.plot([r.weak_test for r in sweep.rows], [r.inv_gap for r in sweep.rows], "^", color="k", ms=4,
                 label="1/TimeGap")
        ax2.set_ylabel("1 / TimeGap")
        ax2.legend(loc="lower right", fontsize=7)
    else:  # an axis of zeros says nothing: say it in words
        ax.text(0.98, 0.03, "no target reached 95% test in its budget:\n1/TimeGap = 0 for every point",
                transform=ax.transAxes, ha="right", va="bottom", fontsize=7)
    paper_title(ax, "Fig. 7", "weak checkpoint vs target")
    return fig


def _thin(ax, run: dict, color) -> None:
    """A seed other than the first of a transformer run, drawn thin beside it (``step``, ``train_acc``,
    ``test_acc``)."""
    x = np.maximum(np.asarray(run["step"]), 1)
    ax.plot(x, run["test_acc"], color=color, lw=0.7, alpha=0.45)
    ax.plot(x, run["train_acc"], color=color, lw=0.6, alpha=0.35, ls="--")


def tf_panel(ax, runs: dict, labels: dict, ref: str, title: str):
    """Paper Figs. 8, 13, 16: one panel of transformer runs, by role."""
    colors = {"transfer": GT_C, "scratch": SCRATCH_C, "grokfast": GF_C, "random": RND_C}
    for k, r in runs.items():
        _curve(ax, r["step"], r["train_acc"], r["test_acc"], colors[k], labels.get(k, k) + (
            f" ({len(r['seeds'])} seeds)" if len(r.get("seeds", [])) > 1 else ""))
        for other in r.get("seeds", [])[1:]:  # the other seeds thin: one seed's swings are not the run's shape
            _thin(ax, other, colors[k])
    ax.legend(fontsize=7)
    paper_title(ax, ref, title)


def two_panels(width=5.0, height=3.5):
    """A figure with two panels side by side (Figs. 8, 13, 16)."""
    fig, axs = subplots(1, 2, width=width, height=height)
    return fig, axs[0]


def fig9_10_11(weak: dict, ms: tuple):
    """Paper Figs. 9–11: target f_L dynamics for the weak nets with the given neuron counts."""
    fig, axs = subplots(1, len(ms), width=4.0, height=3.2)
    for ax, m in zip(axs[0], ms):
        _lin(ax, weak[m]["target"])
        paper_title(ax, "", f"target on the {m}-neuron embedding")
    return fig


def fig10(weak1: dict):
    """Paper Fig. 10: the 1-neuron weak net, its neuron, and the target on its 1-D embedding."""
    fig, axs = subplots(1, 3, width=3.8, height=3.2)
    _lin(axs[0, 0], weak1)
    paper_title(axs[0, 0], "Fig. 10", "1-neuron weak model")
    s = weak1["features"]["signal"][0]
    axs[0, 1].bar(["$w_1$", "$w_2$", "mean |noise|"], [s[0], s[1], weak1["features"]["noise_mean_abs"][0]])
    paper_title(axs[0, 1], "", "its neuron")
    _lin(axs[0, 2], weak1["target"])
    paper_title(axs[0, 2], "", "target on its 1-D embedding")
    return fig


def fig11(weak1: dict, weak2: dict):
    """Paper Fig. 11: test data under the 1- and 2-neuron embeddings, and the 2-neuron target."""
    fig, axs = subplots(1, 3, width=3.8, height=3.2)
    for ax, w, d in ((axs[0, 0], weak1, 1), (axs[0, 1], weak2, 2)):
        t = w["target"]
        z, y = t["z_test"], t["y_test"]
        zz = z[:, 0] if d == 1 else z
        for lab, c in ((1, "C0"), (-1, "C3")):
            k = y == lab
            if d == 1:  # a histogram per class on one axis: no vertical offset that would look like a separation
                ax.hist(zz[k], bins=40, histtype="step", color=c, lw=1.4, label=f"y={lab:+d}")
                ax.axvline(0, color="k", ls=":", lw=0.8)
                ax.set_xlabel("z = uᵀx")
                ax.set_ylabel("test points")
            else:
                ax.scatter(zz[k, 0], zz[k, 1], s=3, color=c, label=f"y={lab:+d}")
        ax.legend(fontsize=7)
        paper_title(ax, "Fig. 11" if d == 1 else "", f"data under the {d}-neuron embedding")
    _lin(axs[0, 2], weak2["target"])
    paper_title(axs[0, 2], "", "target on the 2-neuron embedding")
    return fig


def fig12(A: np.ndarray):
    """Paper Fig. 12: PCA of the weak model's 4-D embedding, points labelled by the integer."""
    Ac = A - A.mean(0)
    u, s, vt = np.linalg.svd(Ac, full_matrices=False)
    z = Ac @ vt[:2].T
    fig, axs = subplots(1, 1, width=5, height=4.6)
    ax = axs[0, 0]
    sc = ax.scatter(z[:, 0], z[:, 1], c=np.arange(len(A)), cmap="twilight", s=14)
    for a in range(0, len(A), 8):
        ax.annotate(str(a), z[a], fontsize=6)
    fig.colorbar(sc, ax=ax, label="integer a")
    ax.set_xlabel("PC 1")
    ax.set_ylabel("PC 2")
    paper_title(ax, "Fig. 12", "weak model's 4-D embedding, PCA")
    return fig


def fig14(res: dict):
    """Paper Fig. 14: the weak digits MLP and the GrokTransfer / scratch targets."""
    fig, axs = subplots(1, 2, width=4.5, height=3.4)
    _curve(axs[0, 0], res["weak"]["epoch"], res["weak"]["train_acc"][0], res["weak"]["test_acc"][0], TEST, "weak")
    paper_title(axs[0, 0], "Fig. 14", "weak 2-layer MLP")
    _curve(axs[0, 1], res["scratch"]["epoch"], res["scratch"]["train_acc"][0], res["scratch"]["test_acc"][0],
           SCRATCH_C, "from scratch")
    _curve(axs[0, 1], res["gt"]["epoch"], res["gt"]["train_acc"][0], res["gt"]["test_acc"][0], GT_C, "GrokTransfer")
    axs[0, 1].legend(fontsize=7)
    paper_title(axs[0, 1], "", "4-layer MLP target")
    return fig


def fig15(rnd_fnn: dict, rnd_tf: dict, merge: dict, same: dict, sc: dict, merge_at: int):
    """Paper Fig. 15: (a) random A·B, (b) A·B merged into E_T, (c) weak d_embed = target's."""
    fig, axs = subplots(1, 3, width=4.0, height=3.3)
    _curve(axs[0, 0], rnd_fnn["epoch"], rnd_fnn["train_acc"][0], rnd_fnn["test_acc"][0], RND_C, "MLP, random A·B")
    _curve(axs[0, 0], rnd_tf["step"], rnd_tf["train_acc"], rnd_tf["test_acc"], "#8c564b", "TF, random A·B")
    axs[0, 0].legend(fontsize=7)
    paper_title(axs[0, 0], "Fig. 15a", "random low-rank embedding")
    _curve(axs[0, 1], merge["epoch"], merge["train_acc"][0], merge["test_acc"][0], GT_C, "merged")
    axs[0, 1].axvline(merge_at, color="k", ls=":", lw=1)
    paper_title(axs[0, 1], "Fig. 15b", f"A·B merged into $E_T$ at epoch {merge_at}")
    _curve(axs[0, 2], same["epoch"], same["train_acc"][0], same["test_acc"][0], GT_C, "GrokTransfer, $d_W=d_T$")
    _curve(axs[0, 2], sc["epoch"], sc["train_acc"][0], sc["test_acc"][0], SCRATCH_C, "from scratch")
    axs[0, 2].legend(fontsize=7)
    budgets = f"{int(same['epoch'][-1])} vs {int(sc['epoch'][-1])} epochs"  # panel (c)'s targets may run shorter
    paper_title(axs[0, 2], "Fig. 15c", f"weak $d_{{embed}}$ = target's ({budgets})")
    return fig


def fig8(runs_8a: dict, runs_8b: dict):
    """Paper Fig. 8: (a) GrokTransfer vs scratch, (b) GrokTransfer vs GrokFast (random A·B left out)."""
    fig, axs = two_panels()
    tf_panel(axs[0], runs_8a, TF_LABELS, "Fig. 8a", "GrokTransfer vs scratch")
    tf_panel(axs[1], {k: v for k, v in runs_8b.items() if k != "random"}, TF_LABELS, "Fig. 8b",
             "GrokTransfer vs GrokFast")
    return fig


def fig9(weak: dict):
    """Paper Fig. 9: the target f_L on the 3-neuron embedding."""
    fig = fig9_10_11(weak, (3,))
    fig.axes[0].set_title("Paper Fig. 9 — target $f_L$ on the 3-neuron embedding")
    return fig


def fig13(runs_mul: dict, parity: list, task: str = "parity"):
    """Paper Fig. 13: (left) transformers on multiplication, (right) transformers on ``task`` (the parity, e.g.
    "(20, 3)-parity"), one :func:`~companion.experiments.groktransfer.transformers.tf_parity` result per seed:
    seed 0 drawn full, the others thin."""
    fig, axs = two_panels()
    tf_panel(axs[0], runs_mul, TF_LABELS, "Fig. 13 left", "multiplication")
    for L, c in zip(parity[0], ("#1f77b4", "#ff7f0e")):
        _curve(axs[1], parity[0][L]["step"], parity[0][L]["train_acc"], parity[0][L]["test_acc"], c,
               f"{L}-layer TF" + (f" ({len(parity)} seeds)" if len(parity) > 1 else ""))
        for other in parity[1:]:
            _thin(axs[1], other[L], c)
    axs[1].legend(fontsize=7)
    axs[1].set_title(f"Paper Fig. 13 right — {task}, from scratch")
    return fig


def fig16(runs_mul: dict):
    """Paper Fig. 16: GrokTransfer vs GrokFast on multiplication."""
    fig, axs = two_panels()
    tf_panel(axs[0], runs_mul, TF_LABELS, "Fig. 16", "multiplication: GrokTransfer vs GrokFast")
    axs[1].axis("off")
    return fig
