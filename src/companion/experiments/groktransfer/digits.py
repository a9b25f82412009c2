"""GrokTransfer Fig. 14 (Xu et al. 2025, A.4.2): MLP -> MLP on MNIST-like digits."""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch

from companion.data.digits import load_digits_dataset
from companion.experiments.groktransfer.common import Hyperparams, Split, select_weak, selection_record, time_gap
from companion.models import fnn
from companion.settings import unstated
from companion.store.cache import experiment
from companion.train.groktransfer import EnsembleTraining, train_ensemble


@dataclass(frozen=True)
class Digits:
    """Fig. 14 (A.4.2): 200 training / 400 test images; weak 2-layer MLP taken at 40% test
    accuracy; target a 4-layer MLP. Everything else is unspecified -> Omnigrok's MNIST recipe
    (Liu et al. 2023): width 200, ReLU, no bias, MSE on one-hot targets, large init scale,
    AdamW [proposal]. Data: the book's digits loader (MNIST IDX files if given, else sklearn's
    8×8 digits)."""

    n_train: int = 200  # training images
    n_test: int = 400  # test images
    weak_width: int = 8  # the weak MLP's hidden width (its first layer is the transferred A)
    weak: Hyperparams = Hyperparams(1.0, 1e-3, 1e-2)  # the weak MLP
    weak_target_acc: float = 0.4  # the weak MLP is taken when it first reaches this test accuracy
    weak_epochs: int = 5000  # at most
    width: int = 200  # the target's widths
    gt: Hyperparams = Hyperparams(4.0, 1e-3, 1e-2)  # the GrokTransfer target, at the scratch init scale
    scratch: Hyperparams = Hyperparams(4.0, 1e-3, 1e-2)  # the target from scratch (large init)
    n_seeds: int = unstated(3)  # target seeds per arm, trained at once
    epochs: int = 10_000  # the targets' full-batch AdamW steps
    eval_every: int = 20  # epochs between logged accuracies (and weak snapshots)
    weak_seed_offset: int = 1000  # the weak net's init seed is seed + this
    seed: int = 0  # data split and target init


DIGITS_PAPER = Digits()
DIGITS_CPU = replace(
    DIGITS_PAPER,
    epochs=1500,
    weak_epochs=2000,
)
DIGITS_SMOKE = replace(
    DIGITS_PAPER,
    epochs=20,
    weak_epochs=20,
    width=16,
)
DIGITS = {"paper": DIGITS_PAPER, "cpu": DIGITS_CPU, "smoke": DIGITS_SMOKE}


@experiment
def digits(cfg: Digits, device: str = "cpu") -> dict:
    """Fig. 14: the weak MLP (stopped at ``weak_target_acc``), the GrokTransfer target and the
    scratch target."""
    xtr, ytr, xte, yte, source = load_digits_dataset(cfg.n_train, cfg.n_test, cfg.seed)
    data = Split(xtr, ytr, xte, yte)
    D = xtr.shape[1]
    wspec = fnn.FNNSpec("dense", D, cfg.weak_width, (), 10, n_tokens=1, act_after_embed=True)
    weak = EnsembleTraining(cfg.weak.lr, cfg.weak.weight_decay, cfg.weak_epochs, cfg.eval_every, "mse",
                            snapshot_every=cfg.eval_every, stop_at=cfg.weak_target_acc)
    wh = train_ensemble(fnn.init_params(wspec, [cfg.weak.init_scale], cfg.seed + cfg.weak_seed_offset), wspec,
                        data, weak, device=device)
    sel = select_weak(wh, "first", cfg.weak_target_acc)
    wh.pop("params")
    out = {"weak": wh, "selection": selection_record(sel), "source": source}
    for name, h, lowrank in (("gt", cfg.gt, True), ("scratch", cfg.scratch, False)):
        spec = fnn.FNNSpec("dense_lowrank" if lowrank else "dense", D, cfg.width, (cfg.width, cfg.width), 10,
                           n_tokens=1, rank=cfg.weak_width, act_after_embed=True)
        A = torch.as_tensor(sel["A"]).unsqueeze(0) if lowrank else None
        A = A.expand(cfg.n_seeds, -1, -1) if lowrank else None
        r = train_ensemble(fnn.init_params(spec, [h.init_scale] * cfg.n_seeds, cfg.seed, A=A), spec, data,
                           EnsembleTraining(h.lr, h.weight_decay, cfg.epochs, cfg.eval_every, "mse"), device=device)
        r.pop("params")
        out[name] = {**r, "seed_members": list(range(cfg.n_seeds)), "init_scale": h.init_scale}
    return out


@dataclass(frozen=True)
class DigitsGaps:
    """Fig. 14, per seed: epochs from 80% train to 80% test accuracy for each target (not
    observed when either never happens within the run), and how much shorter GrokTransfer's
    is (not observed unless both are)."""

    transfer: list
    scratch: list
    advantage: list


def digits_gaps(res: dict, threshold: float = 0.8) -> DigitsGaps:
    """:class:`DigitsGaps` of a :func:`digits` result."""
    def gaps(r):
        return [time_gap(r["epoch"], r["train_acc"][m], r["test_acc"][m], threshold) for m in range(len(r["test_acc"]))]
    gt, sc = gaps(res["gt"]), gaps(res["scratch"])
    return DigitsGaps(gt, sc, [s - g for s, g in zip(sc, gt)])
