"""Kumar et al. (2024), lazy → rich: each piece of maths checked by an independent route."""

import math

import numpy as np
import pytest
import torch

from companion.measures import ntk as ntkm
from companion.models.committee import activation, hermite
from companion.theory import lazy_rich as th
from companion.train.committee import CommitteeTraining, run_committee
from companion.train.fit import log_steps

DT = torch.float64
torch.set_num_threads(1)  # small problems: one thread is many times faster on a shared 2-core box


def _setup(S=2, D=12, P=50, N=30, seed=0, sigma=1.0):
    task = th.quadratic_task(D, P, seed, batch=S)
    W0 = sigma * torch.randn(S, N, D, generator=torch.Generator().manual_seed(seed + 1), dtype=DT)
    return task, W0


def test_closure_shared_inputs_one_product_per_block():
    """Runs on the same inputs (a float32 sweep) take the block path (Φ = vec(x1 x1ᵀ) once per block):
    the same curves as the per-run products, and as float64, up to float32 rounding."""
    task, W0 = _setup()
    w, M = th.init_stats(W0)
    S = 8
    X, y, T = (task[k][:1].expand(S, *task[k].shape[1:]).contiguous() for k in ("X", "y", "T"))
    w, M = w[:1].expand(S, -1).contiguous(), M[:1].expand(S, -1, -1).contiguous()
    alpha = torch.linspace(0.5, 3.0, S, dtype=DT)
    la = log_steps(400, 10)
    X1 = torch.cat([X, torch.ones(S, X.shape[1], 1, dtype=DT)], -1)
    assert th._shared_outer(X1.float()) is not None and th._shared_outer(X1) is None
    f32 = [v.float() for v in (X, y, T, w, M, alpha)]
    a = th.run_closure(*f32[:5], f32[5], 0.2, 0.7, 400, la)
    b = th.run_closure(X, y, T, w, M, alpha, 0.2, 0.7, 400, la)
    for key in ("train_loss", "test_loss", "rel_change2"):
        np.testing.assert_allclose(a[key], b[key], rtol=2e-3, atol=1e-7)


