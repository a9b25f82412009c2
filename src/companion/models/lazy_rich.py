"""The networks of Kumar et al. (2024) beyond the committee machine (:mod:`companion.models.committee`):

* tanh MLPs with biases, parameters stacked over runs (:func:`tanh_mlp`, :func:`tanh_mlp_params`):
  the student and teacher of App. 8.3.1 (Figs. 8, 17, 18);
* :class:`ScaledTransformer` — Fig. 6b: the book's one-layer transformer with centred logits
  scaled by α, ``α·(f(x) − f0(x))`` (composition; ``f0`` is a lookup table of the initial logits);
* :class:`OutputScaled` — any module's output times α, uncentred (§3, "output rescaling").

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


class OutputScaled(nn.Module):
    """``α·f(x)`` for any module ``f`` (Kumar et al. §3: "multiplying the network output logits by a large
    scale factor α can also induce lazy training (Chizat et al., 2019)"); its parameters are ``f``'s."""

    def __init__(self, f: nn.Module, alpha: float):
        super().__init__()
        self.f = f
        where = next(f.parameters(), None)  # on the device of f's parameters (f may be on a GPU already)
        self.register_buffer("alpha", torch.tensor(float(alpha), device=None if where is None else where.device))

    def forward(self, x: Tensor) -> Tensor:
        return self.alpha * self.f(x)


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
        return self.alpha * (tabled_forward(self.model, tokens) - self.f0[tokens[:, 0] * self.p + tokens[:, 1]])


def tabled_forward(model: nn.Module, tokens: Tensor) -> Tensor:
    """``model(tokens)`` of a one-layer :class:`~companion.models.transformer.Transformer`, the
    attention's queries, keys and values taken from tables.

    The residual stream entering the block is ``W_E[token] + W_pos[position]``: a function of
    (token, position) alone. So ``Q``, ``K`` and ``V`` are computed once per (token, position),
    ``d_vocab·T`` rows instead of ``batch·T``, and gathered; everything after the attention
    pattern is :class:`~companion.models.transformer.Block`'s ``last_only`` path. The same
    function up to float rounding (``tests/test_lazy_rich.py``), for a fraction of the
    multiply–adds of a batch of the p² pairs (forward and backward)."""
    if len(model.blocks) != 1:
        raise ValueError("tabled_forward is the one-layer transformer's")
    blk, T = model.blocks[0], tokens.shape[1]
    E = model.W_E[:, None, :] + model.W_pos[None, :T]  # (V, T, d): the stream at every (token, position)
    V, B, h, dh = E.shape[0], tokens.shape[0], blk.W_Q.shape[0], blk.W_Q.shape[2]
    last = tokens[:, -1]
    rows = tokens * T + torch.arange(T, device=tokens.device)  # (B, T): row (token, position) of E
    q = torch.einsum("vd,hde->vhe", E[:, T - 1], blk.W_Q)  # (V, h, dh): the last position's queries
    k, v = (torch.einsum("vtd,hde->vthe", E, W).reshape(V * T, h, dh) for W in (blk.W_K, blk.W_V))
    S = torch.einsum("vhe,rhe->vrh", q, k).reshape(V * V * T, h) * blk.scale  # every (query, key) score
    scores = S.index_select(0, (last[:, None] * (V * T) + rows).reshape(-1)).view(B, T, h)
    attn = scores.softmax(1)  # the last query sees every position
    z = (attn[..., None] * v.index_select(0, rows.reshape(-1)).view(B, T, h, dh)).sum(1)  # (B, h, dh)
    resid = E[:, T - 1].index_select(0, last) + z.reshape(B, h * dh) @ blk.W_O.reshape(h * dh, -1)
    out = resid + torch.relu(resid @ blk.W_in + blk.b_in) @ blk.W_out + blk.b_out
    return out @ model.W_U
