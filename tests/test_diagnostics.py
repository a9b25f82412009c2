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
from scipy.special import erfinv
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


# ----------------------------------------------------------------------------- linearisation
def test_linearise_is_exact_for_a_model_linear_in_its_parameters():
    torch.manual_seed(0)
    m = nn.Linear(4, 3).double()  # f(θ, x) = W x + b: linear in θ = (W, b)
    x = torch.randn(5, 4, dtype=torch.float64)
    f_lin = kernels.linearise(m)
    theta = {k: v.detach() + torch.randn_like(v) for k, v in m.named_parameters()}
    torch.testing.assert_close(f_lin(theta, x), torch.func.functional_call(m, theta, (x,)))


def test_linearise_matches_the_model_to_second_order_on_an_mlp():
    m = tiny_mlp()
    x = torch.randn(6, 3, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    P0 = {k: v.detach().clone() for k, v in m.named_parameters()}
    f_lin = kernels.linearise(m, P0)
    g = torch.Generator().manual_seed(3)
    d = {k: torch.randn(v.shape, generator=g, dtype=v.dtype) for k, v in P0.items()}
    torch.testing.assert_close(f_lin(P0, x), m(x))

    def err(eps):
        th = {k: P0[k] + eps * d[k] for k in P0}
        return float((torch.func.functional_call(m, th, (x,)) - f_lin(th, x)).norm())

    ratios = [err(e) / err(e / 2) for e in (1e-2, 5e-3)]
    assert ratios == pytest.approx([4, 4], rel=0.05)  # remainder O(ε²): halving ε quarters it
    # gradients flow through θ, so the linearised model can be trained
    th = {k: v.clone().requires_grad_(True) for k, v in P0.items()}
    f_lin(th, x).sum().backward()
    assert all(v.grad is not None and torch.isfinite(v.grad).all() for v in th.values())


# ----------------------------------------------------------------------------- clocks
def sigmoid_history(mid, width=20.0, lo=0.2, hi=0.9, n=2001):
    steps = np.arange(n) * 5
    return steps, lo + (hi - lo) / (1 + np.exp(-(steps - mid) / width))


@pytest.mark.parametrize("mid", [1500, 4000, 7000])
def test_crossing_step_finds_a_sigmoid_s_midpoint(mid):
    from companion.measures import clocks

    steps, v = sigmoid_history(mid)
    t = clocks.crossing_step(steps, v, t_tr=500)
    # from v(500) ≈ 0.2 to the max ≈ 0.9: halfway is the midpoint, on the 5-step grid
    assert isinstance(t, int) and mid <= t <= mid + 5
    # a falling diagnostic: the extremum is the min
    t_down = clocks.crossing_step(steps, 1 - v, t_tr=500)
    assert t_down == t
    # ¼ and ¾ of the way: the sigmoid's logit ∓ ln 3 (value within one grid step)
    for f in (0.25, 0.75):
        t_f = clocks.crossing_step(steps, v, t_tr=500, fraction=f)
        assert abs(t_f - (mid + 20 * math.log(f / (1 - f)))) <= 6


def test_a_signed_crossing_needs_its_own_direction_and_size():
    from companion.events import NOT_OBSERVED
    from companion.measures import clocks

    steps, v = sigmoid_history(4000)
    assert clocks.crossing_step(steps, v, 500, direction=+1) == clocks.crossing_step(steps, v, 500)
    assert clocks.crossing_step(steps, v, 500, direction=-1) is NOT_OBSERVED  # it rises: no fall to cross
    assert clocks.crossing_step(steps, 1 - v, 500, direction=-1) == clocks.crossing_step(steps, v, 500)
    wiggle = 1.43 - 0.02 * v  # 1.43 → 1.41: a 1.4% move
    assert clocks.crossing_step(steps, wiggle, 500, direction=-1) != NOT_OBSERVED
    assert clocks.crossing_step(steps, wiggle, 500, rtol=0.1, direction=-1) is NOT_OBSERVED


def test_crossing_step_is_not_observed_for_a_flat_curve_or_a_missing_t_tr():
    from companion.events import NOT_OBSERVED
    from companion.measures import clocks

    steps = np.arange(100) * 10
    flat = np.full(100, 3.0) + 1e-6 * np.sin(np.arange(100))  # moves by 3e-7 of its size: "never"
    assert clocks.crossing_step(steps, flat, t_tr=200) is NOT_OBSERVED
    assert clocks.crossing_step(steps, np.zeros(100), t_tr=200) is NOT_OBSERVED
    _, v = sigmoid_history(300, n=100)
    assert clocks.crossing_step(steps, v, t_tr=NOT_OBSERVED) is NOT_OBSERVED
    assert clocks.crossing_step(steps, v, t_tr=5000) is NOT_OBSERVED
    # the value at t_tr counts from the first logged step at or after t_tr
    assert clocks.crossing_step(steps, v, t_tr=195) == clocks.crossing_step(steps, v, t_tr=200)


def forecast_ratios(lam, eps, eta=0.01):
    """(Δt̂/Δt from :func:`clocks.forecast_delay` on sampled theory curves, the same ratio from
    companion.theory.linear_estimators alone): the exact losses (Eq. 8) at the exact t_tr, and the
    test loss's log-decay rate from Eq. 20, −d ln L_gen/dt = 4η L_tr/L_gen."""
    from companion.measures import clocks
    from companion.theory import linear_estimators as le

    t_tr, t_gen, dt = le.grok_times(lam, eps, le.grok_threshold_erf2(), eta)
    ltr, lgen = (v[0] for v in le.losses(np.array([t_tr]), lam, eta))
    ratio_ref = math.log(lgen / ltr) / (4 * eta * ltr / lgen) / dt
    steps = np.linspace(0.5 * t_tr, 1.2 * t_tr, 1401)
    L_tr, L_gen = le.losses(steps, lam, eta)
    return clocks.forecast_delay(steps, L_tr, L_gen, t_tr, window=0.01) / dt, ratio_ref


@pytest.mark.parametrize("lam,eps", [(0.5, 1e-3), (0.9, 1e-3)])
def test_forecast_delay_matches_the_exact_linear_theory(lam, eps):
    ratio, ratio_ref = forecast_ratios(lam, eps)
    assert ratio == pytest.approx(ratio_ref, rel=5e-3)
    assert ratio <= 1  # the linear model's log-decay only slows down


def test_forecast_ratio_tends_to_one_as_the_threshold_loss_shrinks():
    """Eq. 10: late on L_gen/L_tr → (1 − √λ)⁻² and r → 4η(1 − √λ)², so Δt̂ and Δt both tend to Eq. 11 as
    ε → 0 (slowly: Eq. 25's correction is O(1/ln(1/ε))); the forecast ratio rises towards 1."""
    (r3, _), (r6, ref6) = forecast_ratios(0.9, 1e-3), forecast_ratios(0.9, 1e-6)
    assert r6 == pytest.approx(ref6, rel=5e-3)
    assert r3 < r6 <= 1


def test_forecast_delay_edge_cases():
    from companion.events import NOT_OBSERVED
    from companion.measures import clocks

    steps = np.arange(1, 101, dtype=float)
    tr = np.exp(-0.1 * steps)
    te = 5 * np.exp(-0.05 * steps)  # ln 5 above, decaying at 0.05: Δt̂ = ln 5/0.05 exactly
    assert clocks.forecast_delay(steps, tr, te, 20) == pytest.approx(math.log(5 * math.exp(-1) / math.exp(-2)) / 0.05)
    assert clocks.forecast_delay(steps, tr, 2 - np.exp(-0.05 * steps), 20) == math.inf  # test loss rising
    assert clocks.forecast_delay(steps, tr, tr / 2, 20) == 0.0
    assert clocks.forecast_delay(steps, tr, te, NOT_OBSERVED) is NOT_OBSERVED


def test_threshold_stretch_is_one_where_levi_et_al_s_mechanism_is_exact():
    """Accuracy Erf(√(ε/2L)) of a loss decaying exactly exponentially: the climb from 0.5 to 0.95 takes
    (2/r)·ln(erfinv 0.95 / erfinv 0.5), whatever ε — computed here by solving L(t) = ε/(2 erfinv(θ)²) for t."""
    from scipy.special import erf

    from companion.measures import clocks

    r, eps, t_tr = 2e-3, 1e-3, 500
    steps = np.arange(1, 20001, dtype=float)
    loss = np.exp(-r * steps)
    acc = erf(np.sqrt(eps / (2 * loss)))
    t_at = [math.log(2 * erfinv(th) ** 2 / eps) / r for th in (0.5, 0.95)]  # L(t) = ε/(2 erfinv(θ)²)
    assert t_at[0] > t_tr
    assert clocks.threshold_stretch(steps, acc, loss, t_tr) == pytest.approx(
        (t_at[1] - t_at[0]) / (2 / r * math.log(erfinv(0.95) / erfinv(0.5))), rel=1e-3)
    assert clocks.threshold_stretch(steps, acc, loss, t_tr) == pytest.approx(1.0, rel=1e-3)


def test_threshold_stretch_of_a_jump_a_slowing_decay_and_missing_events():
    from companion.events import NOT_OBSERVED
    from companion.measures import clocks

    steps = np.arange(1, 20001, dtype=float)
    loss = np.exp(-2e-3 * steps)
    jump = (steps >= 5000).astype(float)  # every threshold crossed within one step: far sharper than the loss
    assert 0 < clocks.threshold_stretch(steps, jump, loss, 1000) < 1e-3
    slowing = 1 / (1 + 2e-3 * steps) ** 2  # ln L convex: the decay slows after t_tr, so the climb takes longer
    from scipy.special import erf

    acc = erf(np.sqrt(1e-2 / (2 * slowing)))
    assert clocks.threshold_stretch(steps, acc, slowing, 30) > 1
    assert clocks.threshold_stretch(steps, jump, 2 - loss, 1000) == 0.0  # test loss rising: Ŝ infinite
    assert clocks.threshold_stretch(steps, 0.5 * jump, loss, 1000) is NOT_OBSERVED  # never reaches 0.95
    assert clocks.threshold_stretch(steps, jump, loss, 6000) is NOT_OBSERVED  # already above 0.5 at t_tr
    assert clocks.threshold_stretch(steps, jump, loss, NOT_OBSERVED) is NOT_OBSERVED
    with pytest.raises(ValueError):
        clocks.threshold_stretch(steps, jump, loss, 1000, lo=0.9, hi=0.5)


# ----------------------------------------------------------------------------- embedding measures
def brute_med_invariant(W, p):
    """min over c of MED (companion's med) of the rows relabelled a → c·a mod p, over the RMS row norm,
    with an explicit loop over rows."""
    from companion.measures.embedding import med

    best = math.inf
    for c in range(1, p):
        R = torch.stack([W[(c * a) % p] for a in range(p)])
        rms = math.sqrt(sum(float(R[a].double().norm()) ** 2 for a in range(p)) / p)
        best = min(best, med(R, p) / rms)
    return best


def test_med_variants_on_a_pure_fourier_embedding():
    """φ(a) = s(cos 2πka/p, sin 2πka/p, 0…): ‖φ(a+1) − φ(a)‖ = 2s sin(πk/p), RMS row norm s, so the
    normalised MED is 2 sin(πk/p) and the invariant one 2 sin(π/p) (c = k⁻¹ mod p makes kc ≡ 1)."""
    from companion.measures.embedding import med, med_invariant, med_normalised

    p, s = 13, 3.7
    a = torch.arange(p, dtype=torch.float64)
    for k in (1, 4, 6):
        W = torch.zeros(p + 1, 8, dtype=torch.float64)
        W[:p, 2] = s * torch.cos(2 * math.pi * k * a / p)
        W[:p, 5] = s * torch.sin(2 * math.pi * k * a / p)
        W[p] = 50.0  # the "=" token: not part of any MED
        assert med(W, p) == pytest.approx(2 * s * math.sin(math.pi * k / p), rel=1e-12)
        assert med_normalised(W, p) == pytest.approx(2 * math.sin(math.pi * k / p), rel=1e-12)
        assert med_invariant(W, p) == pytest.approx(2 * math.sin(math.pi / p), rel=1e-12)


def test_med_invariant_is_invariant_under_unit_relabelling_and_scale_and_matches_brute_force():
    from companion.measures.embedding import med_invariant, med_normalised

    p = 11
    W = torch.randn(p + 1, 6, generator=torch.Generator().manual_seed(0))
    base = med_invariant(W, p)
    assert base == pytest.approx(brute_med_invariant(W, p), rel=1e-6)
    for c in (2, 3, 7, 10):
        perm = torch.tensor([(c * i) % p for i in range(p)] + [p])
        assert med_invariant(W[perm], p) == pytest.approx(base, rel=1e-9)
    assert med_invariant(4.5 * W, p) == pytest.approx(base, rel=1e-6)  # W is float32
    assert med_normalised(0.01 * W, p) == pytest.approx(med_normalised(W, p), rel=1e-6)
    assert med_invariant(W, p) <= med_normalised(W, p)
    # with an offset, both operand blocks are relabelled by the same c
    W2 = torch.randn(2 * p + 1, 6, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    perm2 = torch.tensor([(3 * i) % p for i in range(p)] + [p + (3 * i) % p for i in range(p)] + [2 * p])
    assert med_invariant(W2[perm2], p, offset=p) == pytest.approx(med_invariant(W2, p, offset=p), rel=1e-9)
    assert med_invariant(W2, p, offset=p) <= med_normalised(W2, p, offset=p)


def test_param_norm_sq_is_the_weight_norm_squared():
    from companion.measures.embedding import param_norm_sq

    m = tiny_mlp()
    ref = sum(float((q.detach() ** 2).sum()) for q in m.parameters())
    assert param_norm_sq(m) == pytest.approx(ref, rel=1e-12)


# ----------------------------------------------------------------------------- transfer probe
def test_transfer_probe_ranks_a_grokked_embedding_above_a_random_one():
    """p = 23: a table-embedding FNN (d = 8, width 64, AdamW lr 1e-2, wd 1) trained 1200 steps on 60%
    of a + b mod 23 first fits the training set, then its test accuracy rises (grokking); a probe
    target initialised from its embedding learns the task in 100 steps far better than one
    initialised from a random embedding of the same shape, as does the pure Fourier embedding."""
    from companion.data.embeddings import Pairs
    from companion.data.modular import modular_arithmetic
    from companion.models import fnn
    from companion.train.groktransfer import EnsembleTraining, train_ensemble, transfer_probe

    p = 23
    spec = fnn.FNNSpec("table", p, 8, (64,), p)
    h = train_ensemble(fnn.init_params(spec, [1.0], 0), spec, Pairs(modular_arithmetic(p, "add", 0.6, 0)),
                       EnsembleTraining(1e-2, 1.0, 1200, 100))
    assert h["test_acc"][0, 3] < 0.1 < 0.5 < h["test_acc"][0, -1]  # late generalisation
    grokked = h["params"]["E"][0]
    random = torch.randn(p, 8, generator=torch.Generator().manual_seed(5))
    a = torch.arange(p, dtype=torch.float64)
    fourier = torch.stack([torch.cos(2 * math.pi * a / p), torch.sin(2 * math.pi * a / p)], 1)
    kw = dict(steps=100, n_seeds=3, train_frac=0.5)
    acc_g, acc_r, acc_f = (transfer_probe(E, p, **kw) for E in (grokked, random, fourier))
    assert acc_g > acc_r + 0.3 and acc_f > acc_r + 0.3
    assert transfer_probe(grokked, p, **kw) == acc_g  # deterministic
    # scale-free up to rounding: 3E normalised differs from E normalised in the last bit, which 100 steps can turn
    # into a flipped prediction or two among the 3 × 265 test pairs (one flip = 0.0013; seen on one CPU, not another)
    assert transfer_probe(3 * grokked, p, **kw) == pytest.approx(acc_g, abs=0.01)


def test_clocks_take_float32_tensors_and_keep_their_dtype_at_thresholds():
    from companion.measures import clocks

    steps = torch.arange(10)
    acc = torch.tensor([0, 0, 0, 0.5, 0.85, 0.85, 0.9, 0.9, 0.95, 0.95], dtype=torch.float32)
    # float32(0.95) < 0.95: compared in float64 the 0.95 threshold would be missed (the climb: steps 3 to 8)
    loss = torch.exp(-0.1 * steps.double())
    r = clocks.decay_rate(steps, loss, 2)
    assert r == pytest.approx(0.1)
    assert clocks.threshold_stretch(steps, acc, loss, 2) == pytest.approx(
        (8 - 3) / (2 / r * math.log(erfinv(0.95) / erfinv(0.5))))
    assert clocks.crossing_step(steps, acc, 2) == 3  # halfway from 0 to 0.95


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_diagnostics_run_on_cuda():
    from companion.measures import clocks
    from companion.measures.embedding import med_invariant, med_normalised

    m = tiny_mlp()
    x = torch.randn(9, 3, dtype=torch.float64)
    K_cpu = kernels.module_ntk(m, x, chunk=4)
    K = kernels.module_ntk(m.cuda(), x.cuda(), chunk=4)
    torch.testing.assert_close(K.cpu(), K_cpu)
    y = torch.tensor([0, 1, 2] * 3)
    assert kernels.centred_alignment(K, y.cuda()) == pytest.approx(kernels.centred_alignment(K_cpu, y))
    P = {k: v.detach() for k, v in m.named_parameters()}
    torch.testing.assert_close(kernels.linearise(m)(P, x.cuda()), m(x.cuda()))
    W = torch.randn(12, 4)
    assert med_invariant(W.cuda(), 11) == pytest.approx(med_invariant(W, 11))
    assert med_normalised(W.cuda().float(), 11) == pytest.approx(med_normalised(W, 11))
    s = torch.arange(100, device="cuda")
    assert clocks.crossing_step(s, torch.sigmoid((s - 50.0) / 3), 10) == 50


def test_module_ntk_of_an_fnn_member_module_equals_the_groktransfer_pntk():
    """Another route: companion.measures.pntk (autograd Jacobian of the flattened parameters) on one
    member of a GrokTransfer FNN ensemble, against module_ntk of that member as a module
    (companion.models.fnn.FNNModule, the one definition of an ensemble member as a module)."""
    from companion.measures import pntk
    from companion.models import fnn

    spec = fnn.FNNSpec("table", 7, 4, (8,), 7)
    P = {k: v.detach().double() for k, v in fnn.init_params(spec, [1.0, 0.5], seed=0).items()}

    def one(params, x):
        return fnn.forward(params, spec, x)[0]

    x = torch.tensor([[a, b] for a in range(7) for b in range(7)])[::4]
    K = kernels.module_ntk(fnn.FNNModule(spec, P, k=1), x, chunk=5)
    torch.testing.assert_close(K, pntk.pntk(one, {k: v[1:2] for k, v in P.items()}, x))


@pytest.mark.parametrize("embed", ["table", "lowrank"])
def test_fnn_ntk_in_closed_form_equals_the_autograd_kernel(embed):
    """Two routes to one FNN member's pNTK: per-layer closed form against per-example Jacobians."""
    from companion.models import fnn

    spec = fnn.FNNSpec(embed, 7, 4, (8, 6), 7, rank=3 if embed == "lowrank" else 0)
    A = torch.randn(1, 7, 3, generator=torch.Generator().manual_seed(1)) if embed == "lowrank" else None
    m = fnn.FNNModule(spec, {k: v.double() for k, v in fnn.init_params(spec, [1.0], seed=0, A=A).items()})
    pairs = torch.tensor([[a, b] for a in range(7) for b in range(7)])
    x, x2 = pairs[::3], pairs[1::4]
    torch.testing.assert_close(kernels.fnn_ntk(m, x, x2), kernels.module_ntk(m, x, x2))
    torch.testing.assert_close(kernels.fnn_ntk(m, x), kernels.module_ntk(m, x))


def test_kernel_regression_with_a_linear_kernel_is_least_squares():
    """Another route: with K = X Xᵀ (n < d) ridgeless kernel regression is the minimum-norm
    interpolant X_s Xᵀ(X Xᵀ)⁻¹(Y − f0) + f0s, i.e. the pseudo-inverse solution."""
    g = torch.Generator().manual_seed(0)
    X, Xs = torch.randn(12, 30, generator=g, dtype=torch.float64), torch.randn(5, 30, generator=g, dtype=torch.float64)
    y = torch.randint(0, 3, (12,), generator=g)
    f0, f0s = torch.randn(12, 3, generator=g, dtype=torch.float64), torch.randn(5, 3, generator=g, dtype=torch.float64)
    Y = torch.nn.functional.one_hot(y, 3).double()
    W = torch.linalg.pinv(X) @ (Y - f0)
    got = kernels.kernel_regression(X @ X.T, Xs @ X.T, y, f0, f0s, ridge=1e-12)
    torch.testing.assert_close(got, Xs @ W + f0s)
    torch.testing.assert_close(kernels.kernel_regression(X @ X.T, X @ X.T, y, ridge=1e-12), Y)


# ----------------------------------------------------------------------------- linear algebra
def test_batched_solve_works_on_two_threads_where_torch_linalg_solve_fails():
    """pytorch#142815: a batch of 151×151 systems breaks MKL's solve at 2 threads; the library's
    solve gives the exact answer (A = diag(d) per batch, so x = b / d) and restores the thread count."""
    from companion.linalg import solve

    n, before = torch.get_num_threads(), 2
    torch.set_num_threads(before)
    try:
        d = torch.arange(1, 152, dtype=torch.float64)
        A = torch.stack([torch.diag(d), torch.diag(2 * d)])
        b = torch.ones(2, 151, 1, dtype=torch.float64)
        x = solve(A, b)
        assert torch.get_num_threads() == before
    finally:
        torch.set_num_threads(n)
    assert torch.equal(x[0, :, 0], 1 / d) and torch.allclose(x[1, :, 0], 1 / (2 * d), rtol=0, atol=1e-15)
