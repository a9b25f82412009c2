"""Tests of the linear-estimators theory and simulator, each by an independent route."""

import math

import numpy as np
import pytest
import torch
from scipy import special

from companion.data.modular import addition_table, modular_arithmetic, split_masks
from companion.experiments.linear_estimators import fit_divergence, summaries
from companion.experiments.linear_estimators.networks import compare_forms
from companion.models.quadratic_mlp import quadratic_mlp
from companion.profiles import ParameterError
from companion.theory import linear_estimators as th
from companion.theory.linear_estimators import LinearGD
from companion.train.linear_estimators import TwoLayerTraining, train_quadratic_mlp, train_two_layer


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """One torch thread: these small problems run slower on two busy cores."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


@pytest.mark.parametrize("lam", [0.1, 0.5, 0.9])
def test_eq6_marchenko_pastur_moments(lam):
    def one(u):
        return 1 + 0 * u
    assert th.mp_expect(one, lam) == pytest.approx(1, abs=1e-12)
    assert th.mp_expect(lambda u: u, lam) == pytest.approx(1, rel=1e-10)
    assert th.mp_expect(lambda u: u ** 2, lam) == pytest.approx(1 + lam, rel=1e-10)
    assert th.mp_expect(lambda u: 1 / u, lam) == pytest.approx(1 / (1 - lam), rel=1e-8)
    assert th.mp_expect(lambda u: 1 / u ** 2, lam) == pytest.approx(1 / (1 - lam) ** 3, rel=1e-6)


def test_eq6_atom_for_lambda_above_one():
    lam = 1.5
    nu, w, atom = th.mp_nodes(lam)
    assert atom == pytest.approx(1 - 1 / lam)
    assert w.sum() == pytest.approx(1 / lam, rel=1e-10)  # continuous mass min(1, 1/λ)
    assert th.mp_expect(lambda u: u, lam) == pytest.approx(1, rel=1e-10)
    # late-time generalisation loss = the null-space mass
    assert th.losses([1e6], lam)[1][0] == pytest.approx(1 - 1 / lam, rel=1e-6)


@pytest.mark.parametrize("lam", [0.2, 0.7, 0.95, 1.5])
def test_eq19_bessel_closed_form_matches_quadrature(lam):
    t = np.array([0.0, 1.0, 30.0, 300.0, 3e3, 3e4])
    quad = th.losses(t, lam)[0]
    np.testing.assert_allclose(th.train_loss_bessel(t, lam), quad, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("lam", [0.3, 0.8, 1.5])
def test_eq20_gen_from_train_integral(lam):
    t = np.array([10.0, 100.0, 1000.0])
    np.testing.assert_allclose(th.gen_from_train(t, lam), th.losses(t, lam)[1], rtol=2e-3)


def test_eq9_accuracy_is_erf_and_threshold_is_eps_over_4():
    L = np.array([1e-5, 1e-3, 0.1])
    np.testing.assert_allclose(th.accuracy(L, 1e-3), special.erf(np.sqrt(1e-3 / (2 * L))), rtol=1e-12)
    assert th.accuracy(1e-3 / 4, 1e-3) == pytest.approx(th.grok_threshold_erf2(), rel=1e-12)


def test_eq12_accuracy_matches_chi2_monte_carlo():
    rng = np.random.default_rng(0)
    dout, L, eps = 5, 2e-4, 1e-3
    err = (rng.standard_normal((200_000, dout)) ** 2).mean(1) * L  # per-sample (1/d_out)‖Dᵀx‖²
    assert th.accuracy(L, eps, dout) == pytest.approx((err < eps).mean(), abs=0.005)


def _torch_loop(sim_args, steps):
    """Literal nn.Linear(bias=False) + MSELoss + SGD(lr, weight_decay) on the same draws."""
    d_in, d_out, lam, seed, eta, gamma, noise = sim_args
    g = torch.Generator().manual_seed(seed)
    n = int(round(d_in / lam))
    X = torch.randn(1, n, d_in, generator=g, dtype=torch.float64)[0]
    torch.randn(1, 10, d_in, generator=g, dtype=torch.float64)  # the test inputs (unused here)
    sd = math.sqrt(1 / (2 * d_in * d_out))
    T = torch.randn(1, d_in, d_out, generator=g, dtype=torch.float64)[0] * sd
    S0 = torch.randn(1, d_in, d_out, generator=g, dtype=torch.float64)[0] * sd
    delta = torch.randn(1, n, d_out, generator=g, dtype=torch.float64)[0] * math.sqrt(noise)
    model = torch.nn.Linear(d_in, d_out, bias=False).double()
    with torch.no_grad():
        model.weight.copy_(S0.T)
    opt = torch.optim.SGD(model.parameters(), lr=eta, weight_decay=gamma)
    y = X @ T + delta
    out = []
    for t in range(steps + 1):
        loss = torch.nn.functional.mse_loss(model(X), y)
        out.append((loss.item(), ((model.weight.T - T) ** 2).sum().item() / d_out))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return np.array(out)


@pytest.mark.parametrize("args", [(40, 1, 0.5, 3, 0.05, 0.0, 0.0), (40, 3, 0.8, 4, 0.05, 1e-2, 1e-2),
                                  (40, 2, 1.5, 5, 0.05, 1e-3, 0.0)])
def test_eq13_eigenbasis_recursion_equals_torch_sgd_loop(args):
    d_in, d_out, lam, seed, eta, gamma, noise = args
    loop = _torch_loop(args, 300)
    sim = LinearGD.sample(d_in, d_out, lam, 1, seed, n_gen=10, eta=eta, gamma=gamma, noise_var=noise)
    for t in (0, 1, 7, 100, 300):
        ltr, lgen = sim.losses(t)
        assert ltr.item() == pytest.approx(loop[t, 0], rel=1e-9)
        assert lgen.item() == pytest.approx(loop[t, 1], rel=1e-9)


def test_eq8_simulation_matches_theory_at_large_d():
    sim = LinearGD.sample(600, 1, 0.5, 3, 0, n_gen=100)
    t = np.array([100.0, 1000.0])
    ltr_th, lgen_th = th.losses(t, 0.5)
    for i, s in enumerate(t):
        ltr, lgen = sim.losses(s)
        assert ltr.mean().item() == pytest.approx(ltr_th[i], rel=0.15)
        assert lgen.mean().item() == pytest.approx(lgen_th[i], rel=0.15)


def test_eq12_dout_rescaling_matches_simulation():
    sim = LinearGD.sample(400, 20, 0.5, 1, 1, n_gen=100)
    t = np.array([300.0, 3000.0])
    ltr_th, lgen_th = th.losses(t, 0.5, dout=20)
    for i, s in enumerate(t):
        ltr, lgen = sim.losses(s)
        assert ltr.item() == pytest.approx(ltr_th[i], rel=0.1)
        assert lgen.item() == pytest.approx(lgen_th[i], rel=0.1)


@pytest.mark.parametrize("lam", [0.3, 0.5])
def test_eq38_plateau_is_half_of_eq15(lam):
    g = 1e-4
    ltr, lgen = th.losses([1e9], lam, gamma=g)
    p = th.wd_plateaus(lam, g)
    assert ltr[0] == pytest.approx(p["tr"], rel=0.02)
    assert lgen[0] == pytest.approx(p["gen"], rel=0.02)
    assert p["gen_eq15"] / p["gen"] == pytest.approx(2.0)


def test_eq38_reduces_to_eq8_without_weight_decay():
    t = np.array([10.0, 1000.0])
    a, b = th.losses(t, 0.6, gamma=1e-12)
    c, d = th.losses(t, 0.6)
    np.testing.assert_allclose(a, c, rtol=1e-8)
    np.testing.assert_allclose(b, d, rtol=1e-8)


def test_appC_fixed_label_noise_theory_matches_simulation():
    s2 = 1e-2
    sim = LinearGD.sample(300, 1, 0.8, 4, 2, n_gen=10, noise_var=s2)
    t = np.array([100.0, 1e5])
    ltr_th, lgen_th = th.label_noise_losses(t, 0.8, s2)
    for i, s in enumerate(t):
        ltr, lgen = sim.losses(s)
        assert ltr.mean().item() == pytest.approx(ltr_th[i], rel=0.15)
        assert lgen.mean().item() == pytest.approx(lgen_th[i], rel=0.15)
    assert lgen_th[-1] == pytest.approx(th.label_noise_floors(0.8, s2)[1], rel=0.02)


def test_eqs21_22_late_time_limits():
    t = np.array([1e4])
    ltr, lgen = th.losses(t, 0.9)
    assert th.train_loss_eq21(t, 0.9)[0] == pytest.approx(ltr[0], rel=2e-3)
    assert th.gen_loss_eq22(t, 0.9)[0] == pytest.approx(lgen[0], rel=2e-3)


def test_eq11_is_the_small_eps_limit_of_the_exact_grokking_time():
    thr = th.grok_threshold_erf2()
    exact = [th.grok_times(0.5, e, thr)[2] for e in (1e-3, 1e-12)]
    assert th.dt_eq11(0.5) / exact[0] > 1.4
    assert th.dt_eq11(0.5) / exact[1] == pytest.approx(1.0, abs=0.15)


def test_grok_times_root_and_limits():
    thr = th.grok_threshold_erf2()
    t_tr, t_gen, dt = th.grok_times(0.5, 1e-3, thr)
    assert th.accuracy(th.losses([t_tr], 0.5)[0], 1e-3)[0] == pytest.approx(thr, abs=1e-6)
    assert th.accuracy(th.losses([t_gen], 0.5)[1], 1e-3)[0] == pytest.approx(thr, abs=1e-6)
    assert math.isinf(th.grok_times(0.5, 1e-3, 0.95, gamma=0.05)[2])  # WD plateau above threshold
    assert th.grok_times(0.5, 1e-3, 0.95, dout=2000)[2] == 0.0  # starts above threshold
    assert math.isinf(th.grok_times(1.5, 1e-3, 0.95)[2])  # null space never learned


def test_simulated_grokking_time_bisection_is_first_crossing():
    sim = LinearGD.sample(200, 1, 0.5, 2, 0, n_gen=500)
    tr, gen = sim.first_steps(1e-3, 0.95, 10 ** 6)
    for k, ts in enumerate((tr, gen)):
        for s in range(2):
            t = torch.tensor([ts[s]] * 2)
            assert sim.accuracies(t, 1e-3)[k][s] >= 0.95
            assert sim.accuracies(t - 1, 1e-3)[k][s] < 0.95


def test_batched_search_equals_bisection():
    """The (k+1)-ary search over the integer step finds the same first crossing as bisection (k = 1)."""
    sim = LinearGD.sample(150, 1, 0.7, 3, 5, n_gen=300)
    for a, b in zip(sim.first_steps(1e-3, 0.95, 10 ** 6), sim.first_steps(1e-3, 0.95, 10 ** 6, k=1)):
        np.testing.assert_array_equal(a, b)


def test_compare_forms_tells_the_divergence_from_its_rivals():
    """ΔAIC favours (λ* − λ)⁻² on data of that form and an exponential on exponential data."""
    lam = np.linspace(0.06, 0.1, 7)
    assert compare_forms(lam, 3.0 * (0.12 - lam) ** -2.0)["delta_aic"] > 10
    assert compare_forms(lam, 5.0 * np.exp(40 * lam))["delta_aic"] < -10


def test_eq15_grokking_time_and_lambda_one_limit():
    """Eq. 15's Δt at λ = 0.5 is 312 steps; at λ = 1 the exact t*_gen is finite and converged in the MP nodes."""
    assert float(th.dt_eq15(0.5)) == pytest.approx(311.70, rel=1e-4)
    a = th.grok_times(1.0, 1e-3, th.grok_threshold_erf2(), m=2 * th.M_NODES)[1]
    b = th.grok_times(1.0, 1e-3, th.grok_threshold_erf2(), m=4 * th.M_NODES)[1]
    assert np.isfinite(a) and a == pytest.approx(b, rel=1e-3)


