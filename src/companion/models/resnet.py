"""ResNet-18 (He et al. 2016) written out in the library, for Gu et al.'s image experiment
(§5, Fig. 7).

torchvision is not a dependency of the book, and no pretrained weights can be downloaded, so the
network is defined here and always **trained from scratch** (the authors' code starts from
ImageNet weights, which their paper does not mention). ``ResNet18Config`` holds the architecture:
``width=64, stem="imagenet"`` is torchvision's resnet18 (7×7/2 conv + 3×3/2 max-pool, BasicBlocks
[2, 2, 2, 2] with widths 64-128-256-512, global average pool, one linear layer); the reduced
profiles narrow it and use a 3×3 stem for small images.

It is trained by :func:`companion.train.progress_measures.train_classifier` (on
:func:`companion.train.fit.fit`).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from companion.settings import one_of

STEMS = ("imagenet", "cifar")


@dataclass(frozen=True)
class ResNet18Config:
    """The architecture; the defaults are torchvision's resnet18 with Gu et al.'s 52 outputs."""

    width: int = 64  # channels of the first stage (doubled per stage)
    stem: str = "imagenet"  # imagenet: 7×7/2 conv + max-pool; cifar: 3×3/1 conv
    in_channels: int = 3  # input channels (grey images are repeated to 3, as the authors' RGB JPEGs)
    n_classes: int = 52  # the authors' output layer (labels 0…48)

    def __post_init__(self):
        one_of("stem", self.stem, STEMS)


class BasicBlock(nn.Module):
    """Two 3×3 conv-BN layers with a residual connection (a 1×1 conv-BN where the shape changes)."""

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
        else:  # cifar
            self.stem = nn.Sequential(nn.Conv2d(cfg.in_channels, w, 3, 1, 1, bias=False), nn.BatchNorm2d(w), nn.ReLU())
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
