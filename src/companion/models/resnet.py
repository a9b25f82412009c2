"""ResNet-18 (He et al. 2016) written out in the library, and the training loop of Gu et al.'s
image experiment (§5, Fig. 7).

torchvision is not a dependency of the book, and no pretrained weights can be downloaded, so the
network is defined here and always **trained from scratch** (the authors' code starts from
ImageNet weights, which their paper does not mention). ``ResNet18Config`` holds the architecture:
``width=64, stem="imagenet"`` is torchvision's resnet18 (7×7/2 conv + 3×3/2 max-pool, BasicBlocks
[2, 2, 2, 2] with widths 64-128-256-512, global average pool, one linear layer); the reduced
profiles narrow it and use a 3×3 stem for small images.

:func:`train_classifier` is a mini-batch loop the shared :func:`companion.train.train` does not
cover: epochs over a fresh shuffle, BatchNorm in train mode, test evaluation in batches in eval
mode every ``eval_every`` epochs, and the running train accuracy of the epoch as the authors log it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from companion import slices


@dataclass(frozen=True)
class ResNet18Config:
    width: int = 64  # channels of the first stage (doubled per stage)
    stem: str = "imagenet"  # imagenet: 7×7/2 conv + max-pool; cifar: 3×3/1 conv
    in_channels: int = 3
    n_classes: int = 52


class BasicBlock(nn.Module):
    def __init__(self, c_in: int, c_out: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.down = None
        if stride != 1 or c_in != c_out:
            self.down = nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False), nn.BatchNorm2d(c_out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + (x if self.down is None else self.down(x)))


class ResNet18(nn.Module):
    """BasicBlock ResNet with stages [2, 2, 2, 2]; He (fan-out) init for convs as torchvision."""

    def __init__(self, cfg: ResNet18Config, seed: int = 0):
        super().__init__()
        w = cfg.width
        if cfg.stem == "imagenet":
            self.stem = nn.Sequential(nn.Conv2d(cfg.in_channels, w, 7, 2, 3, bias=False), nn.BatchNorm2d(w),
                                      nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        elif cfg.stem == "cifar":
            self.stem = nn.Sequential(nn.Conv2d(cfg.in_channels, w, 3, 1, 1, bias=False), nn.BatchNorm2d(w), nn.ReLU())
        else:
            raise ValueError(f"unknown stem {cfg.stem!r}; valid stems: imagenet, cifar")
        layers, c = [], w
        for i, c_out in enumerate((w, 2 * w, 4 * w, 8 * w)):
            layers += [BasicBlock(c, c_out, 1 if i == 0 else 2), BasicBlock(c_out, c_out, 1)]
            c = c_out
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(c, cfg.n_classes)
        g = torch.Generator().manual_seed(seed)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                fan_out = m.out_channels * m.kernel_size[0] * m.kernel_size[1]
                with torch.no_grad():
                    m.weight.copy_(torch.randn(m.weight.shape, generator=g) * (2 / fan_out) ** 0.5)
            elif isinstance(m, nn.Linear):
                bound = 1 / m.in_features ** 0.5
                with torch.no_grad():
                    m.weight.copy_((torch.rand(m.weight.shape, generator=g) * 2 - 1) * bound)
                    m.bias.copy_((torch.rand(m.bias.shape, generator=g) * 2 - 1) * bound)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.layers(self.stem(x))
        return self.fc(x.mean((2, 3)))


def to_input(images_u8: torch.Tensor, in_channels: int = 3) -> torch.Tensor:
    """uint8 (n, H, W) grey images → float (n, C, H, W), scaled to [0, 1] and centred on 0.5."""
    x = images_u8.float().div(255).sub(0.5).div(0.5).unsqueeze(1)
    return x.expand(-1, in_channels, -1, -1)


@torch.no_grad()
def accuracy(model: nn.Module, images: torch.Tensor, y: torch.Tensor, batch: int, in_channels: int) -> float:
    model.eval()
    correct = 0
    for i in range(0, len(y), batch):
        correct += int((model(to_input(images[i:i + batch], in_channels)).argmax(1) == y[i:i + batch]).sum())
    model.train()
    return correct / max(len(y), 1)


def train_classifier(model: nn.Module, train_img: torch.Tensor, train_y: torch.Tensor, test_img: torch.Tensor,
                     test_y: torch.Tensor, epochs: int, batch: int, lr: float, weight_decay: float,
                     eval_every: int, seed: int, in_channels: int = 3) -> dict:
    """Adam with coupled L2 weight decay (``torch.optim.Adam(weight_decay=…)``, as the authors),
    cross-entropy, shuffled mini-batches. Returns per-epoch running train accuracy and loss, and
    test accuracy (eval mode) at epochs 0, ``eval_every``, 2·``eval_every``, … and the last."""
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    g = torch.Generator().manual_seed(seed)
    n = len(train_y)
    hist = {"epoch": [], "train_acc": [], "train_loss": [], "test_epoch": [], "test_acc": []}
    model.train()

    def save() -> dict:
        return {"model": model.state_dict(), "opt": opt.state_dict(), "gen": g.get_state(),
                "hist": {k: list(v) for k, v in hist.items()}}

    def load(s: dict) -> None:
        model.load_state_dict(s["model"])
        opt.load_state_dict(s["opt"])
        g.set_state(s["gen"])
        for k, v in s["hist"].items():
            hist[k][:] = v

    evals = lambda ep: ep % eval_every == 0 or ep == epochs or ep == 1  # noqa: E731
    for ep in slices.steps(epochs + 1, 1, evals=evals, save=save, load=load):
        perm = torch.randperm(n, generator=g).to(train_y.device)
        correct, total_loss = 0, 0.0
        for i in range(0, n, batch):
            idx = perm[i:i + batch]
            logits = model(to_input(train_img[idx], in_channels))
            loss = F.cross_entropy(logits, train_y[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            correct += int((logits.argmax(1) == train_y[idx]).sum())
            total_loss += float(loss.detach()) * len(idx)
        hist["epoch"].append(ep)
        hist["train_acc"].append(correct / n)
        hist["train_loss"].append(total_loss / n)
        if evals(ep):
            hist["test_epoch"].append(ep)
            hist["test_acc"].append(accuracy(model, test_img, test_y, 4 * batch, in_channels))
    return {k: np.asarray(v) for k, v in hist.items()}
