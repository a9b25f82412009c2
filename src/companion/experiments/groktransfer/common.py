"""What the GrokTransfer experiments share (Xu et al. 2025): the (init scale, lr, weight decay)
triple the paper reports per run, the weak modular model, the weak-model selection step, a
train/test split, and the per-figure events (first crossings, delays) the chapter's claims use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import torch

from companion.events import first_crossing

SELECTION_RULES = ("best", "first")


@dataclass(frozen=True)
class Hyperparams:
    """(init scale, learning rate, weight decay), the triple the paper reports per run."""

    init_scale: float  # α: PyTorch's default initialisation times α (A.3)
    lr: float  # AdamW learning rate
    weight_decay: float  # AdamW's decoupled weight decay


@dataclass(frozen=True)
class WeakModel:
    """The weak model of Figs. 1b, 6–8, 12, 15: 2-layer FNN, (d_embed, width) = (4, 16) (A.3.1).
    Its hyperparameters are not in the paper beyond "10⁴ epochs" (Sec. 4.1): (init, lr, wd) =
    (0.5, 1e-2, 0.1), chosen from a small grid (the spec proposed wd 1)."""

    op: str = "add"  # the modular task: add | mul
    p: int = 113  # the modulus
    train_frac: float = 0.25  # fraction of the p² pairs used for training
    d_embed: int = 4  # d_W, the embedding width transferred
    width: int = 16  # hidden width
    hyper: Hyperparams = Hyperparams(0.5, 1e-2, 0.1)  # [unspecified -> chosen from a small grid]
    epochs: int = 10_000  # full-batch AdamW steps
    n_seeds: int = 6  # weak seeds trained at once; selection picks one checkpoint [spec's gate]
    snapshot_every: int = 100  # epochs between saved embeddings (the candidate checkpoints)
    eval_every: int = 10  # epochs between logged accuracies
    first_threshold: float = 0.3  # the "first" rule's test accuracy (Fig. 8: "first reaches 30%")
    init_seed_offset: int = 1000  # the weak nets' init seed is seed + this (apart from the targets')
    seed: int = 0  # data split and init

    def __post_init__(self):
        from companion.settings import one_of

        one_of("operation", self.op, ("add", "mul"))


@dataclass
class Split:
    """A train/test split in the form :func:`companion.models.fnn.train_ensemble` reads."""

    train_x: torch.Tensor
    train_y: torch.Tensor
    test_x: torch.Tensor
    test_y: torch.Tensor


def select_weak(hist: dict, rule: str = "best", threshold: float = 0.3) -> dict:
    """Weak-model selection, an explicit step the paper leaves implicit.

    ``hist`` is a :func:`companion.models.fnn.train_ensemble` history with snapshots (several
    weak seeds = members). ``best``: the (member, checkpoint) with the highest test accuracy
    (the paper's "until it groks to a non-trivial performance on the validation set");
    ``first``: the first checkpoint at which some member reaches ``threshold`` test accuracy
    (Fig. 8: "when it first reaches 30%"), falling back to ``best`` if none does. Returns
    member, epoch, test/train accuracy and the embedding A (V, d_W).
    """
    from companion.settings import one_of

    one_of("selection rule", rule, SELECTION_RULES)
    idx = np.searchsorted(hist["epoch"], hist["snapshot_epoch"])
    te = hist["test_acc"][:, idx]  # (M, S)
    tr = hist["train_acc"][:, idx]
    if rule == "first" and (te >= threshold).any():
        s = int(np.nonzero((te >= threshold).any(0))[0][0])
        m = int(np.argmax(te[:, s] >= threshold))
    else:
        m, s = map(int, np.unravel_index(np.argmax(te), te.shape))
    return {"member": m, "epoch": int(hist["snapshot_epoch"][s]), "test_acc": float(te[m, s]),
            "train_acc": float(tr[m, s]), "A": hist["snapshots"][s, m], "rule": rule}


def selection_record(sel: dict | None) -> dict | None:
    """A selection without its embedding (what a result keeps of it)."""
    return None if sel is None else {k: v for k, v in sel.items() if k != "A"}


def seeded(cfg, seed: int):
    """``cfg`` with its seed (and its weak model's seed: the data split) set to ``seed``."""
    if seed == 0:
        return cfg  # the default configs carry seed 0
    changes: dict = {"seed": seed}
    if isinstance(getattr(cfg, "weak", None), WeakModel):
        changes["weak"] = replace(cfg.weak, seed=seed)
    return replace(cfg, **changes)


@dataclass(frozen=True)
class Delays:
    """First logged epochs at which train and test accuracy reach a threshold (∞ if never) and
    their ratio test/max(train, 1) (∞ if test never does)."""

    train: float
    test: float
    ratio: float


def delays(epoch, train_acc, test_acc, threshold: float = 0.9) -> Delays:
    """:class:`Delays` of one curve pair."""
    tr = first_crossing(epoch, train_acc, threshold, never=math.inf)
    te = first_crossing(epoch, test_acc, threshold, never=math.inf)
    return Delays(tr, te, te / max(tr, 1) if math.isfinite(te) else math.inf)


def time_gap(epochs, train_acc, test_acc, threshold: float = 0.95) -> float:
    """TimeGap (Sec. 4.1): first epoch test ≥ threshold minus first epoch train ≥ threshold."""
    return (first_crossing(epochs, test_acc, threshold, never=math.inf)
            - first_crossing(epochs, train_acc, threshold, never=math.inf))


def first_member_delays(batch: dict, threshold: float = 0.9) -> Delays:
    """:class:`Delays` of member 0 of a target batch (:func:`.modular.fnn_targets`)."""
    return delays(batch["epoch"], batch["train_acc"][0], batch["test_acc"][0], threshold)


@dataclass(frozen=True)
class TransferDelays:
    """Figs. 1b, 6: the 90% delays of the scratch and GrokTransfer targets, and how many times
    sooner GrokTransfer reaches 90% test (0 if it never does)."""

    scratch: Delays
    transfer: Delays
    sooner: float


def transfer_delays(transfer: dict, scratch: dict) -> TransferDelays:
    """:class:`TransferDelays` of member 0 of a transfer and a scratch target batch."""
    ds, dg = first_member_delays(scratch), first_member_delays(transfer)
    return TransferDelays(ds, dg, ds.test / dg.test if math.isfinite(dg.test) else 0.0)
