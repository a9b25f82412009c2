"""Figures of the grokking chapter."""

from __future__ import annotations

from companion.events import observed
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