def test_eq18_two_layer_linear_student_follows_corrected_theory():
    r = train_two_layer(TwoLayerTraining(100, 200, 5, 200, 400, lr=0.5, steps=120, eps=1e-4, n_evals=60), ("linear",),
                        seed=0)
    l0 = 1 / (2 * 200 * 5)
    assert r["train_loss"][0, 0, 0] == pytest.approx(l0, rel=0.15)
    i = np.searchsorted(r["step"], 100)
    ltr, lgen = th.two_layer_losses(r["step"][i:i + 1], 0.5, 5, l0, eta=0.5)
    assert r["train_loss"][0, 0, i] == pytest.approx(ltr[0], rel=0.25)
    assert r["test_loss"][0, 0, i] == pytest.approx(lgen[0], rel=0.25)


def test_two_layer_draws_batched_equal_draws_alone():
    """Draw s of a batched run is the run with seed + s on its own (the ensemble axis changes nothing)."""
    how = TwoLayerTraining(30, 20, 3, 40, 40, lr=0.5, steps=20, eps=1e-4, n_evals=10)
    both = train_two_layer(how, ("linear", "tanh"), seed=3, n_seeds=2)
    alone = train_two_layer(how, ("linear", "tanh"), seed=4)
    np.testing.assert_allclose(both["train_loss"][1], alone["train_loss"][0], rtol=1e-5)
    np.testing.assert_allclose(both["h"][1], alone["h"][0], rtol=1e-5)


