"""Figures of the grokking chapter."""

from __future__ import annotations

from companion.events import first_crossing, observed
from companion.plotting import TEST, TRAIN, paper_title, subplots


def training_curves(hist: dict, marks):
    """Fig. 1 (Power et al. 2022): accuracy and loss against step (log axis), and the weight norm;
    ``marks`` (:class:`~companion.experiments.grokking.Milestones`) places the 99% lines."""
    fig, axes = subplots(1, 3, width=4.0)
    ax = axes[0, 0]
    s = hist["step"].clip(min=1)
    ax.plot(s, hist["train_acc"], color=TRAIN, label="train")
    ax.plot(s, hist["test_acc"], color=TEST, label="test")
    for t, c in ((marks.t_train, TRAIN), (marks.t_test, TEST)):
        if observed(t):
            ax.axvline(t, color=c, ls=":", lw=1)
    ax.set(xscale="log", xlabel="step", ylabel="accuracy", ylim=(-0.02, 1.02))
    ax.legend()
    paper_title(ax, "Fig. 1", "accuracy")
    ax = axes[0, 1]
    ax.plot(s, hist["train_loss"], color=TRAIN, label="train")
    ax.plot(s, hist["test_loss"], color=TEST, label="test")
    ax.set(xscale="log", yscale="log", xlabel="step", ylabel="cross-entropy")
    paper_title(ax, "", "loss")
    ax = axes[0, 2]
    ax.plot(s, hist["weight_norm"], color="k")
    ax.set(xscale="log", xlabel="step", ylabel=r"$\|\theta\|_2$")
    paper_title(ax, "", "weight norm")
    return fig


def controls(arms: dict[str, list[dict]], threshold: float = 0.99):
    """The claims' control runs beside the run itself: train (dashed) and test (solid) accuracy and the
    weight norm against step, one colour per run (``arms``: name → its seeds' histories; the first seed is
    drawn, with the step at which its train accuracy first reaches ``threshold`` dotted)."""
    fig, axes = subplots(1, 2, width=4.6)
    colours = ("k", "tab:orange", "tab:purple", "tab:green")
    for (name, hists), c in zip(arms.items(), colours):
        h = hists[0]
        s = h["step"].clip(min=1)
        ax = axes[0, 0]
        ax.plot(s, h["test_acc"], color=c, label=name)
        ax.plot(s, h["train_acc"], color=c, ls="--", lw=1)
        t_train = first_crossing(h["step"], h["train_acc"], threshold)
        if observed(t_train):
            ax.axvline(t_train, color=c, ls=":", lw=1)
        axes[0, 1].plot(s, h["weight_norm"], color=c, label=name)
    ax = axes[0, 0]
    ax.set(xscale="log", xlabel="step", ylabel="accuracy", ylim=(-0.02, 1.02))
    ax.legend(fontsize=7)
    paper_title(ax, "", "test (solid) and train (dashed) accuracy")
    ax = axes[0, 1]
    ax.set(xscale="log", xlabel="step", ylabel=r"$\|\theta\|_2$")
    ax.legend(fontsize=7)
    paper_title(ax, "", "weight norm")
    return fig


def _fmt(v, spec: str) -> str:
    return format(v, spec) if observed(v) else "not observed"


def control_note(no_delay, no_decay) -> str:
    """What the two control runs measured, seed by seed (their per-seed
    :class:`~companion.experiments.grokking.Milestones`), in words."""
    return ("The controls, seed by seed: with 90% of the pairs for training the test accuracy at the fit was "
            + ", ".join(_fmt(v, ".3f") for v in no_delay.test_acc_at_fit) + " and the delay "
            + ", ".join(_fmt(v, ".2f") for v in no_delay.delay_ratio) + "×; without weight decay the final test "
            "accuracy was " + ", ".join(_fmt(v, ".3f") for v in no_decay.final_test_acc) + " and the norm ratio "
            + ", ".join(_fmt(v, ".2f") for v in no_decay.norm_ratio) + ".")
