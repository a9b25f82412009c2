"""What the GrokTransfer experiments share (Xu et al. 2025): the (init scale, lr, weight decay)
triple the paper reports per run, the weak modular model, the weak-model selection step, a
train/test split, and the per-figure events (first crossings, delays) the chapter's claims use.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import torch

from companion.events import NOT_OBSERVED, first_crossing, observed, ratio
from companion.settings import one_of, unstated

SELECTION_RULES = ("best", "first", "partial", "crossing")


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
    (0.5, 3e-2, 0.1) are ours, the setting of a small probe (lr 1e-2 / 3e-2 × wd 0.1 / 0.3 / 1, p = 113,
    seed sets 0 and 1000) that brought every seed to the 30% transfer point (10 of 10 by epoch 560; at
    lr 1e-2, 4 of 5 in 1 500 epochs, one at chance). Several seeds train at once; target seed i is
    initialised from weak seed i."""

    op: str = "add"  # the modular task: add | mul
    p: int = 113  # the modulus
    train_frac: float = 0.25  # fraction of the p² pairs used for training
    d_embed: int = 4  # d_W, the embedding width transferred
    width: int = 16  # hidden width
    hyper: Hyperparams = Hyperparams(0.5, 3e-2, 0.1)  # [unspecified -> ours: see the docstring]
    epochs: int = 10_000  # full-batch AdamW steps
    n_seeds: int = 3  # weak seeds trained at once; target seed i uses weak seed i [unspecified -> ours]
    snapshot_every: int = 100  # epochs between saved embeddings (the candidate checkpoints)
    eval_every: int = 10  # epochs between logged accuracies
    first_threshold: float = 0.3  # the "first" / "crossing" rules' test accuracy (Fig. 8: "first reaches 30%")
    partial_below: float = unstated(0.9)  # the partial premise's band is [first_threshold, this)
    init_seed_offset: int = 1000  # the weak nets' init seed is seed + this (apart from the targets')
    seed: int = 0  # data split and init

    def __post_init__(self):
        one_of("operation", self.op, ("add", "mul"))


@dataclass
class Split:
    """A train/test split in the form :func:`companion.train.groktransfer.train_ensemble` reads."""

    train_x: torch.Tensor
    train_y: torch.Tensor
    test_x: torch.Tensor
    test_y: torch.Tensor


def select_weak(hist: dict, rule: str = "best", threshold: float = 0.3) -> dict:
    """Weak-model selection, an explicit step the paper leaves implicit.

    ``hist`` is a :func:`companion.train.groktransfer.train_ensemble` history with snapshots (several
    weak seeds = members). ``best``: the (member, checkpoint) with the highest test accuracy
    (the paper's "until it groks to a non-trivial performance on the validation set");
    ``first``: the first checkpoint at which some member reaches ``threshold`` test accuracy
    (Fig. 8: "when it first reaches 30%"), falling back to ``best`` if none does. Returns
    member, epoch, test/train accuracy and the embedding A (V, d_W). (The rule fixed in advance
    for every weak seed is :func:`select_partial`.)
    """
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


def select_partial(hist: dict, member: int, low: float = 0.3, high: float = 0.9) -> dict:
    """The rule fixed in advance for weak seed ``member``: its latest snapshot whose test
    accuracy is in [``low``, ``high``) — non-trivial (30%: the paper's Fig. 8 checkpoint) and
    non-optimal (below the 90% at which this chapter calls a run generalised), the paper's
    "only partially generalizes" (Sec. 2.2). A seed that never enters the band transfers its
    last snapshot (``in_band`` False says so)."""
    idx = np.searchsorted(hist["epoch"], hist["snapshot_epoch"])
    te, tr = hist["test_acc"][member, idx], hist["train_acc"][member, idx]
    hit = np.nonzero((te >= low) & (te < high))[0]
    s = int(hit[-1]) if len(hit) else len(idx) - 1
    return {"member": member, "epoch": int(hist["snapshot_epoch"][s]), "test_acc": float(te[s]),
            "train_acc": float(tr[s]), "A": hist["snapshots"][s, member], "rule": "partial",
            "in_band": bool(len(hit)), "final_test_acc": float(hist["test_acc"][member, -1])}


