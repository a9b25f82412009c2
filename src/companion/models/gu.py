"""The models of Gu et al., "Beyond Progress Measures" (§4, App. D–E), built on the shared
:class:`companion.models.transformer.Transformer` by composition.

* :class:`GuTransformerConfig` — the authors' one-layer transformer (their ``transformer/*.py``):
  the shared Nanda-style model with the unembedding initialised ``randn/√d_model`` like every
  other matrix, and a vocabulary ``p + k + 1`` for the operand offset ``k`` of App. D (the
  second operand j is token ``j + k``, the "=" token is ``p + k``).
* :func:`toeplitz_embedding` — the structured initialisation of App. E (Fig. 20).
* :class:`EmbedMLP` — the two-hidden-layer DNN of Fig. 4 (their ``MLP/base.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from companion.models.transformer import Transformer, TransformerConfig
from companion.settings import one_of


@dataclass(frozen=True)
class GuTransformerConfig(TransformerConfig):
    """Gu et al.: p = 97, d_model 128, 4 heads, d_mlp 512, one layer, no LayerNorm, offset k = 0."""

    p: int = 97
    unembed_scale: str = "d_model"  # the authors' code initialises W_U with randn/√d_model
    offset: int = 0  # operand offset k (App. D): j is token j + k

    @property
    def d_vocab(self) -> int:
        return self.p + self.offset + 1


def gu_config(p: int, d_model: int = 128, n_layers: int = 1, offset: int = 0) -> GuTransformerConfig:
    """The authors' shape rules: 4 heads, d_mlp = 4·d_model."""
    return GuTransformerConfig(p=p, d_model=d_model, d_mlp=4 * d_model, n_layers=n_layers, offset=offset)