def test_quadratic_mlp_draws_batched_equal_draws_alone():
    both = train_quadratic_mlp(7, 8, (0.5, 0.8), 50.0, 5, 1, seed=1, n_seeds=2)
    alone = train_quadratic_mlp(7, 8, (0.5, 0.8), 50.0, 5, 1, seed=2)
    np.testing.assert_allclose(both["train_loss"][1], alone["train_loss"][0], rtol=1e-4)


def test_fit_divergence_recovers_parameters():
    lam = np.array([0.05, 0.06, 0.07, 0.08, 0.09])
    dt = 3.0 * (0.12 - lam) ** -2.0
    f = fit_divergence(lam, dt)
    assert f["lam_star"] == pytest.approx(0.12, rel=0.01)
    assert f["C"] == pytest.approx(3.0, rel=0.05)
    assert f["r2"] > 0.999


def test_quadratic_mlp_is_gromovs_net_on_one_hot_inputs():
    """The table-indexed forward pass equals W₂(W₁x/√(2p))²/d_h with explicit one-hot x."""
    p, d_h = 5, 7
    g = torch.Generator().manual_seed(0)
    W1, W2 = torch.randn(2, d_h, 2 * p, generator=g), torch.randn(2, p, d_h, generator=g)
    a, b, c = addition_table(p)
    x = torch.cat([torch.nn.functional.one_hot(a, p), torch.nn.functional.one_hot(b, p)], 1).float()  # (p², 2p)
    h = torch.einsum("khi,ni->khn", W1, x) / math.sqrt(2 * p)
    expected = torch.einsum("koh,khn->kon", W2, h ** 2) / d_h
    torch.testing.assert_close(quadratic_mlp(W1, W2, a, b, p), expected, rtol=1e-5, atol=1e-5)
    assert torch.equal(c, (a + b) % p) and len(set(zip(a.tolist(), b.tolist()))) == p * p