def select_crossing(hist: dict, member: int, threshold: float = 0.3, below: float = 0.9) -> dict:
    """The transfer point fixed in advance for weak seed ``member``: its **first** snapshot whose test
    accuracy reaches ``threshold`` — the paper's "at the point that it first reaches 30% test accuracy"
    (Sec. 4.1, Fig. 8) — so that every target starts from a weak model of the same quality, whatever
    epoch it got there. The premise "only partially generalizes" (Sec. 2.2) is met (``in_band``) when
    that snapshot exists and its accuracy is below ``below``. A seed that never reaches ``threshold``
    in its budget does not meet it: its last snapshot is returned with ``in_band`` False, and what is
    trained from it counts as not observed (:func:`transfer_delays`), never as a result of the method."""
    idx = np.searchsorted(hist["epoch"], hist["snapshot_epoch"])
    te, tr = hist["test_acc"][member, idx], hist["train_acc"][member, idx]
    hit = np.nonzero(te >= threshold)[0]
    s = int(hit[0]) if len(hit) else len(idx) - 1
    return {"member": member, "epoch": int(hist["snapshot_epoch"][s]), "test_acc": float(te[s]),
            "train_acc": float(tr[s]), "A": hist["snapshots"][s, member], "rule": "crossing",
            "in_band": bool(len(hit)) and float(te[s]) < below, "final_test_acc": float(hist["test_acc"][member, -1])}


def select(hist: dict, rule: str, n: int, low: float = 0.3, high: float = 0.9) -> list[dict]:
    """One selection per target seed 0..n-1. ``partial`` and ``crossing`` (:func:`select_partial`,
    :func:`select_crossing`): target seed i transfers from the i-th weak seed, in member order, that met the
    premise (the method starts from a weak model that partially generalises, Sec. 2.2), so a weak seed that
    missed it is passed over for the next one trained — a configuration may train more weak seeds than targets
    for that; when fewer than n met it, the last target seeds take the weak seeds that did not (``in_band``
    False: not observed). When every weak seed meets it, target seed i takes weak seed i. ``best`` / ``first``
    give every seed the one :func:`select_weak` pick."""
    if rule in ("partial", "crossing"):
        one = select_partial if rule == "partial" else select_crossing
        each = [one(hist, m, low, high) for m in range(hist["test_acc"].shape[0])]
        order = [s for s in each if s["in_band"]] + [s for s in each if not s["in_band"]]
        return [order[i % len(order)] for i in range(n)]
    return [select_weak(hist, rule, low)] * n


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
    """First logged epochs at which train and test accuracy reach a threshold and their ratio
    test/max(train, 1); each :data:`~companion.events.NOT_OBSERVED` when it did not happen."""

    train: float
    test: float
    ratio: float


def delays(epoch, train_acc, test_acc, threshold: float = 0.9) -> Delays:
    """:class:`Delays` of one curve pair."""
    tr, te = first_crossing(epoch, train_acc, threshold), first_crossing(epoch, test_acc, threshold)
    return Delays(tr, te, ratio(te, tr))


def time_gap(epochs, train_acc, test_acc, threshold: float = 0.95):
    """TimeGap (Sec. 4.1): first epoch test ≥ threshold minus first epoch train ≥ threshold
    (not observed when either never happens)."""
    return first_crossing(epochs, test_acc, threshold) - first_crossing(epochs, train_acc, threshold)


def first_member_delays(batch: dict, threshold: float = 0.9) -> Delays:
    """:class:`Delays` of member 0 of a target batch (:func:`.modular.fnn_targets`)."""
    return delays(batch["epoch"], batch["train_acc"][0], batch["test_acc"][0], threshold)


def premise_met(batch: dict) -> list[bool]:
    """Per seed of a target batch: did its weak model meet the transfer premise (its selection's
    ``in_band``; True for batches that transfer nothing)?"""
    n = len(batch.get("seed_members", [0]))
    sels = batch.get("selections") or [batch.get("selection")] * n
    return [bool((s or {}).get("in_band", True)) for s in sels]


def seed_delays(batch: dict, members=None, threshold: float = 0.9) -> list[Delays]:
    """:class:`Delays` of the given members (default: the seeds, ``batch["seed_members"]``; a seed whose
    weak model did not meet the transfer premise, :func:`premise_met`, is not observed)."""
    if members is None:
        none = Delays(NOT_OBSERVED, NOT_OBSERVED, NOT_OBSERVED)
        return [delays(batch["epoch"], batch["train_acc"][m], batch["test_acc"][m], threshold) if ok else none
                for m, ok in zip(batch.get("seed_members", [0]), premise_met(batch))]
    return [delays(batch["epoch"], batch["train_acc"][m], batch["test_acc"][m], threshold) for m in members]


def seeds_sooner(late: list, early: list) -> list:
    """Per seed, how many times sooner the ``early`` runs reached 90% test than the ``late`` ones (two lists of
    :class:`Delays` in seed order; :func:`~companion.events.ratio`, not observed unless both did)."""
    return [ratio(a.test, b.test) for a, b in zip(late, early)]


def test_at_fit(batch: dict, threshold: float = 0.9) -> list:
    """Each seed's test accuracy at the first logged epoch its train accuracy reached ``threshold`` (not
    observed if it never did): how much a run had generalised by the time it fitted — near chance when it
    memorises first (grokking), well above for the paper's "continuous progress" (Fig. 1b)."""
    out = []
    for m in batch.get("seed_members", [0]):
        hit = np.nonzero(batch["train_acc"][m] >= threshold)[0]
        out.append(float(batch["test_acc"][m, hit[0]]) if len(hit) else NOT_OBSERVED)
    return out