def toeplitz_embedding(d_vocab: int, d_model: int, seed: int) -> torch.Tensor:
    """App. E: ``v ~ U[0, 1)^d_model``, ``W_E = toeplitz(v, v)[:, :d_vocab] / √d_model``.

    As in the authors' (commented-out) code this is a *symmetric* Toeplitz matrix T_ab = v_|a−b|,
    not the circulant the paper names; returned as the ``(d_vocab, d_model)`` token table
    (row a = token a). Needs d_vocab ≤ d_model.
    """
    if d_vocab > d_model:
        raise ValueError(f"Toeplitz init needs d_vocab ≤ d_model, got {d_vocab} > {d_model}")
    v = torch.rand(d_model, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    idx = torch.arange(d_model)
    T = v[(idx[:, None] - idx[None, :]).abs()]  # (d_model, d_model), symmetric
    return (T[:, :d_vocab].T / math.sqrt(d_model)).float().contiguous()


INITS = ("random", "toeplitz")  # W_E initialisation (App. E)


def _block_from(blk, x: torch.Tensor, start: int) -> torch.Tensor:
    """:class:`~companion.models.transformer.Block`'s forward for the positions ``start:`` only
    (keys and values from every position, causal): the same operations as the block's own."""
    q_in = x[:, start:]
    q = torch.einsum("btd,hde->bhte", q_in, blk.W_Q)
    k = torch.einsum("btd,hde->bhte", x, blk.W_K)
    v = torch.einsum("btd,hde->bhte", x, blk.W_V)
    T = x.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()[start:]
    attn = (q @ k.transpose(-1, -2) * blk.scale).masked_fill(~causal, float("-inf")).softmax(-1)
    resid = q_in + torch.einsum("bhqe,hed->bqd", torch.einsum("bhqt,bhte->bhqe", attn, v), blk.W_O)
    return resid + torch.relu(resid @ blk.W_in + blk.b_in) @ blk.W_out + blk.b_out


class TabulatedTransformer(Transformer):
    """The same transformer (parameters, initialisation, function) computed with fewer operations.

    * one block: a token's key and value at position t depend on (token, t) only, so they are
      computed once per vocabulary entry and position and gathered per pair; the attention of the
      last position over three keys is an elementwise product and sum (not batched 1 × d_head
      matrix products). At the cpu profile's sizes a training step costs about a third less.
    * two or more blocks: the first block's output at position 0 sees only token 0 (causal
      attention), so it is computed once per vocabulary entry and gathered, and the first block
      runs on positions 1… only (Fig. 2's 2-block model: 15 % less per step).

    The logits agree with :class:`~companion.models.transformer.Transformer`'s to float32 rounding
    (the order of the sums differs), so trained runs are not bit-identical to the plain forward's.
    """

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        if len(self.blocks) == 1:
            return self._one_block(tokens)
        L = len(self.blocks)
        x = self.W_E[tokens] + self.W_pos[: tokens.shape[1]]
        first = self.blocks[0](self.W_E[:, None] + self.W_pos[:1])[:, 0]  # (d_vocab, d): position 0 per token
        x = torch.cat([first[tokens[:, 0]][:, None], _block_from(self.blocks[0], x, 1)], 1)
        for i in range(1, L):
            x = self.blocks[i](x, last_only=i == L - 1)
        return x[:, -1] @ self.W_U

    def _one_block(self, tokens: torch.Tensor) -> torch.Tensor:
        blk = self.blocks[0]
        (B, T), (V, d), (h, _, dh) = tokens.shape, self.W_E.shape, blk.W_K.shape
        x = (self.W_E[None] + self.W_pos[:T, None]).reshape(T * V, d)  # row t·V + v: token v at position t
        heads = [w.permute(1, 0, 2).reshape(d, h * dh) for w in (blk.W_K, blk.W_V, blk.W_Q)]
        kv = (x @ torch.cat(heads[:2], 1))[tokens + V * torch.arange(T, device=tokens.device)]  # (B, T, 2·h·dh)
        k, v = kv[..., :h * dh].reshape(B, T, h, dh), kv[..., h * dh:].reshape(B, T, h, dh)
        x_last = x[tokens[:, -1] + V * (T - 1)]  # (B, d): the last position reads every position (causal)
        q = (x_last @ heads[2]).reshape(B, 1, h, dh)
        attn = ((q * k).sum(-1) * blk.scale).softmax(1)  # (B, T, h)
        resid = x_last + (attn[..., None] * v).sum(1).reshape(B, h * dh) @ blk.W_O.reshape(h * dh, d)
        return (resid + torch.relu(resid @ blk.W_in + blk.b_in) @ blk.W_out + blk.b_out) @ self.W_U


def gu_transformer(cfg: GuTransformerConfig, seed: int, init: str = "random",
                   toeplitz_seed_offset: int = 10_007, tabulated: bool = False) -> Transformer:
    """The shared transformer with Gu et al.'s config; ``init="toeplitz"`` replaces W_E (App. E)
    by :func:`toeplitz_embedding` drawn with ``seed + toeplitz_seed_offset`` (a stream apart from
    the model's own initialisation). ``tabulated``: a :class:`TabulatedTransformer` (the same
    function, computed with fewer operations)."""
    one_of("init", init, INITS)
    model = (TabulatedTransformer if tabulated else Transformer)(cfg, seed=seed)
    if init == "toeplitz":
        with torch.no_grad():
            model.W_E.copy_(toeplitz_embedding(cfg.d_vocab, cfg.d_model, seed + toeplitz_seed_offset))
    return model


class EmbedMLP(nn.Module):
    """Fig. 4's DNN (authors' ``MLP/base.py``): the three token embeddings concatenated
    (3·d_model) → Linear 4·d_model → ReLU → Linear 4·d_model → ReLU → Linear p.

    W_E is ``randn/√d_model``; the Linear layers use PyTorch's default init (as the authors')
    drawn from the seeded generator via ``torch.random.fork_rng``.
    """

    def __init__(self, p: int, d_model: int = 128, d_vocab: int | None = None, seed: int = 0):
        super().__init__()
        d_vocab = d_vocab or p + 1
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.W_E = nn.Parameter(torch.randn(d_vocab, d_model) / math.sqrt(d_model))
            h = 4 * d_model
            self.net = nn.Sequential(nn.Linear(3 * d_model, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(),
                                     nn.Linear(h, p))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.net(self.W_E[tokens].flatten(1))
