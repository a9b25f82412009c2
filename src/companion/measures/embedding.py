"""Progress measures on token embeddings and the weights (Gu et al., "Beyond Progress
Measures", §3–4; comparisons from Nanda et al. 2023).

Layout: the shared transformer stores the token table as ``W_E`` of shape ``(d_vocab, d_model)``;
row i is φ(i), the embedding of token i (the position term is the same for i and i+1 and
cancels in differences).

* :func:`med` — Main Embedding Diff (Def. 4.2): (1/p) Σ_i ‖φ(i+1) − φ(i)‖₂, cyclic (φ(p) := φ(0));
  ``scale="sum"`` drops the 1/p as in Fig. 5's caption and App. D ("MED ≈ 60–80").
* :func:`med_normalised` — MED divided by the embedding's RMS row norm (scale-free), and
  :func:`med_invariant` — its minimum over the relabellings a → c·a mod p (raw MED mostly
  reflects which Fourier frequency an embedding uses; a pure frequency-k embedding has normalised
  MED 2 sin(πk/p), its invariant MED is 2 sin(π/p) for every k).
* :func:`weight_norm_sq` (alias :func:`param_norm_sq`) — the weight-decay term W(θ) = Σ ‖θ‖² of Lemma 3.4 / Thm 3.8.
* :func:`fourier_energy`, :func:`gini`, :func:`fourier_gini`, :func:`topk_fraction` —
  Fourier sparsity of the embedding (Nanda et al. §5).
* :func:`restricted_excluded_loss` — Nanda et al.'s restricted and excluded losses (§5.1).
* :func:`class_spread`, :func:`pair_representation`, :func:`pair_class_spread` — Thm 3.5's class
  consistency ‖φ(i) + φ(j) − k_r‖ < δ_r, read on the representation of the pair at the last position.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import torch
import torch.nn.functional as F

from companion.settings import one_of

MED_SCALES = ("mean", "sum")  # Def. 4.2's 1/p average, or the sum of Fig. 5's caption


def med(W_E: torch.Tensor, p: int, offset: int = 0, scale: str = "mean") -> float:
    """Def. 4.2: mean over i ∈ Z_p of ‖φ(i+1 mod p) − φ(i)‖₂ over the first-operand tokens
    0…p−1; with an offset k ≠ 0 also over the second-operand tokens k…k+p−1, and the two averaged
    (as the authors' code does). ``scale="sum"`` returns p × that (Fig. 5)."""
    one_of("MED scale", scale, MED_SCALES)
    W = W_E.detach().double()
    starts = (0,) if offset == 0 else (0, offset)
    vals = []
    for s in starts:
        phi = W[s:s + p]
        vals.append(float((phi.roll(-1, 0) - phi).norm(dim=1).mean()))
    m = sum(vals) / len(vals)
    return m * p if scale == "sum" else m


def _blocks(W_E: torch.Tensor, p: int, offset: int) -> list[torch.Tensor]:
    """The p-row token blocks MED is taken over (first operand; with an offset, also the second), float64."""
    W = W_E.detach().double()
    return [W[s:s + p] for s in ((0,) if offset == 0 else (0, offset))]


def _normalised_step_med(blocks: list[torch.Tensor], c: int) -> float:
    """Mean over blocks of (1/p) Σ_a ‖φ(c(a+1)) − φ(ca)‖ / √((1/p) Σ_a ‖φ(a)‖²): MED of the
    embedding relabelled by a → c·a mod p (which is (1/p) Σ_b ‖φ(b + c) − φ(b)‖), over its RMS row norm."""
    vals = [float((phi.roll(-c, 0) - phi).norm(dim=1).mean() / phi.pow(2).sum(1).mean().sqrt()) for phi in blocks]
    return sum(vals) / len(vals)


def med_normalised(W_E: torch.Tensor, p: int, offset: int = 0) -> float:
    """Def. 4.2's MED of each token block divided by that block's RMS row norm √((1/p) Σ_i ‖φ(i)‖²),
    averaged over the blocks as :func:`med` does: invariant to rescaling the embedding."""
    return _normalised_step_med(_blocks(W_E, p, offset), 1)


def med_invariant(W_E: torch.Tensor, p: int, offset: int = 0) -> float:
    """min over units c of Z_p (c ∈ 1…p−1 with gcd(c, p) = 1: all of them for a prime p) of
    :func:`med_normalised` after relabelling the rows a → c·a mod p (the same c in every block):
    a relabelling by a unit only permutes the c's, so this is invariant under it."""
    blocks = _blocks(W_E, p, offset)
    return min(_normalised_step_med(blocks, c) for c in range(1, p) if math.gcd(c, p) == 1)


def weight_norm_sq(model: torch.nn.Module) -> float:
    """W(θ) = Σ_θ ‖θ‖² over all parameters (the term weight decay shrinks; Thm 3.8)."""
    return float(sum((q.detach().double() ** 2).sum() for q in model.parameters()))


param_norm_sq = weight_norm_sq  # the synthesis chapter's name for the same Σ‖θ‖²


@functools.lru_cache(maxsize=32)
def _basis_on(p: int, device: str) -> torch.Tensor:
    return fourier_basis(p)[0].to(device)


def fourier_basis(p: int) -> tuple[torch.Tensor, list[str]]:
    """Orthonormal real Fourier basis of functions on Z_p, rows: 1/√p, then cos_k, sin_k for
    k = 1…(p−1)/2 (p odd), each of unit norm. Returns (p × p matrix, row names)."""
    i = torch.arange(p, dtype=torch.float64)
    rows, names = [torch.ones(p, dtype=torch.float64)], ["const"]
    for k in range(1, (p - 1) // 2 + 1):
        rows += [torch.cos(2 * math.pi * k * i / p), torch.sin(2 * math.pi * k * i / p)]
        names += [f"cos{k}", f"sin{k}"]
    B = torch.stack(rows)
    return B / B.norm(dim=1, keepdim=True), names


def fourier_energy(W_E: torch.Tensor, p: int) -> np.ndarray:
    """Energy e_k = ‖Ŵ_cos_k‖² + ‖Ŵ_sin_k‖² of the token table W_E[:p] per frequency k = 1…(p−1)/2."""
    B = _basis_on(p, str(W_E.device))  # built once per (p, device): evaluations call this often
    What = B @ W_E.detach().double()[:p]  # (p, d_model): one row per basis function
    e = (What[1:] ** 2).sum(1).reshape(-1, 2).sum(1)
    return e.cpu().numpy()


def gini(x: np.ndarray) -> float:
    """Gini coefficient of non-negative values (0: all equal, → 1: one value holds everything)."""
    x = np.sort(np.asarray(x, dtype=float))
    n = len(x)
    if n == 0 or x.sum() == 0:
        return 0.0
    return float((2 * np.arange(1, n + 1) - n - 1) @ x / (n * x.sum()))


def fourier_gini(W_E: torch.Tensor, p: int) -> float:
    return gini(fourier_energy(W_E, p))


def topk_fraction(W_E: torch.Tensor, p: int, k: int = 5) -> float:
    """Share of the embedding's (non-constant) Fourier energy in its k strongest frequencies."""
    e = fourier_energy(W_E, p)
    return float(np.sort(e)[::-1][:k].sum() / e.sum())


def key_frequencies(W_E: torch.Tensor, p: int, k: int = 5) -> list[int]:
    """The k frequencies (1…(p−1)/2) with the most embedding energy, strongest first."""
    return [int(f) + 1 for f in np.argsort(fourier_energy(W_E, p))[::-1][:k]]


@torch.no_grad()
def mlp_internals(model, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """For a one-layer shared :class:`~companion.models.transformer.Transformer`: the residual stream after
    attention at the last position (``resid_mid``, B × d) and the post-ReLU MLP activations
    there (``N``, B × d_mlp), written out from the weights (so that
    ``(resid_mid + N W_out + b_out) W_U`` equals the model's logits; tested)."""
    if len(model.blocks) != 1:
        raise ValueError("restricted/excluded loss is defined here for one-layer models")
    blk = model.blocks[0]
    x = model.W_E[tokens] + model.W_pos[: tokens.shape[1]]
    q = torch.einsum("bd,hde->bhe", x[:, -1], blk.W_Q)
    k = torch.einsum("btd,hde->bhte", x, blk.W_K)
    v = torch.einsum("btd,hde->bhte", x, blk.W_V)
    attn = (torch.einsum("bhe,bhte->bht", q, k) * blk.scale).softmax(-1)  # last row: all visible
    resid = x[:, -1] + torch.einsum("bht,bhte,hed->bd", attn, v, blk.W_O)
    return resid, torch.relu(resid @ blk.W_in + blk.b_in)


@torch.no_grad()
def restricted_excluded_loss(model, p: int, train_mask: torch.Tensor, n_freq: int = 5) -> tuple[float, float]:
    """Nanda et al. (2023) §5.1 for f = a + b, on the p² pairs in row-major order.

    With N the MLP activations, W_logit = W_out W_U and P the projection of N onto the directions
    cos(w_k(a+b)), sin(w_k(a+b)) of the key frequencies k (the ``n_freq`` strongest in W_E now):
    restricted logits (mean N + P N) W_logit, shifted to the true logits' per-class mean, scored by
    cross-entropy over all pairs; excluded logits (N − P N) W_logit + the rest of the true logits,
    scored on the training pairs (``train_mask``). Float64.
    """
    a = torch.arange(p).repeat_interleave(p)
    b = torch.arange(p).repeat(p)
    tokens = torch.stack([a, b, torch.full_like(a, p)], 1).to(model.W_E.device)
    y = ((a + b) % p).to(tokens.device)
    logits = model(tokens).double()
    _, N = mlp_internals(model, tokens)
    N = N.double()
    W_logit = model.blocks[0].W_out.double() @ model.W_U.double()
    s = (a + b).double().to(tokens.device)
    dirs = []
    for f in key_frequencies(model.W_E, p, n_freq):
        for trig in (torch.cos, torch.sin):
            d = trig(2 * math.pi * f * s / p)
            dirs.append(d / d.norm())
    D = torch.stack(dirs, 1)  # (p², 2K) orthonormal columns
    PN = D @ (D.T @ N)
    restricted = (N.mean(0, keepdim=True) + PN) @ W_logit
    restricted = restricted - restricted.mean(0) + logits.mean(0)
    excluded = logits - PN @ W_logit
    r = F.cross_entropy(restricted, y).item()
    m = train_mask.to(tokens.device)
    e = F.cross_entropy(excluded[m], y[m]).item()
    return r, e


def class_spread(h: torch.Tensor, labels: torch.Tensor) -> float:
    """Thm 3.5's class consistency as one number: Σ ‖h(i,j) − k_r(i,j)‖² / Σ ‖h(i,j) − h̄‖² over the rows.

    Gu et al., Thm 3.5: if the model has mastered A × B / ∼, there are vectors k_r and radii δ_r with
    ‖φ(i) + φ(j) − k_r(i,j)‖ < δ_r(i,j) for every pair of A × B; by App. B.3 the δ_r shrink as A × B
    grows, and Remark 3.6 gives Liu et al.'s form (pairs of one class close, of different classes not).
    Here k_r is the centroid of the rows of class r (the choice of k_r that makes Σ δ_r² smallest) and
    the squared distances to it are summed and divided by the total sum of squares around the grand
    mean: the within-class share of the variance, 1 − η². 0: every class collapsed onto its k_r;
    1: the class explains nothing (as for any row order that ignores the label). Float64.

    ``h``: (n, d) one representation per pair; ``labels``: (n,) the class r(i, j) of each pair.
    """
    h = h.detach().double()
    lab = labels.to(h.device).long()
    n_cls = int(lab.max()) + 1
    counts = torch.bincount(lab, minlength=n_cls).clamp(min=1).to(h.dtype)
    centroid = torch.zeros(n_cls, h.shape[1], dtype=h.dtype, device=h.device).index_add_(0, lab, h) / counts[:, None]
    total = float(((h - h.mean(0)) ** 2).sum())
    return float(((h - centroid[lab]) ** 2).sum()) / total if total > 0 else float("nan")


@torch.no_grad()
def pair_representation(model, tokens: torch.Tensor) -> torch.Tensor:
    """φ̄(cls) of Gu et al. (Lemma 3.2, App. B.3) for a one-layer shared Transformer: the residual
    stream at the last position after attention and MLP, before the unembedding (B × d). App. B.3
    writes it as r′∘l′(φ(i)) + r″∘l″(φ(j)) + a constant, the sum of what each operand contributes:
    Thm 3.5's φ(i) + φ(j) "in the deeper layers". Its product with W_U is the model's logits."""
    resid, N = mlp_internals(model, tokens)
    blk = model.blocks[0]
    return resid + N @ blk.W_out + blk.b_out


@torch.no_grad()
def pair_class_spread(model, tokens: torch.Tensor, labels: torch.Tensor) -> float:
    """:func:`class_spread` of :func:`pair_representation` over the pairs ``tokens`` with classes ``labels``.

    On the token embeddings themselves (h = W_E[i] + W_E[j]) over all p² pairs of f = i + j the
    spread is exactly 1 for every embedding: each token appears once in every class, so every k_r is
    2φ̄. The pair's representation at the last position is what Thm 3.5 constrains (App. B.3)."""
    return class_spread(pair_representation(model, tokens), labels)


@torch.no_grad()
def pair_class_spreads(model, tokens: torch.Tensor, labels: torch.Tensor) -> tuple[float, float]:
    """:func:`class_spread` at two depths from one forward: of the residual stream at the last position
    after attention and before the MLP (what the embeddings and attention alone make of the pair: a
    control), and of :func:`pair_representation` after the MLP (what Thm 3.5 constrains)."""
    resid, N = mlp_internals(model, tokens)
    blk = model.blocks[0]
    return class_spread(resid, labels), class_spread(resid + N @ blk.W_out + blk.b_out, labels)