def test_split_masks_hold_each_training_fraction():
    masks = split_masks(11, (0.3, 0.8), seed=2)
    assert masks.shape == (2, 121)
    assert masks.sum(1).tolist() == [len(modular_arithmetic(11, "add", f, 2).train_x) for f in (0.3, 0.8)]


def test_quadratic_mlp_training_takes_plain_gradient_steps():
    """One step of train_quadratic_mlp is W ← W − lr·∇L with L the masked summed-over-classes MSE."""
    p, d_h, lr = 5, 6, 3.0
    r = train_quadratic_mlp(p, d_h, (0.6,), lr, 1, 1, seed=0)
    g = torch.Generator().manual_seed(0)
    W1 = torch.randn(d_h, 2 * p, generator=g)[None].requires_grad_(True)
    W2 = torch.randn(p, d_h, generator=g)[None].requires_grad_(True)
    a, b, c = addition_table(p)
    mask = split_masks(p, (0.6,), 0)[0]
    x = torch.cat([torch.nn.functional.one_hot(a, p), torch.nn.functional.one_hot(b, p)], 1).float()[mask]
    y = torch.nn.functional.one_hot(c, p).float()[mask]

    def loss():
        out = ((x @ W1[0].T / math.sqrt(2 * p)) ** 2) @ W2[0].T / d_h
        return ((out - y) ** 2).sum(1).mean()
    loss().backward()
    with torch.no_grad():
        W1 -= lr * W1.grad
        W2 -= lr * W2.grad
    assert r["train_loss"][0, 0, 1] == pytest.approx(loss().item(), rel=1e-4)


