"""The synthesis chapter's diagnostics (issue 17, item 1), each checked by an independent route:
the chunked NTK against the full autograd Jacobian, the unbiased alignment against the U-statistic
written out with loops, the linearisation against a model linear in its parameters and against
the Taylor remainder, the MED variants against brute force, Levi's forecast against the exact
linear theory."""

import itertools
import math

import numpy as np
import pytest
import torch
from torch import nn

from companion.measures import kernels
from companion.models.transformer import Transformer, TransformerConfig


# ----------------------------------------------------------------------------- NTK
def full_jacobian_ntk(model, x, x2, output):
    """Reference: torch.autograd.functional.jacobian of the whole output on the flat parameter vector."""
    names = [k for k, _ in model.named_parameters()]
    shapes = [q.shape for _, q in model.named_parameters()]
    sizes = [q.numel() for _, q in model.named_parameters()]
    theta = torch.cat([q.detach().reshape(-1) for _, q in model.named_parameters()])

    def f(th, X):
        P = {k: t.view(s) for k, t, s in zip(names, torch.split(th, sizes), shapes)}
        out = torch.func.functional_call(model, P, (X,))
        k = out.shape[-1]
        if output == "sum":
            return out.sum(-1) / math.sqrt(k)
        if output == "logit":
            return out.reshape(-1) / math.sqrt(k)  # rows (example, logit)
        return out[:, output]

    JA = torch.autograd.functional.jacobian(lambda th: f(th, x), theta)
    JB = torch.autograd.functional.jacobian(lambda th: f(th, x2), theta)
    K = JA @ JB.T
    if output == "logit":  # sum over logits of each logit's kernel
        k = K.shape[0] // x.shape[0]
        K = K.reshape(x.shape[0], k, x2.shape[0], k).diagonal(dim1=1, dim2=3).sum(-1)
    return K


def tiny_mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 6), nn.Tanh(), nn.Linear(6, 4)).double()


def tiny_transformer():
    return Transformer(TransformerConfig(p=5, d_model=8, n_heads=2, d_mlp=16), seed=1).double()


@pytest.mark.parametrize("output", ["sum", "logit", 2])
@pytest.mark.parametrize("chunk", [1, 3, 64])
def test_module_ntk_equals_the_full_autograd_jacobian_on_an_mlp(output, chunk):
    m = tiny_mlp()
    g = torch.Generator().manual_seed(0)
    x = torch.randn(7, 3, generator=g, dtype=torch.float64)
    x2 = torch.randn(5, 3, generator=g, dtype=torch.float64)
    ref = full_jacobian_ntk(m, x, x, output)
    torch.testing.assert_close(kernels.module_ntk(m, x, output=output, chunk=chunk), ref)
    ref2 = full_jacobian_ntk(m, x, x2, output)
    torch.testing.assert_close(kernels.module_ntk(m, x, x2, output=output, chunk=chunk), ref2)
    # without the Jacobian cache (recomputed per block) the kernel is the same
    torch.testing.assert_close(kernels.module_ntk(m, x, x2, output=output, chunk=chunk, cache_elems=0), ref2)


@pytest.mark.parametrize("output", ["sum", 0])
@pytest.mark.parametrize("chunk", [2, 5, 64])
def test_module_ntk_equals_the_full_autograd_jacobian_on_a_transformer(output, chunk):
    m = tiny_transformer()
    tok = torch.tensor([[a, b, 5] for a in range(5) for b in range(5)])[::3]  # 9 prompts
    torch.testing.assert_close(kernels.module_ntk(m, tok, output=output, chunk=chunk),
                               full_jacobian_ntk(m, tok, tok, output))


def test_module_ntk_of_a_scalar_model_and_of_a_parameter_snapshot():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1)).double()
    x = torch.randn(6, 3, dtype=torch.float64)
    ref = full_jacobian_ntk(m, x, x, 0)  # one output: the model itself
    torch.testing.assert_close(kernels.module_ntk(m, x, chunk=4), ref)
    snap = {k: 2 * v.detach() for k, v in m.named_parameters()}
    K_snap = kernels.module_ntk(m, x, params=snap)
    with torch.no_grad():
        for q in m.parameters():
            q.mul_(2)
    torch.testing.assert_close(K_snap, full_jacobian_ntk(m, x, x, 0))


def test_module_ntk_keeps_float32():
    m = tiny_mlp().float()
    x = torch.randn(4, 3)
    assert kernels.module_ntk(m, x).dtype == torch.float32


def test_stratified_probe_is_balanced_deterministic_and_without_repeats():
    y = torch.tensor([0] * 30 + [1] * 4 + [2] * 50 + [3] * 16)
    idx = kernels.stratified_probe(y, 20, seed=3)
    assert len(idx) == len(set(idx.tolist())) == 20
    counts = torch.bincount(y[idx], minlength=4)
    assert counts.tolist()[1] == 4 and max(counts) - min(counts[[0, 2, 3]]) <= 1  # class 1 gives up its share
    assert torch.equal(idx, kernels.stratified_probe(y, 20, seed=3))
    assert not torch.equal(idx, kernels.stratified_probe(y, 20, seed=4))
    counts12 = torch.bincount(y[kernels.stratified_probe(y, 12, seed=0)], minlength=4)
    assert counts12.tolist() == [3, 3, 3, 3]


