"""The decoder-only transformer of the modular-arithmetic chapters.

:class:`Transformer` is the decoder-only transformer of Nanda et al. (2023, §3 and App. A;
their ``transformers.py``): learned token and position embeddings, ``n_layers`` blocks of
multi-head attention then a ReLU MLP, no LayerNorm, no attention biases, the output read at the
last position (the ``=`` token). Initialisation is Nanda's: every matrix ``randn/√d_model``
except the unembedding, ``randn/√d_vocab``; MLP biases zero.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from companion.settings import one_of


@dataclass(frozen=True)
class TransformerConfig:
    """Nanda et al. (2023) §3: one layer, d_model 128, 4 heads of 32, d_mlp 512, p = 113."""

    p: int = 113  # modulus: p output classes
    d_model: int = 128  # residual stream width
    n_heads: int = 4  # attention heads; d_head = d_model / n_heads
    d_mlp: int = 512  # MLP hidden width
    n_layers: int = 1  # transformer blocks
    n_ctx: int = 3  # tokens [a, b, =]
    unembed_scale: str = "d_vocab"  # W_U init std 1/√d_vocab (Nanda) or 1/√d_model (Gu et al.)

    def __post_init__(self):
        one_of("unembed_scale", self.unembed_scale, ("d_vocab", "d_model"))

    @property
    def d_vocab(self) -> int:
        return self.p + 1  # p numbers and the "=" token

    @property
    def d_head(self) -> int:
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model={self.d_model} is not divisible by n_heads={self.n_heads}")
        return self.d_model // self.n_heads


class Block(nn.Module):
    """Attention then MLP, each added to the residual stream (no LayerNorm)."""

    def __init__(self, cfg: TransformerConfig, g: torch.Generator):
        super().__init__()
        d, h, dh, s = cfg.d_model, cfg.n_heads, cfg.d_head, 1 / math.sqrt(cfg.d_model)
        self.W_Q = nn.Parameter(torch.randn(h, d, dh, generator=g) * s)
        self.W_K = nn.Parameter(torch.randn(h, d, dh, generator=g) * s)
        self.W_V = nn.Parameter(torch.randn(h, d, dh, generator=g) * s)
        self.W_O = nn.Parameter(torch.randn(h, dh, d, generator=g) * s)
        self.W_in = nn.Parameter(torch.randn(d, cfg.d_mlp, generator=g) * s)
        self.b_in = nn.Parameter(torch.zeros(cfg.d_mlp))
        self.W_out = nn.Parameter(torch.randn(cfg.d_mlp, d, generator=g) * s)
        self.b_out = nn.Parameter(torch.zeros(d))
        self.scale = 1 / math.sqrt(dh)

    def forward(self, x: torch.Tensor, last_only: bool = False) -> torch.Tensor:
        # x: (B, T, d). With last_only, only the last position's output is computed: exact when
        # nothing downstream reads the other positions (the final block).
        q_in = x[:, -1:] if last_only else x
        q = torch.einsum("btd,hde->bhte", q_in, self.W_Q)  # (B, h, Tq, dh)
        k = torch.einsum("btd,hde->bhte", x, self.W_K)  # (B, h, T, dh)
        v = torch.einsum("btd,hde->bhte", x, self.W_V)
        scores = q @ k.transpose(-1, -2) * self.scale  # (B, h, Tq, T)
        T, Tq = x.shape[1], q_in.shape[1]
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()[T - Tq:]
        attn = scores.masked_fill(~causal, float("-inf")).softmax(-1)
        z = torch.einsum("bhqt,bhte->bhqe", attn, v)
        resid = q_in + torch.einsum("bhqe,hed->bqd", z, self.W_O)
        return resid + torch.relu(resid @ self.W_in + self.b_in) @ self.W_out + self.b_out


class Transformer(nn.Module):
    """Logits over the p answers read at the last position (the ``=`` token).

    ``tokens``: ``(B, T)`` int64 with ``T ≤ n_ctx`` (the modular tasks feed ``[a, b, =]``, T = 3)
    -> ``(B, p)``. Composed, not subclassed, by Gu et al.'s variant (:mod:`companion.models.gu`),
    the low-rank embedding of GrokTransfer and the α-scaled model of Kumar et al.
    """

    def __init__(self, cfg: TransformerConfig, seed: int = 0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        s = 1 / math.sqrt(cfg.d_model)
        self.cfg = cfg
        self.W_E = nn.Parameter(torch.randn(cfg.d_vocab, cfg.d_model, generator=g) * s)
        self.W_pos = nn.Parameter(torch.randn(cfg.n_ctx, cfg.d_model, generator=g) * s)
        self.blocks = nn.ModuleList(Block(cfg, g) for _ in range(cfg.n_layers))
        u = 1 / math.sqrt(cfg.d_vocab if cfg.unembed_scale == "d_vocab" else cfg.d_model)
        self.W_U = nn.Parameter(torch.randn(cfg.d_model, cfg.p, generator=g) * u)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.W_E[tokens] + self.W_pos[: tokens.shape[1]]  # (B, T, d)
        for i, block in enumerate(self.blocks):
            x = block(x, last_only=i == len(self.blocks) - 1)
        return x[:, -1] @ self.W_U  # (B, p)
