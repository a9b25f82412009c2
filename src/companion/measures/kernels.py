"""Kernel diagnostics of any ``nn.Module`` (the synthesis chapter; Kumar et al. 2024 §3, §5.3; Xu et al. 2025 A.3.1).

* :func:`module_ntk` — the empirical NTK ``J(x) J(x')ᵀ`` of any module, from per-example
  Jacobians (``torch.func``: ``vmap(jacrev)`` of ``functional_call``) computed in chunks of probe
  points, so memory is ``chunk × n_params`` plus the kernel;
* :func:`stratified_probe` — probe indices with about equal counts per class;
* :func:`kernel_distance` — ``1 − cos(K, K₀)`` in the Frobenius inner product (Xu et al. Fig. 3);
* :func:`centred_alignment` — kernel–target alignment, by default with the unbiased HSIC
  estimator (Song et al. 2012, "HSIC₁"), whose value does not drift with the number of probes as
  the biased centred alignment (Cortes et al. 2012) does;
* :func:`fnn_ntk` — the same kernel (``output="sum"``) of a GrokTransfer FNN member in closed form,
  layer by layer, without per-example Jacobians: what makes the kernel on a whole split cheap;
* :func:`kernel_regression` — the lazy model's prediction: ridgeless regression with a kernel
  about the initial outputs (Kumar et al. §3: the linearised network's MSE minimiser);
* :func:`linearise` — the first-order Taylor model ``f(θ₀, x) + J(θ₀)(θ − θ₀)`` of any module, by
  one forward-mode ``jvp`` (no Jacobian is formed): the "lazy" model of Kumar et al. §3.
"""

from __future__ import annotations

import math
from typing import Callable

import torch
from torch import nn
from torch.func import functional_call, jacrev, jvp, vmap

from companion.models.fnn import embedding_matrix

Tensor = torch.Tensor


def _detached(model: nn.Module, params: dict | None = None) -> dict:
    src = dict(model.named_parameters()) if params is None else params
    return {k: v.detach() for k, v in src.items()}


def _scalar_fn(model: nn.Module, output):
    """g(θ, x) for ONE example ``x`` (no batch axis): the scalar (or (k,) for ``"logit"``)
    whose gradients the kernel pairs."""
    if not (output in ("sum", "logit") or isinstance(output, int)):
        raise ValueError(f"output must be 'sum', 'logit' or an int, not {output!r}")

    def g(params: dict, x: Tensor) -> Tensor:
        f = functional_call(model, params, (x.unsqueeze(0),))[0]
        if f.ndim == 0 or f.numel() == 1:  # scalar-output model: f itself
            return f.reshape(())
        f = f.reshape(-1)
        if output == "sum":
            return f.sum() / math.sqrt(f.numel())
        if output == "logit":
            return f / math.sqrt(f.numel())
        return f[output]

    return g


def _jacobian_rows(g, params: dict, x: Tensor) -> Tensor:
    """Per-example gradients of g, flattened over all parameters: ``(n, P)`` or ``(n, k, P)``."""
    jac = vmap(jacrev(g), in_dims=(None, 0))(params, x)
    lead = x.shape[0]
    parts = [jac[k].reshape(lead, -1, params[k].numel()) for k in params]
    J = torch.cat(parts, -1)  # (n, 1, P) for a scalar g, (n, k, P) for "logit"
    return J[:, 0] if J.shape[1] == 1 else J  # k = 1: both kernels are the same