def test_kernel_distance_lives_in_kernels_and_the_old_import_still_works():
    from companion.measures import pntk

    K = torch.eye(3) + 0.1
    assert pntk.kernel_distance is kernels.kernel_distance
    assert abs(kernels.kernel_distance(K, 5 * K)) < 1e-6
    assert kernels.kernel_distance(torch.eye(2), torch.tensor([[0.0, 1.0], [1.0, 0.0]])) == pytest.approx(1.0)


# ----------------------------------------------------------------------------- alignment
def hsic_u_statistic(K, L):
    """HSIC as the U-statistic of Song et al. (2012, Thm 1), written out over distinct index tuples:
    E[k_ij l_ij] + E[k_ij] E[l_qr] − 2 E[k_ij l_iq], each mean over all tuples of distinct indices."""
    n = K.shape[0]
    t1 = np.mean([K[i, j] * L[i, j] for i, j in itertools.permutations(range(n), 2)])
    t2 = np.mean([K[i, j] * L[q, r] for i, j, q, r in itertools.permutations(range(n), 4)])
    t3 = np.mean([K[i, j] * L[i, q] for i, j, q in itertools.permutations(range(n), 3)])
    return t1 + t2 - 2 * t3


def test_unbiased_alignment_equals_its_u_statistic_definition():
    g = torch.Generator().manual_seed(0)
    X = torch.randn(6, 3, generator=g, dtype=torch.float64)
    K = X @ X.T + torch.exp(-torch.cdist(X, X))
    y = torch.tensor([0, 1, 2, 0, 1, 1])
    L = torch.nn.functional.one_hot(y).double() @ torch.nn.functional.one_hot(y).double().T
    Kn, Ln = K.numpy(), L.numpy()
    for A, B in ((Kn, Ln), (Kn, Kn), (Ln, Ln)):
        assert float(kernels.hsic_unbiased(torch.tensor(A), torch.tensor(B))) == pytest.approx(
            hsic_u_statistic(A, B), rel=1e-10, abs=1e-12)
    ref = hsic_u_statistic(Kn, Ln) / math.sqrt(hsic_u_statistic(Kn, Kn) * hsic_u_statistic(Ln, Ln))
    assert kernels.centred_alignment(K, y) == pytest.approx(ref, rel=1e-10)
    # real targets: the target kernel is y yᵀ
    yr = torch.randn(6, generator=g, dtype=torch.float64)
    Lr = (yr[:, None] * yr[None, :]).numpy()
    ref_r = hsic_u_statistic(Kn, Lr) / math.sqrt(hsic_u_statistic(Kn, Kn) * hsic_u_statistic(Lr, Lr))
    assert kernels.centred_alignment(K, yr) == pytest.approx(ref_r, rel=1e-10)


def test_biased_alignment_is_the_cortes_formula():
    g = torch.Generator().manual_seed(1)
    X = torch.randn(8, 2, generator=g, dtype=torch.float64)
    K = X @ X.T
    y = X[:, 0]
    H = torch.eye(8, dtype=torch.float64) - 1 / 8
    Kc, Lc = H @ K @ H, H @ torch.outer(y, y) @ H
    ref = float(torch.trace(Kc @ Lc) / torch.sqrt(torch.trace(Kc @ Kc) * torch.trace(Lc @ Lc)))
    assert kernels.centred_alignment(K, y, unbiased=False) == pytest.approx(ref, rel=1e-12)


def mean_alignment(n, reps, unbiased, seed=0):
    """Mean alignment over ``reps`` probe sets of size n drawn from one population: x ~ N(0, I_20),
    the linear kernel ⟨x, x'⟩ (a diagonal ≈ 20 against off-diagonal entries ≈ √20), label sign(x₀)."""
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(reps, n, 20, generator=g, dtype=torch.float64)
    vals = [kernels.centred_alignment(Xr @ Xr.T, (Xr[:, 0] > 0).long(), unbiased=unbiased) for Xr in X]
    vals = np.asarray(vals)
    assert np.isnan(vals).mean() < 0.01  # NaN: a probe set whose self-HSIC estimate is not positive
    return float(np.nanmean(vals)), float(np.nanstd(vals) / math.sqrt(reps))


def test_biased_alignment_drifts_with_the_probe_count_and_the_unbiased_one_does_not():
    small_b, _ = mean_alignment(16, 400, unbiased=False)
    large_b, _ = mean_alignment(512, 8, unbiased=False)
    small_u, se_small = mean_alignment(16, 400, unbiased=True)
    large_u, se_large = mean_alignment(512, 8, unbiased=True)
    # population value: HSIC(k, l)/√(HSIC(k,k) HSIC(l,l)) = E[|x₀|]²/√(20) = (2/π)/√20 ≈ 0.142
    pop = (2 / math.pi) / math.sqrt(20)
    assert large_u == pytest.approx(pop, abs=4 * se_large + 0.01)
    assert small_u == pytest.approx(pop, abs=4 * se_small + 0.02)
    assert small_b - large_b > 0.08  # the biased estimate is dragged up by the kernel's diagonal, by O(1/n)
    assert abs(large_u - small_u) < 0.5 * abs(large_b - small_b)
