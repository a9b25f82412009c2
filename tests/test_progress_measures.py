"""Checks of the maths of the progress_measures chapter (Gu et al.), each by an independent route."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from companion.data.modular import OPERATIONS, modular_split
from companion.measures import embedding as me
from companion.models.gu import gu_config, gu_transformer, toeplitz_embedding
from companion.theory import progress_measures as th


def test_def42_med_on_a_circle():
    """Def. 4.2: tokens on a circle of radius r at angles 2πi/p have every cyclic step 2r sin(π/p)."""
    p, r = 13, 1.7
    ang = 2 * math.pi * torch.arange(p + 1, dtype=torch.float64) / p
    W = torch.zeros(p + 1, 8, dtype=torch.float64)
    W[:, 0], W[:, 1] = r * torch.cos(ang), r * torch.sin(ang)
    W[p] = 5.0  # the "=" token must not enter
    assert me.med(W, p) == pytest.approx(2 * r * math.sin(math.pi / p), rel=1e-9)
    assert me.med(W, p, scale="sum") == pytest.approx(p * 2 * r * math.sin(math.pi / p), rel=1e-9)


def test_def42_med_literal_loop_and_offset():
    p, k = 7, 3
    W = torch.randn(p + k + 1, 5, generator=torch.Generator().manual_seed(0))

    def lit(s: int) -> float:
        return sum(float((W[s + (i + 1) % p] - W[s + i]).norm()) for i in range(p)) / p

    assert me.med(W, p) == pytest.approx(lit(0), rel=1e-6)
    assert me.med(W, p, offset=k) == pytest.approx((lit(0) + lit(k)) / 2, rel=1e-6)


def test_fourier_energy_parseval_and_single_frequency():
    p = 11
    W = torch.randn(p + 1, 6, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    B, _ = me.fourier_basis(p)
    assert torch.allclose(B @ B.T, torch.eye(p, dtype=torch.float64), atol=1e-12)
    e = me.fourier_energy(W, p)
    const = float(((B[0] @ W[:p]) ** 2).sum())
    assert e.sum() + const == pytest.approx(float((W[:p] ** 2).sum()), rel=1e-10)
    i = torch.arange(p, dtype=torch.float64)
    W2 = torch.stack([torch.cos(2 * math.pi * 3 * i / p), torch.sin(2 * math.pi * 3 * i / p)], 1)
    assert me.key_frequencies(W2, p, 1) == [3]
    assert me.topk_fraction(W2, p, 1) == pytest.approx(1.0)


def test_gini_extremes():
    assert me.gini(np.ones(10)) == pytest.approx(0.0)
    assert me.gini(np.eye(10)[0]) == pytest.approx(0.9)


def test_mlp_internals_reproduce_the_logits():
    cfg = gu_config(11, d_model=16)
    m = gu_transformer(cfg, 0)
    d = modular_split(11, "add", 0, "random", 0, 0.5, 0)
    resid, N = me.mlp_internals(m, d.test_x)
    blk = m.blocks[0]
    logits = (resid + N @ blk.W_out + blk.b_out) @ m.W_U
    assert torch.allclose(logits, m(d.test_x), atol=1e-5)


def test_restricted_excluded_loss_with_every_frequency_is_the_group_mean_projection():
    """With all (p−1)/2 frequencies kept, projecting the MLP activations onto cos/sin(w_k(a+b)) is
    replacing them by their mean over the pairs with the same (a + b) mod p, minus the grand mean:
    the losses computed that way (no Fourier basis) must agree."""
    import torch.nn.functional as F

    p = 7
    m = gu_transformer(gu_config(p, d_model=16), 0).double()
    mask = torch.zeros(p * p, dtype=torch.bool)
    mask[::3] = True
    r, e = me.restricted_excluded_loss(m, p, mask, n_freq=(p - 1) // 2)
    a, b = torch.arange(p).repeat_interleave(p), torch.arange(p).repeat(p)
    tokens = torch.stack([a, b, torch.full_like(a, p)], 1)
    y = (a + b) % p
    logits = m(tokens)
    _, N = me.mlp_internals(m, tokens)
    group = torch.stack([N[y == c].mean(0) for c in range(p)])
    PN = group[y] - N.mean(0)
    W_logit = m.blocks[0].W_out @ m.W_U
    restricted = (N.mean(0, keepdim=True) + PN) @ W_logit
    restricted = restricted - restricted.mean(0) + logits.mean(0)
    assert r == pytest.approx(F.cross_entropy(restricted, y).item(), rel=1e-9)
    assert e == pytest.approx(F.cross_entropy((logits - PN @ W_logit)[mask], y[mask]).item(), rel=1e-9)


def test_modular_split_shapes_offset_and_labels():
    p, k = 13, 4
    for shape, hole in (("random", 0), ("square", 5), ("strip", 3)):
        d = modular_split(p, "x2+xy+y2", k, shape, hole, 0.3, 1)
        assert d.n_train == int(0.3 * p * p) and d.n_train + len(d.test_y) == p * p
        a, b = d.train_x[:, 0], d.train_x[:, 1] - k
        assert not bool((((a <= hole) & (b <= hole)) if shape == "square" else (a <= hole) if shape == "strip"
                         else torch.zeros_like(a, dtype=torch.bool)).any())
        assert torch.equal(d.train_y, (a * a + a * (b + k) + (b + k) ** 2) % p)
        assert bool((d.train_x[:, 2] == p + k).all())
    # the strip that leaves fewer free pairs than int(α p²): all of them train
    d = modular_split(13, "add", 0, "strip", 9, 0.3, 0)
    assert d.n_train == 13 * 13 - 10 * 13


def test_new_operations():
    a, b = torch.tensor([2, 5]), torch.tensor([3, 4])
    assert OPERATIONS["x3+y3"](a, b, 7).tolist() == [(8 + 27) % 7, (125 + 64) % 7]
    assert OPERATIONS["x3+xy+y3"](a, b, 7).tolist() == [(8 + 6 + 27) % 7, (125 + 20 + 64) % 7]


def test_gu_config_vocab_and_forward_with_offset():
    cfg = gu_config(11, d_model=16, offset=5)
    assert cfg.d_vocab == 17 and cfg.d_mlp == 64
    m = gu_transformer(cfg, 0)
    d = modular_split(11, "add", 5, "random", 0, 0.5, 0)
    assert m(d.train_x).shape == (d.n_train, 11)


@pytest.mark.parametrize("n_layers,offset", [(1, 0), (1, 5), (2, 0), (3, 4)])
def test_tabulated_is_the_same_transformer(n_layers, offset):
    """Keys and values per (token, position) with one block, position 0 of the first block per
    vocabulary entry with more: the same logits and gradients as the plain forward (same
    parameters, same initialisation), up to float32 rounding."""
    cfg = gu_config(11, d_model=16, n_layers=n_layers, offset=offset)
    plain, fast = gu_transformer(cfg, 3), gu_transformer(cfg, 3, tabulated=True)
    assert all(torch.equal(a, b) for a, b in zip(plain.parameters(), fast.parameters()))
    d = modular_split(11, "add", offset, "random", 0, 0.5, 0)
    out_p, out_f = plain(d.train_x), fast(d.train_x)
    assert torch.allclose(out_p, out_f, atol=1e-5)
    torch.nn.functional.cross_entropy(out_p, d.train_y).backward()
    torch.nn.functional.cross_entropy(out_f, d.train_y).backward()
    for a, b in zip(plain.parameters(), fast.parameters()):
        assert torch.allclose(a.grad, b.grad, atol=1e-5)


def test_subset_accuracies_reuse_the_evaluation_forward():
    """The mirror and hole accuracies come from the evaluation's own test forward (two forwards per
    evaluation, train and test), and equal what a separate forward gives."""
    from dataclasses import replace

    from companion.experiments.progress_measures import Run, setup_run
    from companion.train.trainer import HISTORY, _record_into

    run = Run(p=11, train_frac=0.5, d_model=16, shape="square", hole=2, breakdown=True, nanda=False)
    data, model, measures, _ = setup_run(replace(run, train=replace(run.train, steps=1)), "cpu")
    calls = []
    model.register_forward_pre_hook(lambda m, a: calls.append(a[0].shape[0]))
    hist = {k: [] for k in (*HISTORY, *measures)}
    _record_into(hist, model, data, 0, run.train, measures)
    assert len(calls) == 2
    with torch.no_grad():
        hit = model(data.test_x).argmax(-1) == data.test_y
    mirror = hist["acc_mirror_in"][0], hist["acc_mirror_out"][0]
    from companion.experiments.progress_measures import mirror_split

    m = mirror_split(run, data)
    assert mirror == (float(hit[m].float().mean()), float(hit[~m].float().mean()))


def test_appE_toeplitz_structure():
    W = toeplitz_embedding(10, 16, 0)
    assert W.shape == (10, 16)
    assert torch.allclose(W[1:, 1:], W[:-1, :-1])  # constant along diagonals
    assert torch.allclose(W[:, :10], W[:, :10].T)  # symmetric
    with pytest.raises(ValueError):
        toeplitz_embedding(20, 16, 0)


def test_thm312_cover_count_is_the_diamond():
    for k in range(1, 6):
        t = np.zeros((31, 31), dtype=bool)
        t[15, 15] = True
        assert int(th.covered(t, k).sum()) == th.cover_count(k) == int(th.covered(t, k, torus=False).sum())
    assert th.alpha_threshold(97, 3) == pytest.approx(2 * math.log(97) / 13)


def test_thm312_monte_carlo_matches_exact_expectation():
    """Exact-size random training sets on the torus: a point is uncovered iff none of its C
    neighbours trains, probability C(p²−C, n)/C(p², n) (hypergeometric)."""
    p, k, alpha = 23, 2, 0.1
    n, N, C = int(alpha * p * p), p * p, th.cover_count(k)
    exact = N * math.comb(N - C, n) / math.comb(N, n)
    mc = th.monte_carlo_coverage(p, k, alpha, 400, 0)
    assert mc["uncovered_mean"] == pytest.approx(exact, rel=0.05)
    assert exact <= th.union_bound(p, k, alpha)


def test_thm310_same_class_distance_walks_the_anti_diagonal():
    """For f = i + j the pairs of (i, j)'s class are (i + d, j − d) mod p, at torus distance
    2·min(|d|, p − |d|): the nearest training one found by walking d, not by the pairwise search."""
    p, rng = 13, np.random.default_rng(1)
    grid = np.array([(i, j) for i in range(p) for j in range(p)])
    train = rng.random(len(grid)) < 0.3
    tr, te = grid[train], grid[~train]
    trained = set(map(tuple, tr))
    walk = [min((2 * min(d, p - d) for d in range(1, p) if ((i + d) % p, (j - d) % p) in trained), default=np.inf)
            for i, j in te]
    got = th.same_class_distance(p, tr, tr.sum(1) % p, te, te.sum(1) % p)
    assert got.tolist() == walk
    # off the torus a pair at the grid's edge is farther from a partner across the edge
    plain = th.same_class_distance(p, tr, tr.sum(1) % p, te, te.sum(1) % p, torus=False)
    assert (plain >= got).all() and (plain > got).any()


def test_appC_lyapunov_rate_is_the_chain_rule():
    rng = np.random.default_rng(0)
    for s in rng.random((20, 3)) * 1.5:
        h = 1e-6
        num = (th.lyapunov(s + h * th.ode_rhs(0, s)) - th.lyapunov(s - h * th.ode_rhs(0, s))) / (2 * h)
        assert th.lyapunov_rate(s) == pytest.approx(num, rel=1e-5, abs=1e-9)
        assert th.lyapunov_rate(s) == pytest.approx(2 * th.lyapunov_rate_paper(s), rel=1e-12, abs=1e-15)
    inside = rng.random((1000, 3))
    assert (th.lyapunov_rate(inside) <= 1e-15).all()


def test_appC_flow_conserves_squared_differences():
    res = th.ode_trajectories(5, 5.0, 11, 0)
    x, w, u = np.moveaxis(res["traj"], -1, 0)
    assert np.allclose(x ** 2 - w ** 2, (x ** 2 - w ** 2)[:, :1], atol=1e-6)
    assert np.allclose(x ** 2 - u ** 2, (x ** 2 - u ** 2)[:, :1], atol=1e-6)


def test_summaries_on_a_synthetic_history():
    from companion.experiments import progress_measures as ex

    step = np.arange(0, 101, 10)
    train_acc = np.r_[0.5, np.ones(10)]
    test_acc = np.array([0, .1, .2, .3, .5, .8, .96, 1, .9, 1, .9])
    h = {"step": step, "train_acc": train_acc, "test_acc": test_acc, "test_loss": 1 - test_acc,
         "med": 2 - test_acc, "w": test_acc}
    assert ex.window(h) == (10.0, 60.0)
    assert ex.window_r(h, "med") == pytest.approx(1.0)
    assert ex.window_r(h, "w") == pytest.approx(-1.0)
    assert ex.fluctuation(h, 10, 0.95) == pytest.approx(np.mean([.04, .1, .1, .1]))
    s = ex.u_l_go(h)
    assert s["u_acc"] == 1 and s["l_acc"] == pytest.approx(0.9) and s["go"] == s["go_all"] == 50
    assert s["go_on"] == "all test pairs (no mirror split logged)" and ex.grok_step(h) == 60
    assert ex.onset_on(h, "sub") == "all test pairs (f not commutative: no shortcut)"
    assert ex.onset_on(h, "add") == ex.onset_on(h, "") == "all test pairs (no mirror split logged)"


def test_summaries_read_onsets_on_mirror_untrained_pairs():
    """Where a history has the commutativity split, onsets, GO-Epoch and the correlation window are
    read on the mirror-untrained pairs; plain test accuracy (half of it memorised mirrors) only beside."""
    from companion.events import NOT_OBSERVED
    from companion.experiments import progress_measures as ex

    step = np.arange(0, 101, 10)
    out = np.array([0, 0, 0, .05, .1, .3, .6, .9, .96, 1, 1])  # mirror-untrained: onset 80
    test = 0.5 + 0.5 * out  # half the test pairs mirror-trained and answered from the start: plain onset 70
    h = {"step": step, "train_acc": np.r_[0.5, np.ones(10)], "test_acc": test, "acc_mirror_out": out,
         "acc_mirror_in": np.ones(11), "mirror_in_share": 0.5, "test_loss": 1 - test, "med": 2 - out,
         "med_sum": 2 - out, "wnorm2": out}
    assert ex.onset_on(h) == "mirror-untrained pairs"
    assert (ex.grok_step(h), ex.grok_step(h, key="test_acc")) == (80, 70)
    assert ex.window(h) == (10.0, 80.0)  # the claims' window_mask, as numbers
    assert ex.window_mask(h).tolist() == [False] + [True] * 8 + [False] * 2
    # GO-Epoch, the midpoint between the accuracy at memorisation and the highest: first passed at 60 on both
    # curves here (0.5 untrained, 0.75 on all); an untrained rise that comes later moves only ``go``
    s = ex.u_l_go(h)
    assert (s["go"], s["go_all"], s["go_on"]) == (60, 60, "mirror-untrained pairs")
    late = dict(h, acc_mirror_out=np.r_[np.zeros(9), 1.0, 1.0])
    assert (ex.u_l_go(late)["go"], ex.u_l_go(late)["go_all"]) == (90, 60)
    assert ex.grok_step(dict(h, acc_mirror_out=np.zeros(11))) is NOT_OBSERVED
    assert ex.window(dict(h, acc_mirror_out=np.zeros(11))) == (10.0, 100.0)
    row = ex.widths_summary({("A", 8): h}).rows[0]
    assert row[2:5] == (80, "mirror-untrained pairs", 70)
    case = ex.operations_summary({"Fig. 16": h}, (("Fig. 16", "x2+xy+y2", 8, 0.5, 31),))["Fig. 16"]
    assert (case.grok_step, case.onset_on, case.window_end) == (80, "mirror-untrained pairs",
                                                                "accuracy 0.95 on mirror-untrained pairs")
    assert ex.primes_summary({31: h}).rows[0][1:4] == (80, "mirror-untrained pairs", 70)
    assert ex.depth_summary({1: h}, 10).rows[0][1:4] == (80, "mirror-untrained pairs", 70)


def test_paper_profile_holds_the_papers_settings():
    from companion.experiments import progress_measures as ex

    run = ex.config("fig5", "paper").base
    assert (run.p, run.train_frac, run.d_model, run.train.steps, run.train.lr, run.train.weight_decay) == \
        (97, 0.3, 128, 30_000, 1e-3, 1.0)
    img = ex.config("fig7", "paper")
    assert (img.size, img.n_images, img.train_frac, img.width, img.batch, img.lr) == (224, 14_641, 0.25, 64, 200, 1e-3)
    assert ex.config("fig5", "paper").primes == (47, 97, 211, 379)
    table = ex.departures_table("paper").data  # only Fig. 7's budget on a GPU departs
    assert "2 setting(s) depart from the paper's" in table and "| fig7 | `stop_at` | None | 0.95 |" in table
    assert img.epochs == 20_000 and ex.paper_setting("fig7").stop_at is None


def test_departures_are_what_the_cpu_profile_changes():
    """The departures table lists exactly the fields the cpu profile's ``replace`` lines change."""
    from companion.experiments import progress_measures as ex
    from companion.profiles import departures

    cpu_run = {"base.p", "base.train_frac", "base.d_model", "base.train.steps", "base.train.lr",
               "base.train.n_evals", "base.eval_every", "base.nanda"}
    expected = {
        "fig5": cpu_run | {"primes"},
        "fig7": {"size", "n_images", "width", "stem", "epochs", "eval_every"},
        "fig8": set(),
        "ops": cpu_run | {"small_p_train", "cases"},
    }
    for name, fields in expected.items():
        cfgs = ex.CONFIGS[name]
        assert {f for f, _, _ in departures(cfgs["cpu"], ex.paper_setting(name))} == fields, name
    table = ex.departures_table("cpu").data
    assert "| fig5 | `primes` | (47, 97, 211, 379) | (47,) |" in table
    assert "| fig7 | `stem` | imagenet | cifar |" in table
    assert "fig8" not in table