def module_ntk(model: nn.Module, x: Tensor, x2: Tensor | None = None, *, output="sum", chunk: int = 64,
               params: dict | None = None, cache_elems: int = 2 ** 26) -> Tensor:
    """Empirical NTK ``Θ(x, x') = Σ_θ ∂g(x)/∂θ · ∂g(x')/∂θ`` of any module, ``(n, n2)``.

    ``output``: ``"sum"`` — g = Σ_c f_c/√k, the pNTK of Mohamadi et al. (2023) used by Xu et al.
    (as :mod:`companion.measures.pntk`); an ``int`` c — g = f_c, one logit; ``"logit"`` — the mean
    over the k logits of each logit's NTK, (1/k) Σ_c ⟨∇f_c(x), ∇f_c(x')⟩ (the trace of the full
    NTK over classes, divided by k). A scalar-output model uses f itself for every choice.
    ``model(x[i:i+1])`` must return ``(1, k)`` or ``(1,)``; examples must not interact (no
    batch norm). ``params`` overrides the module's own parameters (a snapshot); they are
    detached. Probe points go through in chunks of ``chunk``; the Jacobian rows of ``x2`` (or of
    ``x``) are kept between chunks when they hold at most ``cache_elems`` numbers, else
    recomputed, so memory stays ``O(chunk · n_params)``.
    """
    P = _detached(model, params)
    g = _scalar_fn(model, output)
    sym = x2 is None
    xb = x if sym else x2
    blocks_b = [(i, min(i + chunk, xb.shape[0])) for i in range(0, xb.shape[0], chunk)]
    n_par = sum(v.numel() for v in P.values())
    cache: dict | None = {} if xb.shape[0] * n_par <= cache_elems else None
    dtype = next(iter(P.values())).dtype

    def rows_b(i, j):
        if cache is not None and (i, j) in cache:
            return cache[(i, j)]
        J = _jacobian_rows(g, P, xb[i:j])
        if cache is not None:
            cache[(i, j)] = J
        return J

    K = torch.zeros(x.shape[0], xb.shape[0], dtype=dtype, device=x.device)
    for a0 in range(0, x.shape[0], chunk):
        a1 = min(a0 + chunk, x.shape[0])
        JA = _jacobian_rows(g, P, x[a0:a1]) if not (sym and cache is not None) else rows_b(a0, a1)
        for b0, b1 in blocks_b:
            if sym and b1 <= a0:  # lower blocks of a symmetric kernel: mirrored below
                continue
            JB = JA if (sym and b0 == a0) else rows_b(b0, b1)
            if JA.ndim == 3:  # "logit": (n, k, P) — mean over logits of each logit's kernel
                K[a0:a1, b0:b1] = torch.einsum("ikp,jkp->ij", JA, JB)
            else:
                K[a0:a1, b0:b1] = JA @ JB.T
    if sym:
        K = torch.triu(K) + torch.triu(K, 1).T
    return K


def stratified_probe(y: Tensor, n: int, seed: int) -> Tensor:
    """``n`` indices into ``y`` (class labels) with about equal counts per class (±1; a class with
    too few members gives its share to the others), drawn without replacement with a seeded
    generator; sorted ascending."""
    y = torch.as_tensor(y).reshape(-1).cpu()
    n = min(int(n), y.numel())
    g = torch.Generator().manual_seed(int(seed))
    perm = torch.randperm(y.numel(), generator=g)
    cls = torch.unique(y, return_inverse=True)[1][perm]  # class id per shuffled example
    order = torch.argsort(cls, stable=True)
    cls_sorted = cls[order]
    start = torch.searchsorted(cls_sorted, cls_sorted, right=False)
    rank = torch.empty_like(order)
    rank[order] = torch.arange(order.numel()) - start  # rank of each shuffled example in its class
    n_cls = int(cls.max()) + 1
    cls_pos = torch.randperm(n_cls, generator=g)[cls]  # which class fills the remainder first
    key = rank * n_cls + cls_pos
    take = torch.argsort(key)[:n]
    return torch.sort(perm[take]).values


def kernel_distance(K: Tensor, K0: Tensor) -> float:
    """1 − ⟨K, K0⟩_F / (‖K‖_F ‖K0‖_F) (Xu et al. Fig. 3's "NTK change"); NaN if either kernel is not finite."""
    if not (torch.isfinite(K).all() and torch.isfinite(K0).all()):
        return math.nan
    return float(1 - (K * K0).sum() / (K.norm() * K0.norm()))


def target_kernel(y: Tensor) -> Tensor:
    """``y yᵀ`` for real targets (n,) or (n, k); ``Y Yᵀ`` of the one-hot labels for integer labels."""
    if not torch.is_floating_point(y):
        y = torch.nn.functional.one_hot(y.long().reshape(-1)).double()
    y = y.double()
    y = y[:, None] if y.ndim == 1 else y
    return y @ y.T


