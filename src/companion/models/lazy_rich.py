"""The networks of Kumar et al. (2024) beyond the committee machine (:mod:`companion.models.committee`):

* tanh MLPs with biases, parameters stacked over runs (:func:`tanh_mlp`, :func:`tanh_mlp_params`):
  the student and teacher of App. 8.3.1 (Figs. 8, 17, 18);
* :class:`ScaledTransformer` — Fig. 6b: the book's one-layer transformer with centred logits
  scaled by α, ``α·(f(x) − f0(x))`` (composition; ``f0`` is a lookup table of the initial logits).

Their training loops (and those of the quadratic modular MLP, the linearised student and the
digits MLP) are in :mod:`companion.train.lazy_rich`.
"""

from __future__ import annotations

import math

import torch
from torch import nn

Tensor = torch.Tensor


def torch_linear_init(fan_in: int, fan_out: int, g: torch.Generator):
    """PyTorch's default ``nn.Linear`` init: U(−1/√fan_in, 1/√fan_in) for weight and bias."""
    b = 1 / math.sqrt(fan_in)
    return (torch.rand(fan_out, fan_in, generator=g) * 2 - 1) * b, (torch.rand(fan_out, generator=g) * 2 - 1) * b


def tanh_mlp_params(widths, seed: int, mult: float = 1.0) -> list[Tensor]:
    g = torch.Generator().manual_seed(seed)
    out = []
    for a, b in zip(widths[:-1], widths[1:]):
        W, bias = torch_linear_init(a, b, g)
        out += [W * mult, bias * mult]
    return out


def tanh_mlp(params: list[Tensor], x: Tensor) -> Tensor:
    """Tanh MLP with biases; params may carry a leading run axis (then ``x`` is broadcast)."""
    h = x
    L = len(params) // 2
    for i in range(L):
        W, b = params[2 * i], params[2 * i + 1]
        h = h @ W.transpose(-1, -2) + b[..., None, :]
        if i < L - 1:
            h = torch.tanh(h)
    return h


class ScaledTransformer(nn.Module):
    """``α·(f(x) − f0(x))`` for the book's transformer ``f`` (Fig. 6b: logits × α, centred at init).

    ``f0`` is stored as a table over all p² input pairs, so centring costs a lookup."""

    def __init__(self, model: nn.Module, p: int, alpha: float):
        super().__init__()
        self.model, self.p, self.alpha = model, p, alpha
        a = torch.arange(p).repeat_interleave(p)
        b = torch.arange(p).repeat(p)
        toks = torch.stack([a, b, torch.full_like(a, p)], 1)
        with torch.no_grad():
            self.register_buffer("f0", model(toks).detach())

    def forward(self, tokens: Tensor) -> Tensor:
        return self.alpha * (self.model(tokens) - self.f0[tokens[:, 0] * self.p + tokens[:, 1]])