def test_configs_validate_their_kinds():
    from companion.experiments import progress_measures as ex
    from companion.settings import ParameterError

    for bad in ({"op": "x5"}, {"shape": "ring"}, {"init": "zeros"}, {"model": "cnn"}):
        with pytest.raises(ParameterError):
            ex.Run(**bad)
    with pytest.raises(ParameterError):
        ex.ImageRun(stem="vgg")


def test_figure_summaries_on_synthetic_histories():
    """The per-figure summaries, against values worked out by hand."""
    from companion.experiments import progress_measures as ex

    step = np.arange(0, 101, 10)
    ones = np.ones(11)

    def hist(test_acc, **kw):
        return {"step": step, "train_acc": np.r_[0.5, np.ones(10)], "test_acc": np.asarray(test_acc, float),
                "test_loss": 1 - np.asarray(test_acc, float), **kw}

    # Table 1: U-Acc falls with the square hole but not with the strip
    holes = {("square", 2): hist(np.r_[0, ones[:10]], acc_hole=0.2 * ones, acc_rest=ones),
             ("square", 4): hist(np.r_[0, 0.8 * ones[:10]], acc_hole=0.1 * ones, acc_rest=0.9 * ones),
             ("strip", 1): hist(np.r_[0, 0.5 * ones[:10]]), ("strip", 3): hist(np.r_[0, 0.6 * ones[:10]])}
    s = ex.holes_summary(holes)
    assert (s.square_holes, s.strip_holes, s.square_ceiling_falls, s.strip_ceiling_falls) == ("2, 4", "1, 3", True,
                                                                                              False)
    assert (s.smallest_square, s.smallest_square_u_acc, s.largest_square) == (2, 1.0, 4)
    assert s.largest_square_hole_minus_rest == pytest.approx(0.1 - 0.9)
    # Figs. 9–11: the wide model groks at 40, the narrow one at 80; a panel where only the wide one groks
    w = ex.widths_summary({("A", 8): hist(np.r_[np.zeros(8), ones[:3]], med_sum=ones),
                           ("A", 16): hist(np.r_[np.zeros(4), ones[:7]], med_sum=ones),
                           ("B", 8): hist(np.zeros(11), med_sum=ones), ("B", 32): hist(ones, med_sum=ones)})
    assert w.contrasts[("A", 16)] == ex.summaries.WidthContrast(8, 16, 0.5)
    assert w.contrasts[("B", 32)].ratio == 0.0
    # Fig. 20: onset ratios 20/40 and 30/30, median 0.75
    st = ex.structured_summary({("random", 0.5, 0): hist(np.r_[np.zeros(4), ones[:7]]),
                                ("toeplitz", 0.5, 0): hist(np.r_[np.zeros(2), ones[:9]]),
                                ("random", 0.5, 1): hist(np.r_[np.zeros(3), ones[:8]]),
                                ("toeplitz", 0.5, 1): hist(np.r_[np.zeros(3), ones[:8]])}, (0.5,), (0, 1, 2))
    assert st.median_ratio == pytest.approx(0.75) and len(st.rows) == 2
    # Fig. 8: V = 1, 0.5, 0.6 (one increase of 0.1); final point (2, 0.5, 1): xwu = 1, distance √1.25
    o = ex.ode_summary({"V": np.array([[1.0, 0.5, 0.6]]), "traj": np.array([[[0.1, 0.1, 0.1], [2.0, 0.5, 1.0]]])})
    assert o.largest_V_increase == pytest.approx(0.1) and o.largest_xwu_error == pytest.approx(0.0)
    assert o.median_distance_to_one == pytest.approx(math.sqrt(1.25)) and o.largest_final_coordinate == 2.0