def hsic_unbiased(K: Tensor, L: Tensor) -> Tensor:
    """HSIC₁ of Song et al. (2012, Eq. 5): with K̃, L̃ the kernels with zeroed diagonals,
    [tr(K̃L̃) + 1ᵀK̃1·1ᵀL̃1/((n−1)(n−2)) − 2/(n−2)·1ᵀK̃L̃1] / (n(n−3)); n ≥ 4."""
    n = K.shape[0]
    if n < 4:
        raise ValueError("the unbiased HSIC needs at least 4 points")
    Kt = K - torch.diag_embed(torch.diagonal(K))
    Lt = L - torch.diag_embed(torch.diagonal(L))
    one = torch.ones(n, dtype=K.dtype, device=K.device)
    return ((Kt * Lt.T).sum() + Kt.sum() * Lt.sum() / ((n - 1) * (n - 2))
            - 2 / (n - 2) * (one @ Kt @ Lt @ one)) / (n * (n - 3))


def centred_alignment(K: Tensor, y: Tensor, unbiased: bool = True) -> float:
    """Kernel–target alignment of ``K`` (n, n) with ``L`` = :func:`target_kernel` of ``y``.

    ``unbiased=True``: HSIC₁(K, L)/√(HSIC₁(K, K)·HSIC₁(L, L)) (Song et al. 2012), NaN when a
    self-term is not positive. ``unbiased=False``: the centred alignment of Cortes et al. (2012),
    ⟨HKH, HLH⟩_F/(‖HKH‖_F‖HLH‖_F), H = I − 11ᵀ/n — whose diagonal terms bias it by O(1/n).
    Float64 throughout.
    """
    K = K.double()
    L = target_kernel(y).to(K.device)
    if unbiased:
        kl, kk, ll = hsic_unbiased(K, L), hsic_unbiased(K, K), hsic_unbiased(L, L)
        if not (kk > 0 and ll > 0):
            return math.nan
        return float(kl / torch.sqrt(kk * ll))
    Kc = K - K.mean(0, keepdim=True) - K.mean(1, keepdim=True) + K.mean()
    Lc = L - L.mean(0, keepdim=True) - L.mean(1, keepdim=True) + L.mean()
    return float((Kc * Lc).sum() / (Kc.norm() * Lc.norm()))


def linearise(model: nn.Module, params0: dict | None = None) -> Callable[[dict, Tensor], Tensor]:
    """The first-order Taylor model of ``model`` about θ₀ (Kumar et al. §3, the lazy limit):
    ``f_lin(θ, x) = f(θ₀, x) + J(θ₀)(θ − θ₀)``, by one ``torch.func.jvp`` per call (no Jacobian).

    ``params0`` defaults to a detached copy of the module's parameters now; ``θ`` is a dict with
    the same keys (gradients flow through θ, so f_lin can be trained)."""
    P0 = {k: v.detach().clone() for k, v in (params0 or dict(model.named_parameters())).items()}

    def f_lin(params: dict, x: Tensor) -> Tensor:
        tangent = {k: params[k] - P0[k] for k in P0}
        out, dout = jvp(lambda p: functional_call(model, p, (x,)), (P0,), (tangent,))
        return out + dout

    return f_lin


def _fnn_parts(m, x: Tensor):
    """Activations a₀…a_{L−1}, backward signals δ₁…δ_L of g = Σ_c f_c/√k, and the per-token
    signals at the embedding (n, 2, d), of one FNN member ``m`` (:class:`companion.models.fnn.FNNModule`)."""
    P = {n: v.detach() for n, v in m.P.items()}
    E = embedding_matrix({n: v[None] for n, v in P.items()})[0]
    n_layers = len(m.spec.widths) + 1
    acts, pre = [E[x].reshape(x.shape[0], -1)], []
    for i in range(1, n_layers + 1):
        pre.append(acts[-1] @ P[f"W{i}"].T)
        if i < n_layers:
            acts.append(torch.relu(pre[-1]))
    k = pre[-1].shape[-1]
    deltas = [torch.full_like(pre[-1], 1 / math.sqrt(k))]
    for i in range(n_layers, 1, -1):  # δ_{i−1} = (δ_i W_i) ⊙ φ'(z_{i−1})
        deltas.insert(0, (deltas[0] @ P[f"W{i}"]) * (pre[i - 2] > 0))
    d0 = (deltas[0] @ P["W1"]).reshape(x.shape[0], x.shape[1], -1)
    return P, acts, deltas, d0


