"""Histories that training loops record: a dict of lists, appended to at each evaluation of
:func:`companion.train.fit.fit`, checkpointed with it and stacked into arrays at the end."""

from __future__ import annotations

import numpy as np

#: the usual keys of a classifier's history
HISTORY = ("step", "train_loss", "test_loss", "train_acc", "test_acc")


def stacked_history(rec: dict) -> dict:
    """A history of per-member records (lists of (B,) arrays) as arrays (B, n_evals); ``step`` (n_evals,)."""
    return {k: np.stack(v, 1) if k != "step" else np.asarray(v, float) for k, v in rec.items()}


def history_state(rec: dict):
    """``(save, load)`` of a history of lists, for :func:`companion.train.fit.fit`'s checkpoints."""
    def save() -> dict:
        return {k: list(v) for k, v in rec.items()}

    def load(s: dict) -> None:
        for k, v in s.items():
            rec[k][:] = v
    return save, load