def test_thm35_class_spread_by_the_law_of_total_variance():
    """class_spread = within-class / total sum of squares: checked against 1 − between/total computed
    class by class in numpy (total = within + between), and at its two ends (0 for rows on their class
    centroid, 1 for W_E[i] + W_E[j] over all pairs of f = i + j, which every embedding gives)."""
    g = torch.Generator().manual_seed(3)
    h = torch.randn(60, 5, generator=g, dtype=torch.float64)
    lab = torch.randint(0, 4, (60,), generator=g)
    H, L = h.numpy(), lab.numpy()
    mean = H.mean(0)
    between = sum((L == c).sum() * ((H[L == c].mean(0) - mean) ** 2).sum() for c in np.unique(L))
    assert me.class_spread(h, lab) == pytest.approx(1 - between / ((H - mean) ** 2).sum(), rel=1e-12)
    centroids = torch.randn(4, 5, generator=g, dtype=torch.float64)
    assert me.class_spread(centroids[lab], lab) == pytest.approx(0.0, abs=1e-12)
    p = 7
    W = torch.randn(p + 1, 6, generator=g, dtype=torch.float64)
    a, b = torch.arange(p).repeat_interleave(p), torch.arange(p).repeat(p)
    assert me.class_spread(W[a] + W[b], (a + b) % p) == pytest.approx(1.0, rel=1e-12)


