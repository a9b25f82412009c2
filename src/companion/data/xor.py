"""The data of GrokTransfer Sec. 3 and 4.1 (Xu et al. 2025): the high-dimensional XOR
distribution and the (q, k)-sparse parity. The two-layer nets trained on XOR are
:mod:`companion.models.xor_net`'s.

XOR (Sec. 3.1): x = [x_signal; x_noise] ∈ ℝ^p, x_signal ~ U({±1}²), x_noise ~ U({±ε}^{p−2}),
label y = x₁x₂. The noise block is stored as signs, so that nets trained at several ε share
one data set (each multiplies the signs by its own ε).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class XORData:
    """Signs of the two signal coordinates (n, 2) and of the p−2 noise coordinates (n, p−2)."""

    signal: torch.Tensor  # ±1, float32
    noise: torch.Tensor  # ±1, float32; the noise coordinates are ε·noise
    y: torch.Tensor  # x₁x₂ ∈ {±1}

    def to(self, device) -> "XORData":
        """The same points on ``device``."""
        return XORData(self.signal.to(device), self.noise.to(device), self.y.to(device))

    def x(self, eps: float) -> torch.Tensor:
        """The inputs x ∈ ℝ^{n×p} for one ε (materialised; only for small p)."""
        return torch.cat([self.signal, eps * self.noise], 1)


def xor_data(n: int, p: int, seed: int) -> XORData:
    """n points of the p-dimensional XOR distribution (the signs; ε is applied by the model)."""
    g = torch.Generator().manual_seed(seed)
    s = torch.randint(0, 2, (n, 2), generator=g).float() * 2 - 1
    z = torch.randint(0, 2, (n, p - 2), generator=g).float() * 2 - 1
    return XORData(s, z, s[:, 0] * s[:, 1])


def sparse_parity(q: int, k: int, n: int, seed: int):
    """(q, k)-parity (Sec. 4.1): x ~ U{±1}^q, y = Π_{i<k} x_i ∈ {±1}. Returns (x, y)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(0, 2, (n, q), generator=g).float() * 2 - 1
    return x, x[:, :k].prod(1)