def fnn_ntk(m, x: Tensor, x2: Tensor | None = None) -> Tensor:
    """:func:`module_ntk` with ``output="sum"`` of one GrokTransfer FNN member ``m``
    (:class:`companion.models.fnn.FNNModule`, a ``table`` or ``lowrank`` embedding of token pairs,
    no ReLU after the embedding), in closed form: a weight W_l contributes (δ_l·δ_l')(a_{l−1}·a_{l−1}');
    a table E contributes Σ_{t,t'} [x_t = x'_t'] δ₀ₜ·δ₀ₜ'; E = A·B contributes
    Σ_{t,t'} (A[x_t]·A[x'_t']) δ₀ₜ·δ₀ₜ' (from B) + [x_t = x'_t'] (Bδ₀ₜ)·(Bδ₀ₜ') (from A).
    Memory is O(n · width); ``(n, n2)``."""
    if m.spec.embed not in ("table", "lowrank") or m.spec.act_after_embed:
        raise ValueError(f"fnn_ntk covers table and lowrank token embeddings, not {m.spec.embed!r}")
    x2 = x if x2 is None else x2
    P, acts, deltas, d0 = _fnn_parts(m, x)
    _, acts2, deltas2, d02 = _fnn_parts(m, x2)
    K = sum((d @ e.T) * (a @ b.T) for d, e, a, b in zip(deltas, deltas2, acts, acts2))
    for t in range(x.shape[1]):
        for u in range(x2.shape[1]):
            same = (x[:, t, None] == x2[None, :, u]).to(K.dtype)
            if "E" in P:
                K = K + same * (d0[:, t] @ d02[:, u].T)
            else:
                B = P["B"]
                K = K + (P["A"][x[:, t]] @ P["A"][x2[:, u]].T) * (d0[:, t] @ d02[:, u].T)
                K = K + same * ((d0[:, t] @ B.T) @ (d02[:, u] @ B.T).T)
    return K


def kernel_regression(K: Tensor, Ks: Tensor, y: Tensor, f0: Tensor | None = None, f0s: Tensor | None = None,
                      ridge: float = 1e-6) -> Tensor:
    """Predictions at the query points of kernel regression on the training points: ``f0s + Ks
    (K + λI)⁻¹ (Y − f0)`` with ``K`` (n, n) the training kernel, ``Ks`` (m, n) query × training, ``Y``
    the one-hot labels of integer ``y`` (or real targets), ``f0``/``f0s`` the initial outputs (the
    linearised model starts from them; None: zero) and λ = ``ridge`` × the mean diagonal of K (a
    ridgeless limit that stays solvable; where K + λI is not numerically positive definite, as for a
    kernel of rank below n, λ grows ×10 until it is). With a network's NTK this is the minimiser of the squared
    error that its linearisation reaches (Kumar et al. §3, Fig. 1). Float64; ``(m, k)``."""
    Y = torch.nn.functional.one_hot(y.long()).double() if not torch.is_floating_point(y) else y.double()
    Y = Y[:, None] if Y.ndim == 1 else Y
    if f0 is not None:
        Y = Y - f0.double()
    K = K.double()
    eye = torch.eye(K.shape[0], dtype=K.dtype, device=K.device)
    scale = float(torch.diagonal(K).mean())
    for _ in range(12):  # a kernel of rank below n (fewer parameters than points) needs a larger ridge
        L, info = torch.linalg.cholesky_ex(K + ridge * scale * eye)
        if int(info) == 0:
            break
        ridge *= 10
    else:
        raise ValueError("kernel regression: K + λI is not positive definite up to λ = 1e6 × its mean diagonal")
    out = Ks.double() @ torch.cholesky_solve(Y, L)
    return out if f0s is None else out + f0s.double()