def test_thm35_pair_representation_is_what_the_unembedding_reads():
    """φ̄(cls) times W_U is the model's logits (the representation Lemma 3.2 and App. B.3 speak of)."""
    m = gu_transformer(gu_config(11, d_model=16), 0)
    d = modular_split(11, "add", 0, "random", 0, 0.5, 0)
    assert torch.allclose(me.pair_representation(m, d.test_x) @ m.W_U, m(d.test_x), atol=1e-5)
    assert me.pair_class_spread(m, d.test_x, d.test_y) == pytest.approx(
        me.class_spread(me.pair_representation(m, d.test_x), d.test_y))


@pytest.mark.parametrize("seed", [0, 2])
def test_registry_run_all_plans_every_experiment(seed):
    """``run_all`` over the registry plans what it planned before it: each sweep over seeds, the controls without
    weight decay (Fig. 2's, Fig. 5's at every prime), Fig. 7 at each image seed, the ODE and the coverage run."""
    from conftest import planned

    from companion.experiments import progress_measures as ex

    def before(profile, device, seed):
        cfg = ex.configs(profile, seed)
        ex.depth_seeded(cfg["fig2"], device)
        ex.without_weight_decay(cfg["fig2"].base, cfg["fig2"].seeds, device)
        ex.holes_seeded(cfg["table1"], device)
        ex.commutativity_seeded(cfg["fig4"], device)
        ex.primes_seeded(cfg["fig5"], device)
        for p in cfg["fig5"].primes:
            ex.without_weight_decay(cfg["fig5"].base, cfg["fig5"].seeds, device, p)
        ex.widths_seeded(cfg["widths"], device)
        ex.operations_seeded(cfg["ops"], device)
        ex.structured_seeded(cfg["fig20"], device)
        ex.image_seeded(cfg["fig7"], ex.IMAGE_SEEDS, device)
        ex.ode_run(cfg["fig8"], device)
        ex.coverage_run(cfg["coverage"], device)

    assert planned(ex.run_all, "smoke", "cpu", seed) == planned(before, "smoke", "cpu", seed)
