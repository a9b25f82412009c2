"""Gu et al. §5, Figs. 6–7: the polygon dataset and a ResNet-18 trained on it from scratch
(:func:`companion.train.progress_measures.train_classifier`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from companion.data import polygons
from companion.events import first_crossing
from companion.models.resnet import STEMS, ResNet18, ResNet18Config
from companion.settings import one_of
from companion.store import kept
from companion.store.cache import experiment
from companion.train.precision import PRECISIONS, precision_field
from companion.train.progress_measures import ClassifierTraining, train_classifier


@dataclass(frozen=True)
class ImageRun:
    """Fig. 7 (§5): ResNet-18 at 224², all 14 641 images, 25 % train, Adam lr 1e-3, L2 1e-4, batch 200."""

    size: int = 224  # image side in pixels
    n_images: int = 14_641  # a seeded subset in reduced profiles
    train_frac: float = 0.25  # share of the images that train
    width: int = 64  # ResNet-18 channels of the first stage
    stem: str = "imagenet"  # imagenet: 7×7/2 conv + max-pool; cifar: 3×3/1 conv (small images)
    epochs: int = 20_000  # passes over the training images
    batch: int = 200  # mini-batch size
    lr: float = 1e-3  # Adam learning rate
    weight_decay: float = 1e-4  # coupled L2 (torch.optim.Adam's weight_decay)
    eval_every: int = 100  # test accuracy every this many epochs (and at epoch 1 and the last)
    faithful_quirk: bool = True  # the authors' negative radius clip (larger, rotated polygons)
    seed: int = 0  # subset, split, initialisation and shuffles
    # how a GPU runs it, none of them a setting of the paper (the paper profile's budget sets them; departures):
    stop_at: float | None = None  # stop once test accuracy has reached this...
    stop_patience: float = 0.25  # ...and a further fraction of the epochs until then has passed
    channels_last: bool = False  # channels-last memory (faster convolutions on a GPU; sums in another order)
    precision: str = precision_field()  # on a GPU: float32 | tf32 | bf16, the last two only once compared with float32

    def __post_init__(self):
        one_of("stem", self.stem, STEMS)
        one_of("precision", self.precision, PRECISIONS)


@experiment
def image_run(cfg: ImageRun, device: str = "cpu") -> dict:
    """Fig. 7: render the polygon dataset, split it (seeded), train the ResNet-18 from scratch."""
    rng = np.random.default_rng(cfg.seed)
    combos = polygons.combinations()
    if cfg.n_images < len(combos):
        combos = combos[np.sort(rng.choice(len(combos), cfg.n_images, replace=False))]
    y = torch.as_tensor(polygons.labels(combos)).to(device)
    img = torch.as_tensor(polygons.render(combos, cfg.size, cfg.faithful_quirk)).to(device)
    perm = torch.as_tensor(rng.permutation(len(y))).to(device)
    n_tr = int(round(cfg.train_frac * len(y)))
    tr, te = perm[:n_tr], perm[n_tr:]
    model = ResNet18(ResNet18Config(width=cfg.width, stem=cfg.stem, n_classes=polygons.N_CLASSES), cfg.seed).to(device)
    how = ClassifierTraining(cfg.epochs, cfg.batch, cfg.lr, cfg.weight_decay, cfg.eval_every, cfg.seed,
                             stop_at=cfg.stop_at, stop_patience=cfg.stop_patience, channels_last=cfg.channels_last,
                             precision=cfg.precision)
    hist = train_classifier(model, img[tr], y[tr], img[te], y[te], how)
    hist["n_train"], hist["n_test"] = int(n_tr), int(len(y) - n_tr)
    hist["chance"] = float(np.bincount(polygons.labels(combos)).max() / len(combos))
    return hist


@dataclass(frozen=True)
class ImageSummary:
    """Fig. 7's checks."""

    best_train_acc: float  # highest running train accuracy of an epoch
    final_gap: float  # train − test accuracy at the end
    final_test_acc: float


def image_summary(hist: dict) -> ImageSummary:
    """Fig. 7: does the ResNet fit its training set, and how far does test accuracy lag at the end?"""
    return ImageSummary(float(hist["train_acc"].max()), float(hist["train_acc"][-1] - hist["test_acc"][-1]),
                        float(hist["test_acc"][-1]))


def dataset_overview(size: int = 112, n_samples: int = 6, seed: int = 0) -> dict:
    """Fig. 6: the dictionary (top-left quadrant), a few samples, and the label statistics."""
    rng = np.random.default_rng(seed)
    combos = polygons.combinations()
    pick = combos[rng.choice(len(combos), n_samples, replace=False)]
    lab = polygons.labels(combos)
    return {"tiles": polygons.tiles(size)[0], "sides": polygons.SIDES, "samples": polygons.render(pick, size),
            "sample_labels": polygons.labels(pick), "n_images": len(combos), "n_classes": len(np.unique(lab)),
            "max_label": int(lab.max()), "largest_class": float(np.bincount(lab).max() / len(lab))}


def image_seeded(cfg: ImageRun, seeds: tuple, device: str = "cpu") -> list[dict]:
    """Fig. 7 over seeds (seed offsets from ``cfg.seed``; offset 0 is the run the figure draws);
    on a page of kept results only the kept seeds."""
    from dataclasses import replace

    out = []
    for s in seeds:
        try:
            out.append(image_run(replace(cfg, seed=cfg.seed + s), device))
        except kept.NotKept:
            if not out and s == seeds[-1]:
                raise
    return out


def image_seeds(hists: list[dict]) -> dict:
    """Fig. 7 per seed: best train accuracy, test accuracy over the second half of the run (the
    paper's plateau, 0.3–0.4, sits there), its final value, the largest-class rate, the best test
    accuracy, the jump (first evaluated epoch with test accuracy ≥ 0.95; ``NOT_OBSERVED`` if none)
    and the run's length in epochs."""
    mid = [h["test_acc"][np.asarray(h["test_epoch"]) >= h["test_epoch"][-1] / 2] for h in hists]
    return {"jump": [first_crossing(np.asarray(h["test_epoch"]), h["test_acc"], 0.95) for h in hists],
            "best_test": [float(h["test_acc"].max()) for h in hists],
            "epochs": [int(h["epoch"][-1]) for h in hists],
            "best_train": [float(h["train_acc"].max()) for h in hists],
            "plateau": [float(np.median(m)) for m in mid],
            "final_test": [float(h["test_acc"][-1]) for h in hists],
            "chance": [float(h["chance"]) for h in hists]}