def test_two_layer_activations_are_validated():
    with pytest.raises(ParameterError, match="valid activations: linear, tanh"):
        train_two_layer(TwoLayerTraining(4, 3, 2, 5, 5, lr=0.1, steps=1, eps=1e-3, n_evals=2), ("relu",), seed=0)


def test_summaries_eq11_picks_the_paper_eps_and_the_limit():
    q = {0.5: np.array([3.0, 2.0, 1.5, 1.1]), 0.9: np.array([4.0, 3.0, 2.0, 1.0]),
         "eps": np.array([1e-2, 1e-3, 1e-6, 1e-12]), "eq25": {0.5: 1.09, 0.9: float("nan")}}
    s = summaries.eq11(q)
    assert s.ratio_at_paper_eps == 2.0 and s.limit_ratio == 1.1 and s.eq25_ratio == 1.09 and set(s.ratios) == {0.5, 0.9}
    q[0.5] = np.array([3.0, 2.0, 2.5, 1.1])  # not monotone: no limit
    assert math.isnan(summaries.eq11(q).limit_ratio)


def test_summaries_fig8_below_reads_not_observed_from_nan_crossings():
    from companion.events import NOT_OBSERVED
    from companion.experiments.linear_estimators import summaries_late

    acc = np.array([[[0.1, 0.3], [0.2, 0.05]], [[0.1, 0.96], [0.2, 0.4]]])  # (S, n_α, n_evals)
    mod = {"alpha": np.array([0.3, 0.4]), "lam": np.array([0.28, 0.21]), "t_te": np.array([[np.nan, np.nan],
           [20.0, np.nan]]), "test_acc": acc, "train_acc": np.ones_like(acc)}
    s = summaries_late.fig8_below({"mod": mod, "steps": 40, "thr": 0.95, "p": 24})
    assert s.first_gen == [NOT_OBSERVED, 20.0]
    assert s.best_test_acc == [0.3, 0.96] and s.best_train_acc == [1.0, 1.0]
    # the α at or above gen_from are the control (the paper says they generalise), read apart
    c = summaries_late.fig8_below({"mod": mod, "steps": 40, "thr": 0.95, "p": 24, "gen_from": 0.4})
    assert list(c.alpha) == [0.3] and list(c.control_alpha) == [0.4]
    assert c.first_gen == [NOT_OBSERVED, 20.0] and c.control_first_gen == [NOT_OBSERVED, NOT_OBSERVED]
    assert c.worst_test_err == [pytest.approx(0.7), pytest.approx(0.04)]


