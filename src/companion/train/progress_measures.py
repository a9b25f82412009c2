"""The image classifier of Gu et al. (§5, Fig. 7) trained through the book's one loop
(:func:`companion.train.fit.fit`): one ``fit`` step per mini-batch update, epochs over a fresh
shuffle, BatchNorm in train mode while training, test accuracy in eval mode. (The modular
transformers of the chapter are :func:`companion.train.trainer.train` runs.)"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from companion.models.resnet import to_input
from companion.settings import one_of
from companion.train.fit import fit
from companion.train.optim import make_optimizer
from companion.train.precision import PRECISIONS, precision_field, scope


@torch.no_grad()
def accuracy(model: nn.Module, images: torch.Tensor, y: torch.Tensor, batch: int, in_channels: int,
             layout=None) -> float:
    """Accuracy in eval mode (BatchNorm running statistics), in batches; the model is left in train mode.
    ``layout(x)``: what the training feeds the model (memory format, autocast), the same here."""
    layout = layout or (lambda f, x: f(x))
    model.eval()
    correct = 0
    for i in range(0, len(y), batch):
        out = layout(model, to_input(images[i:i + batch], in_channels))
        correct += int((out.argmax(1) == y[i:i + batch]).sum())
    model.train()
    return correct / max(len(y), 1)


@dataclass(frozen=True)
class ClassifierTraining:
    """How :func:`train_classifier` trains an image classifier (Gu et al. §6.3, Fig. 7): Adam with coupled L2
    weight decay on shuffled mini-batches, test accuracy every ``eval_every`` epochs."""

    epochs: int  # passes over the training images
    batch: int  # mini-batch size
    lr: float  # Adam learning rate
    weight_decay: float  # coupled L2 (torch.optim.Adam's weight_decay)
    eval_every: int  # epochs between test evaluations (and the first and last epoch)
    seed: int  # seed of the per-epoch shuffles
    in_channels: int = 3  # image channels the model reads
    stop_at: float | None = None  # a budget: stop once test accuracy has reached this...
    stop_patience: float = 0.25  # ...and a further fraction of the epochs taken until then has passed
    channels_last: bool = False  # on a GPU: the model and its inputs in channels-last memory (faster convolutions)
    precision: str = precision_field()  # on a GPU: float32 | tf32 | bf16 (companion.train.precision)

    def __post_init__(self):
        one_of("precision", self.precision, PRECISIONS)


def train_classifier(model: nn.Module, train_img: torch.Tensor, train_y: torch.Tensor, test_img: torch.Tensor,
                     test_y: torch.Tensor, how: ClassifierTraining) -> dict:
    """Train an image classifier as Gu et al. (Fig. 7) with :func:`companion.train.fit.fit`, as ``how`` says.

    Adam with coupled L2 weight decay (``make_optimizer("adam", …)`` = ``torch.optim.Adam``, as
    the authors), cross-entropy, shuffled mini-batches of ``batch`` (a fresh permutation from a
    generator seeded with ``seed`` each epoch; one ``fit`` step per mini-batch). Returns per
    epoch (1…``epochs``) the running train accuracy and loss of the epoch (train mode, as the
    authors log them), and test accuracy (eval mode) at epoch 1, every ``eval_every``-th epoch
    and the last. On a GPU the run computes in ``how.precision`` (:func:`companion.train.precision.scope`; its
    ``float32`` is IEEE for the convolutions too, which cuDNN's default is not).
    """
    epochs, batch, lr, weight_decay = how.epochs, how.batch, how.lr, how.weight_decay
    eval_every, seed, in_channels = how.eval_every, how.seed, how.in_channels
    layout = _layout(model, how, train_y.device)
    params = list(model.parameters())
    opt = make_optimizer(params, "adam", lr, weight_decay)
    g = torch.Generator().manual_seed(seed)
    n = len(train_y)
    per_epoch = -(-n // batch)  # mini-batches (= fit steps) per epoch
    hist: dict[str, list] = {"epoch": [], "train_acc": [], "train_loss": [], "test_epoch": [], "test_acc": []}
    run = {"perm": None, "correct": 0, "loss": 0.0, "reached": None}  # the epoch's shuffle, sums, the stop rule
    model.train()

    def tests(ep: int) -> bool:
        return ep % eval_every == 0 or ep == epochs or ep == 1

    def loss(t: int) -> torch.Tensor:
        i = (t % per_epoch) * batch
        if i == 0:
            run["perm"], run["correct"], run["loss"] = torch.randperm(n, generator=g).to(train_y.device), 0, 0.0
        idx = run["perm"][i:i + batch]
        logits = layout(model, to_input(train_img[idx], in_channels))
        value = F.cross_entropy(logits.float(), train_y[idx])
        run["correct"] += int((logits.argmax(1) == train_y[idx]).sum())
        run["loss"] += float(value.detach()) * len(idx)
        return value

    def record(t: int) -> bool:
        ep = t // per_epoch
        hist["epoch"].append(ep)
        hist["train_acc"].append(run["correct"] / n)
        hist["train_loss"].append(run["loss"] / n)
        if tests(ep):
            hist["test_epoch"].append(ep)
            hist["test_acc"].append(accuracy(model, test_img, test_y, 4 * batch, in_channels, layout))
            if how.stop_at is not None and run["reached"] is None and hist["test_acc"][-1] >= how.stop_at:
                run["reached"] = ep
        return run["reached"] is not None and ep >= run["reached"] * (1 + how.stop_patience)

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

    with scope(how.precision, train_y.device):
        fit(params, opt, epochs * per_epoch, evals=range(per_epoch, epochs * per_epoch + 1, per_epoch),
            record=record, loss=loss, state=(save, load))
    return {k: np.asarray(v) for k, v in hist.items()}


def _layout(model: nn.Module, how: ClassifierTraining, device: torch.device):
    """``f(model, x)``: the forward as ``how`` asks on a GPU — channels-last memory for the model (converted here,
    once) and its inputs — or the plain call. A GPU setting that a CPU ignores (torch 2.13's channels-last
    convolution backward crashes the process on one CPU thread, the book's default). The precision, bfloat16
    autocast included, is the training's :func:`companion.train.precision.scope`, which holds the evaluations too."""
    channels_last = how.channels_last and device.type == "cuda"
    if channels_last:
        model.to(memory_format=torch.channels_last)

    def forward(m: nn.Module, x: torch.Tensor) -> torch.Tensor:
        if channels_last:
            x = x.contiguous(memory_format=torch.channels_last)
        return m(x)
    return forward