@pytest.mark.parametrize("centred", [True, False])
def test_closure_equals_neuron_simulation(centred):
    """§2.6 closure (w̄, M recursion) == neuron-level GD, train and eq. 6 test loss."""
    task, W0 = _setup()
    w, M = th.init_stats(W0)
    la = log_steps(800, 15)
    alpha, eps = torch.tensor([1.0, 3.0], dtype=DT), torch.tensor([0.1, 0.3], dtype=DT)
    a = th.run_closure(task["X"], task["y"], task["T"], w, M, alpha, eps, 0.7, 800, la, centred=centred)
    b = run_committee(task["X"], task["y"], W0, CommitteeTraining(alpha, eps, 0.7, 800, la, centred=centred),
                      T=task["T"])
    assert np.abs(b["train_loss"][:, -1] / b["train_loss"][:, 0]).max() < 0.9  # it learnt something
    np.testing.assert_allclose(a["train_loss"], b["train_loss"], rtol=1e-9)
    np.testing.assert_allclose(a["test_loss"], b["test_loss"], rtol=1e-9)
    np.testing.assert_allclose(np.sqrt(a["rel_change2"]), b["rel_change"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(np.sqrt(30 * a["weight_norm2"]), b["weight_norm"], rtol=1e-9)


def test_eq6_population_loss_against_monte_carlo():
    """Eq. 6 (variance + misalignment + linear power) == E_x[(f̃ − y)²] sampled."""
    D = 8
    g = torch.Generator().manual_seed(3)
    beta = torch.randn(1, D, generator=g, dtype=DT)
    A = torch.randn(D, D, generator=g, dtype=DT)
    M = (A @ A.T / D)[None]
    wbar = torch.randn(1, D, generator=g, dtype=DT) * 0.3
    alpha, eps = 1.3, 0.4
    terms = th.eq6_terms(wbar, M, beta, alpha, eps)
    gen = th.population_terms(alpha * wbar, alpha * eps / 2 * M - 0.5 * beta[0, :, None] * beta[0, None, :], D)
    assert torch.allclose(terms["total"], gen["total"], rtol=1e-12)
    X = torch.randn(400_000, D, generator=g, dtype=DT) / math.sqrt(D)
    f = alpha * X @ wbar[0] + alpha * eps / 2 * ((X @ M[0]) * X).sum(-1)
    mc = ((f - 0.5 * (X @ beta[0]) ** 2) ** 2).mean()
    assert abs(mc.item() / terms["total"].item() - 1) < 0.02


def test_ntk_from_stats_equals_autograd_ntk():
    """Eq. 5 NTK from (w̄, M) (times α²/N) == J Jᵀ of the committee machine by autograd."""
    D, N, alpha, eps = 6, 7, 1.7, 0.3
    g = torch.Generator().manual_seed(0)
    W = torch.randn(N, D, generator=g, dtype=DT)
    X = torch.randn(9, D, generator=g, dtype=DT)

    def f(p, Xq):
        H = Xq @ p.reshape(N, D).T
        return alpha / N * (H + eps / 2 * H ** 2).sum(-1)

    K_auto = ntkm.empirical_ntk(f, W.reshape(-1), X)
    w, M = th.init_stats(W[None])
    K = alpha ** 2 / N * th.ntk_from_stats(X[None], X[None], w, M, eps)[0]
    assert torch.allclose(K, K_auto, rtol=1e-10)


def test_kernel_alignment_literal_formula():
    """Centred alignment == ỹᵀKỹ / (‖K − 1mᵀ‖_F ‖ỹ‖²) written with loops; scale invariant."""
    g = torch.Generator().manual_seed(1)
    A = torch.randn(10, 10, generator=g, dtype=DT)
    K, y = A @ A.T, torch.randn(10, generator=g, dtype=DT)
    yc = [v - y.mean() for v in y]
    num = sum(yc[i] * K[i, j] * yc[j] for i in range(10) for j in range(10))
    m = [K[:, j].mean() for j in range(10)]
    fro = math.sqrt(sum((K[i, j] - m[j]) ** 2 for i in range(10) for j in range(10)))
    ref = num / (fro * sum(v * v for v in yc))
    assert abs(ntkm.kernel_alignment(K, y).item() - ref.item()) < 1e-12
    assert abs(ntkm.kernel_alignment(5 * K, y).item() - ref.item()) < 1e-12


def test_k0_regression_as_quadratic_predictor():
    """The (a, Q) expansion of K0 regression == K(X_t, X) K⁻¹ y at fresh points; interpolates."""
    task, W0 = _setup(S=1, D=6, P=15, N=5)
    w, M = th.init_stats(W0)
    eps = 0.5
    a, Q = th.k0_regression_coeffs(task["X"], task["y"], w, M, eps)
    Xt = torch.randn(1, 20, 6, generator=torch.Generator().manual_seed(9), dtype=DT)
    pred = (Xt @ a[..., None])[..., 0] + th.quad_form(Xt, Q)
    ref = ntkm.kernel_regression(th.ntk_from_stats(task["X"], task["X"], w, M, eps),
                                 th.ntk_from_stats(Xt, task["X"], w, M, eps), task["y"])
    assert torch.allclose(pred, ref, rtol=1e-7, atol=1e-9)
    train_pred = (task["X"] @ a[..., None])[..., 0] + th.quad_form(task["X"], Q)
    assert torch.allclose(train_pred, task["y"], atol=1e-8)


def test_linearised_three_ways():
    """Linearised net: (Δw̄, C) closure == neuron-level linearisation == closed-form kernel GD."""
    task, W0 = _setup(S=1, D=8, P=30, N=20)
    w, M = th.init_stats(W0)
    la = log_steps(300, 10)
    g = torch.Generator().manual_seed(5)
    Xt = torch.randn(1, 40, 8, generator=g, dtype=DT) / math.sqrt(8)
    yt = th.quad_form(Xt, task["T"])
    for centred in (True, False):
        a = th.run_closure(task["X"], task["y"], task["T"], w, M, 1.5, 0.2, 1.0, 300, la, centred=centred,
                           linearised=True)
        b = th.linearised_exact(task["X"], task["y"], task["T"], w, M, 1.5, 0.2, 1.0, la, centred=centred)
        c = run_committee(task["X"], task["y"], W0, CommitteeTraining(1.5, 0.2, 1.0, 300, la, centred=centred,
                                                                       linearised=True),
                          X_test=task["X"], y_test=task["y"])
        np.testing.assert_allclose(a["train_loss"], b["train_loss"], rtol=1e-8)
        np.testing.assert_allclose(a["test_loss"], b["test_loss"], rtol=1e-8)
        np.testing.assert_allclose(a["train_loss"], c["train_loss"], rtol=1e-8)
    del Xt, yt


def test_kernel_gd_momentum_equals_parameter_space():
    """Function-space heavy-ball kernel GD == parameter-space momentum GD of the linearised net."""
    task, W0 = _setup(S=1, D=6, P=20, N=10)
    alpha, eps, eta0, N = 1.0, 0.3, 0.5, 10
    w, M = th.init_stats(W0)
    Xt = torch.randn(1, 15, 6, generator=torch.Generator().manual_seed(2), dtype=DT) / math.sqrt(6)
    yt = th.quad_form(Xt, task["T"])
    la = log_steps(300, 8)
    K = alpha ** 2 / N * th.ntk_from_stats(task["X"], task["X"], w, M, eps)
    Kt = alpha ** 2 / N * th.ntk_from_stats(Xt, task["X"], w, M, eps)
    a = ntkm.kernel_gd(K, Kt, task["y"], yt, eta0 * N / alpha ** 2, 300, la, momentum=0.9)
    b = run_committee(task["X"], task["y"], W0, CommitteeTraining(alpha, eps, eta0, 300, la, momentum=0.9,
                                                                   linearised=True), X_test=Xt, y_test=yt)
    np.testing.assert_allclose(a["train_loss"], b["train_loss"], rtol=1e-8)
    np.testing.assert_allclose(a["test_loss"], b["test_loss"], rtol=1e-8)


@pytest.mark.parametrize("k", [2, 3])
def test_committee_gradient_matches_autograd(k):
    """The written-out gradients of :func:`run_committee` (both layers trained) == autograd on
    mean (f̃ − y)², checked through one GD step with momentum (the first step is plain GD)."""
    task, W0 = _setup(S=2, D=6, P=20, N=5)
    a0 = torch.randn(2, 5, generator=torch.Generator().manual_seed(3), dtype=DT)
    alpha, eps, eta0, N = torch.tensor([0.7, 2.0], dtype=DT), torch.tensor([0.3, 0.1], dtype=DT), 0.4, 5
    r = run_committee(task["X"], task["y"], W0, CommitteeTraining(alpha, eps, eta0, 1, [0, 1], centred=True,
                                                                   momentum=0.9, k=k),
                      readouts=a0, X_test=task["X"], y_test=task["y"])
    W, a = W0.clone().requires_grad_(True), a0.clone().requires_grad_(True)

    def f(W_, a_):
        phi, _ = activation(task["X"] @ W_.transpose(-1, -2), eps[:, None, None], k)
        return alpha[:, None] / N * (phi @ a_[..., None])[..., 0]

    f0 = f(W0, a0).detach()
    ((f(W, a) - f0 - task["y"]) ** 2).mean(-1).sum().backward()
    lr = (eta0 * N / alpha ** 2)
    with torch.no_grad():
        W1, a1 = W - lr[:, None, None] * W.grad, a - lr[:, None] * a.grad
    np.testing.assert_allclose(r["W"], W1.numpy(), rtol=1e-12, atol=1e-14)
    expected = ((f(W1, a1) - f0 - task["y"]) ** 2).mean(-1)
    np.testing.assert_allclose(r["train_loss"][:, 1], expected.detach().numpy(), rtol=1e-12)


def test_hermite_polynomials():
    z = torch.linspace(-2, 2, 7, dtype=DT)
    from numpy.polynomial import hermite_e as He

    for k in range(5):
        ref = He.hermeval(z.numpy(), [0] * k + [1])
        np.testing.assert_allclose(hermite(z, k).numpy(), ref, atol=1e-12)


def test_modular_mlp_gradient_matches_autograd():
    """The analytic GD step of App. 8.3's x² MLP == autograd on the paper's loss MSE/s²."""
    from companion.data.modular import modular_arithmetic
    from companion.train.lazy_rich import train_modular_mlp

    data = modular_arithmetic(7, "add", 0.5, 0)
    r = train_modular_mlp(data, (0.7,), 5, 1, [0, 1], lr0=3.0, seed=4)
    p, D, N, s = 7, 14, 5, 0.7
    g = torch.Generator().manual_seed(4)
    W1 = torch.randn(N, D, generator=g).requires_grad_(True)
    W2 = torch.randn(p, N, generator=g).requires_grad_(True)
    oh = torch.nn.functional.one_hot
    X = torch.cat([oh(data.train_x[:, 0], p), oh(data.train_x[:, 1], p)], 1).float()
    Y = oh(data.train_y, p).float()
    out = s * s / (D * N) * (X @ W1.T) ** 2 @ W2.T
    (((out - Y) ** 2).mean() / s ** 2).backward()
    with torch.no_grad():
        W1n, W2n = W1 - 3.0 / s ** 2 * W1.grad, W2 - 3.0 / s ** 2 * W2.grad
        out1 = s * s / (D * N) * (X @ W1n.T) ** 2 @ W2n.T
    assert abs(((out1 - Y) ** 2).mean().item() - r["train_loss"][0, 1]) < 1e-6


def test_scaled_transformer_is_centred():
    from companion.data.modular import modular_arithmetic
    from companion.models.lazy_rich import ScaledTransformer
    from companion.models.transformer import Transformer, TransformerConfig

    data = modular_arithmetic(7, "add", 0.5, 0)
    m = ScaledTransformer(Transformer(TransformerConfig(p=7, d_model=16, d_mlp=32, n_heads=2), seed=0), 7, 0.5)
    assert m(data.train_x).abs().max().item() < 1e-6
    with torch.no_grad():
        m.model.W_U.add_(0.1)
    base = m.model(data.train_x) - m.f0[data.train_x[:, 0] * 7 + data.train_x[:, 1]]
    torch.testing.assert_close(m(data.train_x), 0.5 * base, rtol=1e-5, atol=1e-6)  # the tabled forward: rounding
    assert base.abs().max() > 1e-3


def test_tabled_forward_is_the_transformer():
    """Q, K, V from (token, position) tables: the transformer's outputs and gradients."""
    from companion.data.modular import modular_arithmetic
    from companion.models.lazy_rich import tabled_forward
    from companion.models.transformer import Transformer, TransformerConfig

    data = modular_arithmetic(11, "add", 0.5, 0)
    m = Transformer(TransformerConfig(p=11, d_model=16, d_mlp=64, n_heads=2), seed=3)
    with torch.no_grad():
        for v in m.parameters():
            v.add_(0.1 * torch.randn_like(v))
    a, b = m(data.train_x), tabled_forward(m, data.train_x)
    torch.testing.assert_close(b, a)
    ga = torch.autograd.grad(a.square().sum(), list(m.parameters()))
    gb = torch.autograd.grad(b.square().sum(), list(m.parameters()))
    for x, y in zip(ga, gb):
        torch.testing.assert_close(y, x, rtol=1e-4, atol=1e-5)


def test_batched_scaled_transformers_equal_one_at_a_time():
    """Figs. 6b, 12: the batched trainer (per-member α, lr, wd) is what train() does per run."""
    from companion.data.modular import modular_arithmetic
    from companion.models.lazy_rich import ScaledTransformer
    from companion.models.transformer import Transformer, TransformerConfig
    from companion.train import TrainConfig, train
    from companion.train.lazy_rich_transformer import TransformerTraining, train_scaled_transformers

    tc = TransformerConfig(p=7, d_model=16, d_mlp=64, n_heads=2)
    datas = [modular_arithmetic(7, "add", 0.5, s) for s in (0, 1)]
    runs = [(0.5, 1.0), (1.0, 5.0)]
    steps, la = 30, log_steps(30, 8)
    one = [train(ScaledTransformer(Transformer(tc, seed=k), 7, a), datas[k],
                 TrainConfig(steps=steps, lr=1e-3 / a ** 2, weight_decay=w), eval_at=la)
           for k, (a, w) in enumerate(runs)]
    both = train_scaled_transformers([ScaledTransformer(Transformer(tc, seed=k), 7, 1.0) for k in (0, 1)], datas,
                                     [a for a, _ in runs], [1e-3 / a ** 2 for a, _ in runs], [w for _, w in runs],
                                     TransformerTraining(steps, tuple(la)))
    for key in ("train_loss", "test_loss"):
        np.testing.assert_allclose(both[key], np.stack([h[key] for h in one]), rtol=1e-4)
    # stopping once every member's losses have reached the level: at the first logged step for a loose level
    early = train_scaled_transformers([ScaledTransformer(Transformer(tc, seed=0), 7, 1.0)], datas[:1], [0.5],
                                      [4e-3], [1.0], TransformerTraining(steps, tuple(la), stop_level=100.0))
    assert list(early["step"]) == [0] and early["train_loss"].shape == (1, 1)


def test_finished_members_leave_the_batch():
    """Figs. 6b, 12: a member whose losses reached the level leaves (NaN after); the others train on unchanged."""
    from dataclasses import replace

    from companion.data.modular import modular_arithmetic
    from companion.models.lazy_rich import ScaledTransformer
    from companion.models.transformer import Transformer, TransformerConfig
    from companion.train.lazy_rich_transformer import TransformerTraining, train_scaled_transformers

    tc = TransformerConfig(p=7, d_model=16, d_mlp=64, n_heads=2)
    ds = [modular_arithmetic(7, "add", 0.5, s) for s in (0, 1)]
    datas = [replace(d, test_x=d.train_x, test_y=d.train_y) for d in ds]
    la = log_steps(30, 8)

    def run(level):  # tested on the training set, so member 0's losses both fall; member 1 does not move
        return train_scaled_transformers([ScaledTransformer(Transformer(tc, seed=k), 7, 1.0) for k in (0, 1)], datas,
                                         [0.5, 1.0], [1e-2, 0.0], [1.0, 1.0],
                                         TransformerTraining(30, tuple(la), stop_level=level))

    full = run(None)
    level = float(full["train_loss"][0, 4])
    part = run(level)
    assert np.isnan(part["train_loss"][0, 5:]).all() and not np.isnan(part["train_loss"][0, :5]).any()
    assert not np.isnan(part["train_loss"][1]).any() and list(part["step"]) == list(la)
    np.testing.assert_allclose(part["test_loss"][1], full["test_loss"][1], rtol=1e-6)
    np.testing.assert_allclose(part["test_loss"][0, :5], full["test_loss"][0, :5], rtol=1e-6)


def test_linearised_transformers():
    """Fig. 13c: the jvp linearisation starts equal to the network; seed 0 in a batch is seed 0 alone."""
    from companion.data.modular import modular_arithmetic
    from companion.measures.kernels import linearise
    from companion.models.lazy_rich import ScaledTransformer
    from companion.models.transformer import Transformer, TransformerConfig
    from companion.train.lazy_rich_transformer import TransformerTraining, train_linearised_transformers

    tc = TransformerConfig(p=7, d_model=16, d_mlp=64, n_heads=2)
    datas = [modular_arithmetic(7, "add", 0.5, s) for s in (0, 1)]
    la = log_steps(20, 6)

    def run(seeds):
        return train_linearised_transformers([ScaledTransformer(Transformer(tc, seed=k), 7, 1.0) for k in seeds],
                                             datas[:len(seeds)], linearise, 1.0, 1e-2, 2.0,
                                             TransformerTraining(20, tuple(la)))

    one, two = run((0,)), run((0, 1))
    for key in ("train_loss", "test_loss", "lin_train", "lin_test"):
        np.testing.assert_allclose(two[key][0], one[key][0], rtol=1e-4)
    np.testing.assert_allclose(two["lin_train"][:, 0], two["train_loss"][:, 0], rtol=1e-6)  # float32 rounding
    assert np.all(np.abs(two["lin_train"][:, -1] / two["train_loss"][:, -1] - 1) > 1e-3)  # they part


def test_student_teacher_linearised_seeds_batch():
    """Fig. 13b: seed 0 of a batch of seeds is the run of seed 0 alone."""
    from companion.train.lazy_rich import train_st_linearised

    la = log_steps(20, 5)
    one = train_st_linearised(20, la, width=12, seeds=(0,))
    two = train_st_linearised(20, la, width=12, seeds=(0, 1))
    for key in ("train_loss", "test_loss", "lin_train", "lin_test"):
        np.testing.assert_allclose(two[key][0], one[key][0], rtol=1e-5)
        assert not np.allclose(two[key][1], two[key][0])


def test_digits_seeds_batch():
    """Fig. 6a: the (seed, α) members of one batched program are each seed's runs alone."""
    from companion.data.digits import load_digits_dataset
    from companion.train.lazy_rich import DigitsTraining, train_digits_mlp

    how = DigitsTraining(30, log_steps(30, 5), width=16, depth=2, batch=20)
    splits = [load_digits_dataset(100, 50, s)[:4] for s in (0, 1)]
    two = train_digits_mlp(splits, (1e-2, 1.0), how, seeds=(0, 1))
    for j, s in enumerate((0, 1)):
        one = train_digits_mlp(splits[j:j + 1], (1e-2, 1.0), how, seeds=(s,))
        for key in ("train_acc", "test_acc", "train_loss"):
            np.testing.assert_allclose(two[key][2 * j:2 * j + 2], one[key], rtol=1e-4, atol=1e-6)
    assert not np.allclose(two["train_loss"][0], two["train_loss"][2])


def test_idx_reader_and_digits_loader(tmp_path):
    from companion.data.digits import load_digits_dataset, read_idx, write_idx

    rng = np.random.default_rng(0)
    imgs = rng.integers(0, 256, size=(30, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, size=30, dtype=np.uint8)
    write_idx(tmp_path / "train-images-idx3-ubyte", imgs)
    write_idx(tmp_path / "train-labels-idx1-ubyte", labels)
    raw = (tmp_path / "train-images-idx3-ubyte").read_bytes()
    assert raw[:4] == bytes([0, 0, 8, 3]) and int.from_bytes(raw[4:8], "big") == 30
    np.testing.assert_array_equal(read_idx(tmp_path / "train-images-idx3-ubyte"), imgs)
    Xtr, ytr, Xte, yte, src = load_digits_dataset(20, 10, 0, mnist_dir=tmp_path)
    assert "MNIST" in src and Xtr.shape == (20, 784) and Xte.shape == (10, 784)
    allX = np.concatenate([Xtr.numpy(), Xte.numpy()])
    ref = imgs.reshape(30, -1).astype(np.float32) / 255
    assert sorted(map(tuple, np.round(allX, 5))) == sorted(map(tuple, np.round(ref, 5)))  # a permutation
    Xtr, ytr, Xte, yte, src = load_digits_dataset(100, 50, 1)
    assert "load_digits" in src and Xtr.shape == (100, 64) and float(Xtr.max()) <= 1.0
    with pytest.raises(ValueError):
        load_digits_dataset(2000, 10, 0)


def test_closure_width_limit():
    """N enters only through (w̄0, M0): the finite-N curve approaches the M0 = I (N → ∞) curve
    as N grows (Fig. 1's theory line)."""
    task = th.quadratic_task(10, 60, 0)
    la = log_steps(400, 10)
    wi, Mi = th.infinite_width_stats(1, 10)
    ref = th.run_closure(task["X"], task["y"], task["T"], wi, Mi, 1.0, 0.2, 1.0, 400, la)["test_loss"]
    devs = []
    for N in (20, 2000):
        W0 = torch.randn(1, N, 10, generator=torch.Generator().manual_seed(1), dtype=DT)
        w, M = th.init_stats(W0)
        r = th.run_closure(task["X"], task["y"], task["T"], w, M, 1.0, 0.2, 1.0, 400, la)["test_loss"]
        devs.append(np.abs(r / ref - 1).max())
    assert devs[1] < devs[0] / 3 and devs[1] < 0.05


def test_interpolated_crossing_is_linear_in_log_time():
    from companion.events import NOT_OBSERVED, interpolated_fall
    from companion.experiments.lazy_rich import half_times

    step = np.array([0, 10, 100, 1000])
    assert interpolated_fall(step, [1.0, 0.8, 0.4, 0.1], 0.6) == pytest.approx(10 ** 1.5)
    assert interpolated_fall(step, [1.0, 0.9, 0.8, 0.7], 0.5) is NOT_OBSERVED  # never reached: not a number
    train, test = np.array([1.0, 0.4, 0.1, 0.0]), np.array([1.0, 1.2, 0.5, 0.1])
    assert half_times(step, train, test) == pytest.approx((10 ** (1 - 1 / 6), 100.0))


def test_never_reached_events_fail_delay_claims():
    """A run whose test loss never halves has no delay: ratios and monotonicity built on it are
    not observed, so "grows with α" cannot hold on an ∞ (issue 12)."""
    from companion.claims import at_least, is_true
    from companion.events import NOT_OBSERVED, increasing, ratio

    assert ratio(NOT_OBSERVED, 10.0, floor=None) is NOT_OBSERVED
    assert increasing([1.0, 2.0, NOT_OBSERVED]) is NOT_OBSERVED
    assert not at_least(2.0).holds(ratio(NOT_OBSERVED, 10.0, floor=None))
    assert not is_true().holds(increasing([1.0, NOT_OBSERVED]))


def test_sweep_seeds_batch_and_split():
    """Seeds of a closure sweep run in one batch and split back per seed; seed 0's runs equal the
    one-seed sweep's (the seed axis changes nothing else)."""
    from dataclasses import replace

    from companion.experiments.lazy_rich.closure import QuadraticRun, Sweep, quad_sweep
    from companion.experiments.lazy_rich.measures import seed_views

    q = QuadraticRun(D=6, P=30, N=0, steps=50, n_log=10)
    one = quad_sweep.__wrapped__(Sweep(q, ("alpha",), ((0.5,), (1.0,))), "cpu")
    three = quad_sweep.__wrapped__(replace(Sweep(q, ("alpha",), ((0.5,), (1.0,))), seeds=(0, 1, 2)), "cpu")
    views = seed_views(three)
    assert len(views) == 3 and views[0]["test_loss"].shape == one["test_loss"].shape
    np.testing.assert_allclose(views[0]["test_loss"], one["test_loss"])
    assert not np.allclose(views[1]["test_loss"], views[0]["test_loss"])


def test_initial_kernel_eigenvalues_match_app11():
    """App. 11: λ_lin = 1/D and λ_quad = 2ε²/D² for the infinite-width initial NTK (Monte Carlo)."""
    from companion.theory.lazy_rich import initial_kernel_eigenvalues

    ev = initial_kernel_eigenvalues(10, 0.5, n=2000, seed=0)
    assert ev["lin"] * 10 == pytest.approx(1.0, rel=0.15)
    assert ev["quad"] / (2 * 0.25 / 100) == pytest.approx(1.0, rel=0.15)


def _committee_autograd(X, y, W0, alpha, eps, eta0, steps, wd=0.0):
    """Plain GD on ``W`` of ``f = (α/N) Σ φ(w_i·x)`` (centred), mean-squared loss, lr η0·N/α², and a
    decoupled weight decay ``W ← (1 − η0κ)W − lr ∇L(W)``: the network written out, by autograd."""
    N = W0.shape[0]

    def f(W):
        h = X @ W.T
        return alpha / N * (h + eps / 2 * h ** 2).sum(-1)

    f0 = f(W0).detach()
    W = W0.clone().requires_grad_(True)
    for _ in range(steps):
        loss = ((f(W) - f0 - y) ** 2).mean()
        (g,) = torch.autograd.grad(loss, W)
        W = ((1 - eta0 * wd) * W - eta0 * N / alpha ** 2 * g).detach().requires_grad_(True)
    return W.detach()


def test_closure_weight_decay_equals_network_gd():
    """App. 13: the closure with decoupled weight decay (B → (1 − η0κ)I − kεG) == GD on the network's weights
    with W ← (1 − η0κ)W − η∇L: the same relative weight change and train loss after 200 steps."""
    task, W0 = _setup(S=1)
    X, y, T = task["X"], task["y"], task["T"]
    w, M = th.init_stats(W0)
    alpha, eps, eta0, wd, steps = 2.0, 0.3, 0.7, 0.02, 200
    a = th.run_closure(X, y, T, w, M, alpha, eps, eta0, steps, [0, steps], wd=wd)
    W = _committee_autograd(X[0], y[0], W0[0], alpha, eps, eta0, steps, wd=wd)
    rel2 = ((W - W0[0]) ** 2).sum() / (W0[0] ** 2).sum()
    np.testing.assert_allclose(a["rel_change2"][0, -1], float(rel2), rtol=1e-8)
    np.testing.assert_allclose(a["weight_norm2"][0, -1], float((W ** 2).sum() / W.shape[0]), rtol=1e-8)
    no_wd = th.run_closure(X, y, T, w, M, alpha, eps, eta0, steps, [0, steps])
    assert a["weight_norm2"][0, -1] < no_wd["weight_norm2"][0, -1]  # the decay did act


def test_difficulty_from_the_network_jacobian():
    """App. 10, eq. 8: yᵀK⁻¹y / N from the closure's statistics == from K = JJᵀ, J the autograd Jacobian of the
    network's outputs on the training set with respect to all its weights."""
    from companion.experiments.lazy_rich.closure import QuadraticRun, difficulty, stack_runs

    q = QuadraticRun(D=6, P=20, N=40, eps=0.3, alpha=1.7, seed=3)
    b = stack_runs([q])
    X, y = b["X"][0], b["y"][0]
    W0 = torch.randn(q.N, q.D, generator=torch.Generator().manual_seed(q.seed + 1), dtype=DT)

    def f(W):
        h = X @ W.T
        return q.alpha / q.N * (h + q.eps / 2 * h ** 2).sum(-1)

    J = torch.autograd.functional.jacobian(f, W0).reshape(q.P, -1)
    ref = float(y @ torch.linalg.solve(J @ J.T, y)) / q.N
    np.testing.assert_allclose(difficulty([q], b)[0], ref, rtol=1e-8)


# --------------------------------------------------------------------------- App. 11.1, 11.2, 12 kernels
def test_eq20_is_the_exact_fourth_moment():
    """Eq. 20 against ε² Tr(A M A) with A = E[y x xᵀ] = (|β|² I + 2ββᵀ)/D² (Isserlis, y = (β·x)²)."""
    from companion.theory import lazy_rich_kernels as tk

    g = torch.Generator().manual_seed(3)
    D, eps = 7, 0.3
    beta = torch.randn(D, generator=g, dtype=DT)
    W = torch.randn(3, D, generator=g, dtype=DT)
    M = W.T @ W
    A = (beta @ beta * torch.eye(D, dtype=DT) + 2 * torch.outer(beta, beta)) / D ** 2
    assert tk.eq20_numerator(beta, M, eps) == pytest.approx(float(eps ** 2 * torch.trace(A @ M @ A)), rel=1e-12)


def test_alignment_numerator_factorises_over_pairs():
    """The Monte Carlo's feature means give exactly the mean of y K(x, x') y' over all pairs of two
    sets, K the NTK of eq. 18 from ``ntk_from_stats``."""
    from companion.theory import lazy_rich_kernels as tk

    g = torch.Generator().manual_seed(4)
    D, eps = 6, 0.7
    beta, wbar = torch.randn(D, generator=g, dtype=DT), torch.randn(D, generator=g, dtype=DT)
    W = torch.randn(4, D, generator=g, dtype=DT)
    M = W.T @ W / 4
    X1, X2 = torch.randn(30, D, generator=g, dtype=DT), torch.randn(40, D, generator=g, dtype=DT)
    y1, y2 = (X1 @ beta) ** 2, (X2 @ beta) ** 2
    K = th.ntk_from_stats(X1[None], X2[None], wbar[None], M[None], eps)[0]
    direct = float(y1 @ K @ y2) / (30 * 40)
    (a, b, C), (a2, b2, C2) = tk._pair_means(X1, y1, wbar), tk._pair_means(X2, y2, wbar)
    fact = float(a @ a2 + eps * (b @ a2 + a @ b2) + eps ** 2 * torch.trace(C @ M @ C2.T))
    assert fact == pytest.approx(direct, rel=1e-10)


def test_readout_ntk_is_the_jacobian_gram_and_its_spread():
    """The analytic readout NTK against J Jᵀ from autograd of (1/√N) Σ v φ(w·x), and its standard
    error against the per-neuron terms' spread computed elementwise."""
    from companion.theory import lazy_rich_kernels as tk

    g = torch.Generator().manual_seed(5)
    D, N, n, eps = 5, 9, 6, 0.6
    X = torch.randn(n, D, generator=g, dtype=DT)
    W, v = torch.randn(N, D, generator=g, dtype=DT), torch.randn(N, generator=g, dtype=DT)

    def f(W, v):
        H = X @ W.T
        return (H + 0.5 * eps * H * H) @ v / math.sqrt(N)

    JW, Jv = torch.autograd.functional.jacobian(f, (W, v))
    J = torch.cat([JW.reshape(n, -1), Jv], 1)
    K, se = tk.readout_ntk(X, W, v, eps)
    assert torch.allclose(K, J @ J.T, atol=1e-12)
    H = X @ W.T
    t = ((H + 0.5 * eps * H * H)[:, None, :] * (H + 0.5 * eps * H * H)[None, :, :]
         + (X @ X.T)[..., None] * (v * (1 + eps * H))[:, None, :] * (v * (1 + eps * H))[None, :, :])
    assert torch.allclose(se, t.std(-1) / math.sqrt(N), atol=1e-10)


def test_eq23_is_the_wide_network_limit():
    """Eq. 23 against the readout NTK of a very wide network (relative error ~ 1/√N)."""
    from companion.theory import lazy_rich_kernels as tk

    g = torch.Generator().manual_seed(6)
    X = torch.randn(5, 8, generator=g, dtype=DT) / math.sqrt(8)
    W, v = torch.randn(400_000, 8, generator=g, dtype=DT), torch.randn(400_000, generator=g, dtype=DT)
    K, se = tk.readout_ntk(X, W, v, 0.8)
    assert ((K - tk.eq23_kernel(X, X, 0.8)).abs() / se).max() < 5


def test_error_parts_sum_to_the_population_loss():
    """The eigenfunction split (|x|², traceless, linear) adds up to eq. 6's population loss."""
    from companion.theory import lazy_rich_kernels as tk

    g = torch.Generator().manual_seed(7)
    D = 6
    a, B = torch.randn(2, D, generator=g, dtype=DT), torch.randn(2, D, D, generator=g, dtype=DT)
    A = (B + B.transpose(-1, -2)) / 2
    parts = tk.error_parts(a, A)
    total = th.population_terms(a, A, D)["total"]
    assert torch.allclose(parts["trace"] + parts["traceless"] + parts["linear"], total, rtol=1e-12)


def test_k0_regression_is_exact_at_the_feature_count():
    """With P = D + D(D + 1)/2 points ridgeless K0 regression recovers the quadratic target exactly."""
    from companion.theory import lazy_rich_kernels as tk

    D = 5
    t = th.quadratic_task(D, D + D * (D + 1) // 2, seed=2)
    e = tk.k0_error_parts(t["X"], t["y"], t["T"], 0.3)
    assert float(sum(e.values())) < 1e-10 * float(t["T"].pow(2).sum())


def test_fig1_alignment_tracking_and_fig2_power_law():
    """Spearman of a falling against a rising curve is −1; a synthetic t ∝ s² gives exponent 2."""
    from companion.experiments.lazy_rich.fig1 import fig1_alignment_tracking
    from companion.experiments.lazy_rich.networks import fig2_scale_times

    step = np.arange(0, 101, 10)
    r = {"step": step, "misalignment": np.exp(-step / 50.0)[None], "cka_step": np.arange(0, 101, 25),
         "cka": np.array([[0.1, 0.2, 0.25, 0.4, 0.5]])}
    at = fig1_alignment_tracking(r)
    assert at.rho_misalignment == [pytest.approx(-1.0)] and at.rho_step == [pytest.approx(1.0)]
    e = np.linspace(0, 1000, 1001)
    scales = [0.5, 1.0]
    acc = np.stack([(e >= 100 * s ** 2).astype(float) for s in scales])
    st = fig2_scale_times({"scales": scales, "epochs": e, "test_acc": acc}, (0.5, 1.0, 2.0))
    assert st.exponent == [pytest.approx(2.0)] and st.predicted[0][0] == pytest.approx(400.0)


def test_shared_transformer_runs_match_alone():
    """Figs. 6b and 12 train the union of their (α, wd) runs once; a run read from the union batch has the
    history it has when its own figure's runs are trained alone (early leaving included), up to float32
    rounding (the batched products' blocking depends on the batch size). Losses only: at step 0 the centred
    logits f − f0 are zero up to that rounding, so the accuracies there are argmax ties."""
    from dataclasses import replace

    from companion.experiments.lazy_rich.transformer import (
        FIG6B_PROFILES,
        FIG12_PROFILES,
        TransformerSweep,
        _unseeded,
        select_runs,
        transformer,
    )

    assert _unseeded(FIG6B_PROFILES["cpu"]) == _unseeded(FIG12_PROFILES["cpu"])  # so the cpu build shares them
    small = TransformerSweep(p=7, d_model=8, train_frac=0.6, lr0=1e-2, steps=30, n_log=8, seeds=(0, 1),
                             runs=((0.5, 1.0), (0.5, 5.0)), stop_when_crossed=True)
    union = select_runs(transformer(replace(small, runs=((0.3, 1.0), (0.5, 1.0), (0.5, 5.0))), "cpu"), small.runs)
    alone = transformer(small, "cpu")
    assert union["runs"] == alone["runs"]
    for a, b in zip(alone["seed_runs"], union["seed_runs"], strict=True):
        for k in ("train_loss", "test_loss"):
            np.testing.assert_allclose(a[k], b[k], rtol=1e-5, atol=1e-6)


def test_rank_trend_reads_only_observed_runs_and_needs_enough_of_them():
    """A 3% wiggle between neighbours keeps ρ near 1 where strict monotonicity fails; a run that never
    generalised is left out, never counted as an infinite delay; too few observed runs is not observed."""
    from companion.events import NOT_OBSERVED, increasing
    from companion.experiments.lazy_rich.measures import rank_trend

    alphas = [1 / 32, 0.25, 0.5, 1, 2, 4, 8, 16]
    wiggle = [2.86, 3.87, 3.75, 3.72, 4.06, 4.92, 6.64, 9.97]
    assert increasing(wiggle) is False and rank_trend(alphas, wiggle, 5) > 0.9
    lazy_end_missing = [3.89, 6.74, 8.1, 10.26, 14.36, 23.41, 52.49, NOT_OBSERVED]
    assert increasing(lazy_end_missing) is NOT_OBSERVED and rank_trend(alphas, lazy_end_missing, 5) == 1.0
    assert rank_trend(alphas, [1.0, 2.0] + [NOT_OBSERVED] * 6, 5) is NOT_OBSERVED
    assert rank_trend(alphas, wiggle[::-1], 5) < -0.9


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_the_committee_machine_trains_on_the_device_it_is_given():
    """Kumar et al.'s committee runs (Figs. 5, 11, 13a, 15, 19) on a GPU agree with the host's (float64)."""
    from dataclasses import replace

    from companion.experiments.lazy_rich import eigen

    cfg = replace(eigen.FIG5_PROFILES["smoke"], steps=50)
    host, gpu = eigen._eig_run(cfg, (0,), "cpu"), eigen._eig_run(cfg, (0,), "cuda")
    assert np.allclose(host["train_loss"], gpu["train_loss"], rtol=1e-9, atol=1e-12)