def seed_finals(batch: dict) -> list:
    """Each seed's final test accuracy in a target batch (its ``seed_members``)."""
    return [float(batch["test_acc"][m, -1]) for m in batch.get("seed_members", [0])]


@dataclass(frozen=True)
class TransferDelays:
    """Figs. 1b, 6: per seed, the 90% delays of the scratch and GrokTransfer targets and how
    many times sooner GrokTransfer reaches 90% test (not observed unless both arms do, within
    the same budget); the budgets; final test accuracies of the targets and their weak models."""

    scratch: list
    transfer: list
    sooner: list
    epochs: tuple  # (GrokTransfer, scratch) budgets
    transfer_final: list
    weak_test: list
    premise: list  # per seed: did its weak model meet the transfer premise (``in_band`` of its selection)?


def transfer_delays(transfer: dict, scratch: dict) -> TransferDelays:
    """:class:`TransferDelays` of the seeds of a transfer and a scratch target batch. A seed whose weak
    model did not meet the transfer premise (its selection's ``in_band`` False: e.g. it never reached the
    crossing) has GrokTransfer's delays, "sooner" and final accuracy not observed: the method was not
    applied as the paper states it."""
    ds, dg = seed_delays(scratch), seed_delays(transfer)
    gm = transfer.get("seed_members", [0])
    sels = transfer.get("selections") or [transfer["selection"]] * len(gm)
    met = premise_met(transfer)
    return TransferDelays(ds, dg, seeds_sooner(ds, dg),
                          (int(transfer["epoch"][-1]), int(scratch["epoch"][-1])),
                          [float(transfer["test_acc"][m, -1]) if ok else NOT_OBSERVED for m, ok in zip(gm, met)],
                          [s["test_acc"] for s in sels], met)


@dataclass(frozen=True)
class Outcomes:
    """Figs. 1b, 6: the seeds split by whether the GrokTransfer target reached 90% test — the
    weak models' test accuracies of each group, the final test accuracies of those that did
    not, and the weak models' of the seeds whose weak model did not meet the transfer premise
    (what the chapter's prose reports)."""

    reached_weak: list
    stalled_weak: list
    stalled_final: list
    unmet_weak: list = ()

    def describe(self, reached: str, stalled: str, joiner: str = "; ",
                 unmet: str = "weak models at {weak} never met the transfer premise (not observed)") -> str:
        """``reached``, ``stalled`` and ``unmet`` filled in for each group that has a seed (``{weak}``: its weak
        models' test accuracies; ``{final}``: the stalled targets' final test accuracies), joined by ``joiner``.
        A group without a seed is left out, so no sentence is printed about an empty list."""
        parts = []
        if self.reached_weak:
            parts.append(reached.format(weak=join_values(self.reached_weak, ".2f")))
        if self.stalled_weak:
            parts.append(stalled.format(weak=join_values(self.stalled_weak, ".2f"),
                                        final=join_values(self.stalled_final, ".3f")))
        if self.unmet_weak:
            parts.append(unmet.format(weak=join_values(self.unmet_weak, ".2f")))
        return joiner.join(parts)


def join_values(xs, spec: str = ".0f") -> str:
    """Per-seed values for prose, in seed order ("not observed" for an event that did not happen)."""
    return ", ".join(format(x, spec) if observed(x) else "not observed" for x in xs)


def seeds_count(values: list) -> str:
    """How many seeds observed their event: "every seed", "no seed" or "k of n seeds"."""
    k, n = sum(observed(v) for v in values), len(values)
    return "every seed" if k == n else ("no seed" if k == 0 else f"{k} of {n} seeds")


def outcomes(d: TransferDelays) -> Outcomes:
    """:class:`Outcomes` of a :class:`TransferDelays`."""
    hit = [observed(t.test) for t in d.transfer]
    met = d.premise
    return Outcomes([w for w, h in zip(d.weak_test, hit) if h],
                    [w for w, h, ok in zip(d.weak_test, hit, met) if ok and not h],
                    [f for f, h, ok in zip(d.transfer_final, hit, met) if ok and not h],
                    [w for w, ok in zip(d.weak_test, met) if not ok])


def surpass(d: TransferDelays) -> list:
    """Fig. 6 "surpass": per seed, the target's final test accuracy minus its weak model's (not observed
    where the weak model did not meet the transfer premise)."""
    return [t - w if observed(t) else NOT_OBSERVED for t, w in zip(d.transfer_final, d.weak_test)]


def test90_epochs(ds: list) -> list:
    """The first epoch at test 90% (``test``) of each seed's :class:`Delays`."""
    return [d.test for d in ds]


def ratios(ds: list) -> list:
    """The ``ratio`` (t_test / t_train) of each seed's :class:`Delays`."""
    return [d.ratio for d in ds]
