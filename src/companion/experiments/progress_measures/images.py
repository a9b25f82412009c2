"""Gu et al. §5, Figs. 6–7: the polygon dataset and a ResNet-18 trained on it from scratch.

:func:`train_classifier` trains the image classifier through the book's one training loop
(:func:`companion.train.fit.fit`): one ``fit`` step per mini-batch update, epochs over a fresh
shuffle, BatchNorm in train mode while training, test accuracy in eval mode.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from companion.cache import experiment
from companion.settings import one_of
from companion.data import polygons
from companion.models.resnet import STEMS, ResNet18, ResNet18Config, to_input
from companion.train.fit import fit
from companion.train.optim import make_optimizer


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

    def __post_init__(self):
        one_of("stem", self.stem, STEMS)


@torch.no_grad()
def accuracy(model: nn.Module, images: torch.Tensor, y: torch.Tensor, batch: int, in_channels: int) -> float:
    """Accuracy in eval mode (BatchNorm running statistics), in batches; the model is left in train mode."""
    model.eval()
    correct = 0
    for i in range(0, len(y), batch):
        correct += int((model(to_input(images[i:i + batch], in_channels)).argmax(1) == y[i:i + batch]).sum())
    model.train()
    return correct / max(len(y), 1)


def train_classifier(model: nn.Module, train_img: torch.Tensor, train_y: torch.Tensor, test_img: torch.Tensor,
                     test_y: torch.Tensor, epochs: int, batch: int, lr: float, weight_decay: float,
                     eval_every: int, seed: int, in_channels: int = 3) -> dict:
    """Train an image classifier as Gu et al. (Fig. 7) with :func:`companion.train.fit.fit`.

    Adam with coupled L2 weight decay (``make_optimizer("adam", …)`` = ``torch.optim.Adam``, as
    the authors), cross-entropy, shuffled mini-batches of ``batch`` (a fresh permutation from a
    generator seeded with ``seed`` each epoch; one ``fit`` step per mini-batch). Returns per
    epoch (1…``epochs``) the running train accuracy and loss of the epoch (train mode, as the
    authors log them), and test accuracy (eval mode) at epoch 1, every ``eval_every``-th epoch
    and the last.
    """
    params = list(model.parameters())
    opt = make_optimizer(params, "adam", lr, weight_decay)
    g = torch.Generator().manual_seed(seed)
    n = len(train_y)
    per_epoch = -(-n // batch)  # mini-batches (= fit steps) per epoch
    hist: dict[str, list] = {"epoch": [], "train_acc": [], "train_loss": [], "test_epoch": [], "test_acc": []}
    run = {"perm": None, "correct": 0, "loss": 0.0}  # the current epoch's shuffle and running sums
    model.train()

    def tests(ep: int) -> bool:
        return ep % eval_every == 0 or ep == epochs or ep == 1

    def loss(t: int) -> torch.Tensor:
        i = (t % per_epoch) * batch
        if i == 0:
            run["perm"], run["correct"], run["loss"] = torch.randperm(n, generator=g).to(train_y.device), 0, 0.0
        idx = run["perm"][i:i + batch]
        logits = model(to_input(train_img[idx], in_channels))
        value = F.cross_entropy(logits, train_y[idx])
        run["correct"] += int((logits.argmax(1) == train_y[idx]).sum())
        run["loss"] += float(value.detach()) * len(idx)
        return value

    def record(t: int) -> None:
        ep = t // per_epoch
        hist["epoch"].append(ep)
        hist["train_acc"].append(run["correct"] / n)
        hist["train_loss"].append(run["loss"] / n)
        if tests(ep):
            hist["test_epoch"].append(ep)
            hist["test_acc"].append(accuracy(model, test_img, test_y, 4 * batch, in_channels))

    def save() -> dict:  # BatchNorm buffers, the generator, the epoch so far and the history
        return {"buffers": [b.clone() for b in model.buffers()], "gen": g.get_state(), "run": dict(run),
                "hist": {k: list(v) for k, v in hist.items()}}

    def load(s: dict) -> None:
        with torch.no_grad():
            for b, v in zip(model.buffers(), s["buffers"]):
                b.copy_(v)
        g.set_state(s["gen"])
        run.update(s["run"])
        if run["perm"] is not None:
            run["perm"] = run["perm"].to(train_y.device)
        for k, v in s["hist"].items():
            hist[k][:] = v

    fit(params, opt, epochs * per_epoch, evals=range(per_epoch, epochs * per_epoch + 1, per_epoch),
        record=record, loss=loss, state=(save, load))
    return {k: np.asarray(v) for k, v in hist.items()}


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
    hist = train_classifier(model, img[tr], y[tr], img[te], y[te], cfg.epochs, cfg.batch, cfg.lr,
                            cfg.weight_decay, cfg.eval_every, cfg.seed)
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
