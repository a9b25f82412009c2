"""GrokTransfer's transformer target (Xu et al. 2025, Sec. 2.2 and A.3.3): the book's
:class:`companion.models.transformer.Transformer` with its token embedding replaced by the
low-rank product E_T = A·B, and the paper's init-scale convention."""

from __future__ import annotations

import math

import torch

from companion.models.fnn import uniform


def scale_init(model: torch.nn.Module, alpha: float) -> torch.nn.Module:
    """The init-scale convention of A.3 (Liu et al. 2023): every parameter times α."""
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(alpha)
    return model


class LowRankEmbedding(torch.nn.Module):
    """A transformer whose token embedding is E_T = A·B (Sec. 2.2), both factors trained.

    Wraps the book's :class:`companion.models.transformer.Transformer` (composition: its blocks, positional
    embedding and unembedding are used as they are; its own ``W_E`` is dropped). A (V, r) is the
    weak model's embedding of the p numbers; the ``=`` token, which the FNN never saw, gets a
    random row with the same RMS as A. B ~ U(±1/√r)·α.
    """

    def __init__(self, base, A: torch.Tensor, alpha: float, seed: int):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        V, r = base.W_E.shape[0], A.shape[1]
        extra = torch.randn(V - A.shape[0], r, generator=g) * A.pow(2).mean().sqrt()
        del base._parameters["W_E"]
        self.base = base
        self.A = torch.nn.Parameter(torch.cat([A.float(), extra]))
        self.B = torch.nn.Parameter(uniform(g, (r, base.cfg.d_model), 1 / math.sqrt(r)) * alpha)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        b = self.base
        x = (self.A @ self.B)[tokens] + b.W_pos[: tokens.shape[1]]
        for i, block in enumerate(b.blocks):
            x = block(x, last_only=i == len(b.blocks) - 1)
        return x[:, -1] @ b.W_U
