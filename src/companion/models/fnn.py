"""GrokTransfer (Xu, Ni, Wang & Hu, ICLR 2025): the feed-forward nets with a trainable
embedding, among them the low-rank embedding E_T = A·B of the GrokTransfer target (Sec. 2.2,
App. A.3). The procedure itself (train a weak model, select a checkpoint, train the target) is
the experiments' (:mod:`companion.experiments.groktransfer`).

Every FNN of the paper is homogeneous with no bias terms (A.3): an *embedding* followed by a
stack of bias-free linear maps with ReLU between them. Many such nets differing only in seed,
init scale, learning rate or weight decay are trained at once as an *ensemble*: every parameter
carries a leading member axis ``M``, and :func:`companion.train.groktransfer.train_ensemble`
runs AdamW with per-member (lr, weight decay). Because AdamW is element-wise and the loss is the
sum of the members' mean losses, each member follows exactly the trajectory it would follow alone.

Embedding kinds (``FNNSpec.embed``):

* ``table``  -- tokens (a, b) -> [E[a]; E[b]], E ∈ ℝ^{V×d} (``nn.Embedding``: init N(0, 1));
* ``lowrank`` -- the same with E = A·B, A ∈ ℝ^{V×r}, B ∈ ℝ^{r×d}, both trained (Sec. 2.2);
* ``dense``  -- a real input x ∈ ℝ^q -> xE, E ∈ ℝ^{q×d} (``nn.Linear``: U(±1/√q)), for parity;
* ``dense_lowrank`` -- x·A·B (the parity target of Sec. 4.1);
* ``fixed``  -- the input is already a feature vector (the fixed embeddings of Fig. 2).

Init-scale convention (A.3, after Liu et al. 2023): the default PyTorch initialisation times a
factor α. The transferred A is copied unscaled; B gets ``nn.Linear(r, d)``'s init times α.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from companion.settings import one_of

EMBEDS = ("table", "lowrank", "dense", "dense_lowrank", "fixed")


@dataclass(frozen=True)
class FNNSpec:
    """Shape of a bias-free ReLU FNN: embedding, then ``len(widths)`` hidden layers, then out.

    The modular weak model (4, 16) is ``FNNSpec("table", 113, 4, (16,), 113)``: W₂φ(W₁[E_a; E_b]);
    the target (128, 512) is ``FNNSpec("table", 113, 128, (512, 512), 113)``.
    """

    embed: str = "table"  # one of EMBEDS (the module docstring)
    vocab: int = 113  # V (tokens) or q (input dimension for dense embeddings)
    d_embed: int = 128  # embedding width d
    widths: tuple = (512, 512)  # hidden layer widths
    n_out: int = 113  # outputs (classes; 1 for the logistic loss)
    n_tokens: int = 2  # tokens concatenated (modular: 2; dense inputs: 1)
    rank: int = 0  # r for the low-rank embeddings
    act_after_embed: bool = False  # ReLU right after the embedding (parity weak model: φ(W₁x))
    onehot_pair: bool = False  # fixed: the input is two one-hot blocks [e_a; e_b] (the first layer a gather)

    def __post_init__(self):
        one_of("embedding kind", self.embed, EMBEDS)


def uniform(g: torch.Generator, shape, bound: float) -> torch.Tensor:
    """U(±bound) of ``shape`` from ``g`` (PyTorch's ``nn.Linear`` init with bound 1/√fan_in)."""
    return (torch.rand(shape, generator=g) * 2 - 1) * bound


def init_params(spec: FNNSpec, scales, seed: int, A: torch.Tensor | None = None) -> dict:
    """Default PyTorch init times the per-member init scale α (``scales``: length M).

    ``A`` (M, V, r) is the transferred (or random) left factor of a low-rank embedding.
    """
    a = torch.as_tensor(scales, dtype=torch.float32)
    M = len(a)
    g = torch.Generator().manual_seed(seed)
    s = a.view(M, 1, 1)
    P: dict[str, torch.Tensor] = {}
    if spec.embed == "table":
        P["E"] = torch.randn(M, spec.vocab, spec.d_embed, generator=g) * s
    elif spec.embed == "dense":
        P["E"] = uniform(g, (M, spec.vocab, spec.d_embed), 1 / math.sqrt(spec.vocab)) * s
    elif spec.embed in ("lowrank", "dense_lowrank"):
        if A is None:
            raise ValueError("a low-rank embedding needs its left factor A (M, V, r)")
        P["A"] = A.detach().clone().float()
        r = P["A"].shape[-1]
        P["B"] = uniform(g, (M, r, spec.d_embed), 1 / math.sqrt(r)) * s
    d_in = spec.d_embed * spec.n_tokens if spec.embed != "fixed" else spec.vocab
    for i, w in enumerate((*spec.widths, spec.n_out)):
        P[f"W{i + 1}"] = uniform(g, (M, w, d_in), 1 / math.sqrt(d_in)) * s
        d_in = w
    return {k: v.requires_grad_(True) for k, v in P.items()}


def embedding_matrix(P: dict) -> torch.Tensor:
    """The (M, V, d) embedding: E, or A·B for the low-rank kinds."""
    return P["E"] if "E" in P else P["A"] @ P["B"]


def forward(P: dict, spec: FNNSpec, x: torch.Tensor) -> torch.Tensor:
    """Outputs (M, N, n_out) for inputs x: int tokens (N, n_tokens) or reals (N, q)."""
    n, first = len(spec.widths) + 1, 1
    if spec.embed == "fixed" and spec.onehot_pair:  # layer 1 done here
        h, first = OneHotPairLinear.apply(x, P["W1"]), 2
        h = torch.relu(h) if n > 1 else h
    elif spec.embed == "fixed":
        h = x.unsqueeze(0)
    elif spec.embed in ("table", "lowrank"):  # layer 1 done here, from tables
        E = embedding_matrix(P)
        h, first = first_layer_from_tables(torch.relu(E) if spec.act_after_embed else E, P["W1"], x), 2
        h = torch.relu(h) if n > 1 else h
    else:
        h = x @ embedding_matrix(P)  # (M, N, d)
    if spec.act_after_embed and first == 1:
        h = torch.relu(h)
    for i in range(first, n + 1):
        h = h @ P[f"W{i}"].transpose(-1, -2)
        if i < n:
            h = torch.relu(h)
    return h


def first_layer_from_tables(E: torch.Tensor, W1: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """W₁[E[x₁]; …; E[x_T]] for tokens x (N, T), E (M, V, d), W₁ (M, w, T·d), as
    Σ_t (E W₁,ₜᵀ)[x_t] with W₁,ₜ the t-th block of d columns: a token's contribution depends on
    the token alone, so it is computed once per vocabulary entry (V·d·w multiply–adds per token
    position instead of N·d·w) and gathered. The same function as the concatenation's product up
    to float rounding (the length-T·d dot products are summed in T pieces). Measured at the cpu
    profile's (32, 128) targets, three members: a training step 57.6 → 44.5 ms."""
    d = E.shape[-1]
    h = None
    for t in range(x.shape[1]):
        table = E @ W1[..., t * d:(t + 1) * d].transpose(-1, -2)  # (M, V, w): token v at position t
        h = table[:, x[:, t]] if h is None else h + table[:, x[:, t]]
    return h


class OneHotPairLinear(torch.autograd.Function):
    """x W₁ᵀ for inputs x (N, 2V) made of two one-hot blocks [e_a; e_b], W₁ (M, w, 2V): the
    forward is the column gather W₁[:, :, a] + W₁[:, :, V + b] (N·w additions instead of N·2V·w
    multiply-adds), bit for bit the dense product (its other terms are exact zeros and a sum of
    two numbers does not depend on their order); the backward is the dense weight gradient, the
    same GEMM autograd runs for ``x @ W₁ᵀ``, so training is bit-identical to the dense layer."""

    @staticmethod
    def forward(ctx, x, W):
        N, K = x.shape
        idx = x.view(N, 2, K // 2).argmax(-1) + torch.tensor([0, K // 2], device=x.device)
        Wt = W.transpose(-1, -2)
        ctx.save_for_backward(x)
        return Wt[:, idx[:, 0]] + Wt[:, idx[:, 1]]

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return None, g.transpose(-1, -2) @ x.unsqueeze(0)


LOSSES = ("ce", "mse", "logistic")


def loss_and_acc(out: torch.Tensor, y: torch.Tensor, loss: str, with_acc: bool = True):
    """Per-member mean loss (M,) and accuracy (M,) (None for ``ce`` without ``with_acc``).

    ``ce`` and ``mse``: integer labels; ``logistic``: y ∈ {±1} (parity, Sec. 4.1)."""
    if loss == "ce":
        M, N, _ = out.shape
        # no -inf padding to 128 columns: with torch 2.13 it made the step slower (weak model 21 -> 17 ms/epoch
        # without it), and the padded columns add exact zeros, so the losses and gradients are bit-identical
        logp = torch.log_softmax(out, -1)
        lo = -logp.gather(-1, y.view(1, N, 1).expand(M, N, 1)).squeeze(-1).mean(1)
        acc = (out.argmax(-1) == y).float().mean(1) if with_acc else None
    elif loss == "mse":  # squared error to one-hot targets (Liu et al. 2023's MNIST setting)
        lo = ((out - F.one_hot(y, out.shape[-1]).float()) ** 2).sum(-1).mean(1)
        acc = (out.argmax(-1) == y).float().mean(1)
    elif loss == "logistic":
        f = out[..., 0]
        lo = F.softplus(-y * f).mean(1)  # log(1 + e^{−yf})
        acc = (torch.sign(f) == y).float().mean(1)  # f = 0 counts as wrong
    else:
        one_of("loss", loss, LOSSES)
    return lo, acc


class FNNModule(torch.nn.Module):
    """Member ``k`` of :func:`init_params`'s stack as an ``nn.Module``, the one definition of an
    ensemble member as a module (for per-model measures such as
    :func:`companion.measures.kernels.module_ntk`, and :func:`companion.train.train_batched`):
    ``forward`` is :func:`forward` on that member alone. A low-rank embedding's left factor ``A``
    stays a parameter, as in GrokTransfer's targets."""

    def __init__(self, spec: FNNSpec, P: dict, k: int = 0):
        super().__init__()
        self.spec = spec
        self.P = torch.nn.ParameterDict({n: torch.nn.Parameter(v[k].detach().clone()) for n, v in P.items()})

    @property
    def W_E(self) -> torch.Tensor:
        """The (V, d) embedding table (A·B for the low-rank kinds)."""
        return embedding_matrix({n: v[None] for n, v in self.P.items()})[0]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return forward({n: v[None] for n, v in self.P.items()}, self.spec, x)[0]