def test_summaries_fig2_peak_over_start_and_unimodal():
    grid = np.array([1.0, 10.0, 100.0, 1000.0, 2000.0])
    res = {"eps": 1e-3, "curves": {}, "markers": {}, "dout_grid": grid,
           "theory_dt": {0.5: np.array([10.0, 40.0, 20.0, 5.0, 0.0]), 0.9: np.array([30.0, 60.0, 10.0, 0.0, 0.0])}}
    s = summaries.fig2(res)
    assert s.peak_over_start == 2.0 and s.unimodal and s.zero_big
    res["theory_dt"][0.5] = np.array([10.0, 40.0, 20.0, 25.0, 0.0])  # a second rise after the maximum
    assert not summaries.fig2(res).unimodal


def test_draws_for_error_is_variance_over_squared_error():
    assert summaries.draws_for_error([1.0, 3.0], 1.0) == 2 and summaries.draws_for_error([1.0], 0.1) == 0


# ----------------------------------------------------------------------------- runs from their spectra alone
from companion.experiments.linear_estimators.networks import exponent_profile  # noqa: E402
from companion.theory import spectral_gd as sg  # noqa: E402


@pytest.mark.parametrize("d_in, n", [(120, 150), (120, 80)])
def test_bidiagonal_wishart_spectra_have_the_law_of_dense_ones(d_in, n):
    """Dumitriu–Edelman against eigvalsh of XᵀX/N: mean and spread of the smallest nonzero, the median and the
    largest eigenvalue agree within their sampling error over 600 draws; d_in > N gives d_in − N exact zeros."""
    rng = np.random.default_rng(0)
    fast = sg.wishart_spectra(d_in, n, 600, rng)
    dense = np.array([np.linalg.eigvalsh((lambda x: x.T @ x / n)(rng.standard_normal((n, d_in)))) for _ in range(600)])
    zeros = max(0, d_in - n)
    assert np.all(fast[:, :zeros] == 0) and np.all(fast[:, zeros:] > 0)
    for j in (zeros, (zeros + d_in) // 2, d_in - 1):
        se = np.hypot(fast[:, j].std(), dense[:, j].std()) / np.sqrt(600)
        assert abs(fast[:, j].mean() - dense[:, j].mean()) < 4 * se
        assert fast[:, j].std() == pytest.approx(dense[:, j].std(), rel=0.2)


@pytest.mark.parametrize("lam, d_out, gamma", [(0.5, 1, 0.0), (1.5, 1, 1e-3), (0.9, 3, 1e-2)])
def test_spectral_gd_equals_the_full_simulation_draw_by_draw(lam, d_out, gamma):
    """SpectralGD fed one LinearGD draw's spectrum and eigenbasis coordinates gives its losses to 1e-9."""
    sim = LinearGD.sample(80, d_out, lam, 2, 3, n_gen=10).retune(0.01, gamma)
    t_, s_ = sim.Tb.numpy(), sim.Sb0.numpy()
    spec = sg.SpectralGD(sim.nu.numpy(), (t_ * t_).sum(2), (s_ * s_).sum(2), (t_ * s_).sum(2), d_out, 0.01, gamma)
    ltr, lgen = spec.losses([0, 9, 400, 6000])
    for k, t in enumerate((0, 9, 400, 6000)):
        a, b = sim.losses(t)
        np.testing.assert_allclose(ltr[:, k], a.numpy(), rtol=1e-9, atol=1e-14)
        np.testing.assert_allclose(lgen[:, k], b.numpy(), rtol=1e-9, atol=1e-14)


def test_expected_losses_are_the_mean_over_teacher_and_student():
    """For fixed spectra, averaging teacher and student in closed form equals the Monte Carlo mean of many
    draws of them (the spectra repeated), with and without weight decay."""
    base = sg.SpectralGD.sample(60, 1, 0.7, 1, 0)
    for gamma in (0.0, 1e-2):
        nu = np.repeat(base.nu, 20000, 0)
        many = sg.SpectralGD.sample(60, 1, 0.7, 20000, 1)
        many = sg.SpectralGD(nu, many.tt, many.ss, many.st, 1, 0.01, gamma)
        t = [10, 300, 5000]
        mc = [x.mean(0) for x in many.losses(t)]
        ex = [x[0] for x in sg.SpectralGD(base.nu, base.tt, base.ss, base.st, 1, 0.01, gamma).expected().losses(t)]
        for a, b in zip(mc, ex):
            np.testing.assert_allclose(a, b, rtol=0.03)


def test_crossing_on_a_log_grid_is_exact_for_a_power_law_and_the_threshold_loss_inverts_eq9():
    t = np.geomspace(1, 1e6, 60)
    loss = np.vstack([3.0 / t, 0.5 / np.sqrt(t)])  # log-log straight: interpolation is exact
    np.testing.assert_allclose(sg.first_crossing_on_grid(t, loss, 1e-3), [3e3, 2.5e5], rtol=1e-9)
    assert sg.first_crossing_on_grid(t, np.full((1, 60), 1.0), 1e-3)[0] == np.inf
    assert sg.first_crossing_on_grid(t, np.full((1, 60), 1e-4), 1e-3)[0] == 0.0
    for dout in (1, 7):
        level = sg.loss_at_threshold(1e-3, 0.95, dout)
        assert th.accuracy(level, 1e-3, dout) == pytest.approx(0.95, abs=1e-12)
    assert sg.loss_at_threshold(1e-3, th.grok_threshold_erf2()) == pytest.approx(1e-3 / 4, rel=1e-12)


def test_bootstrap_weights_start_with_the_plain_mean_and_resample_counts():
    w = sg.bootstrap_weights(5, 300, seed=1)
    np.testing.assert_allclose(w[0], 0.2)
    np.testing.assert_allclose(w.sum(1), 1.0)
    assert np.all(np.round(w[1:] * 5) == w[1:] * 5)  # counts / n


def test_search_with_a_relative_tolerance_stops_within_it_of_the_exact_step():
    sim = LinearGD.sample(100, 4, 0.5, 2, 2, n_gen=200)
    exact = sim.first_steps(1e-3, 0.95, 10 ** 6)
    quick = sim.first_steps(1e-3, 0.95, 10 ** 6, rtol=0.01)
    for e, q in zip(exact, quick):
        assert np.all(q >= e) and np.all(q <= e * 1.01 + 1)


def test_free_exponent_fit_recovers_the_exponent_and_brackets_it():
    rng = np.random.default_rng(0)
    lam = np.linspace(0.05, 0.15, 7)
    for k in (1.0, 2.0):
        dt = np.array([50 * (0.2 - lam) ** -k * np.exp(rng.normal(0, 0.05, 7)) for _ in range(3)])
        f = exponent_profile(lam, dt)
        assert f["interval"][0] <= k <= f["interval"][1] and f["interval"][1] - f["interval"][0] < 1.0
        assert not f["open"]


def test_a_divergence_steeper_than_the_grid_reads_open_above():
    """An exponential rise in λ is a power law of ever larger k with λ* ever farther: the fit's k runs to the top of
    its grid, and the interval says the data bound k from below only."""
    lam = np.linspace(0.05, 0.15, 9)
    dt = np.array([np.exp(60 * lam) * (1 + 0.01 * i) for i in range(3)])
    f = exponent_profile(lam, dt)
    assert f["open"] and f["interval"][1] == f["ks"].max() and f["k"] > 4


def test_peak_over_ends_sees_an_interior_maximum():
    assert summaries.peak_over_ends([[1.0, 2.0], [4.0, 1.0], [2.0, 3.0]]) == [2.0, pytest.approx(1 / 3)]


@pytest.mark.parametrize("seed", [0, 2])
def test_registry_run_all_plans_every_figure(seed):
    """``run_all`` over the registry plans what it planned before it: each figure's experiment with
    :func:`config`'s settings, in the figures' order."""
    from conftest import planned

    from companion.experiments import linear_estimators as le

    def before(profile, device, seed):
        for name in le.FIGURES:
            getattr(le, name)(le.config(name, profile, seed), device)

    assert planned(le.run_all, "smoke", "cpu", seed) == planned(before, "smoke", "cpu", seed)
    assert list(le.CONFIGS) == list(le.FIGURES) and all(le.RUNNERS[f] is getattr(le, f) for f in le.FIGURES)
